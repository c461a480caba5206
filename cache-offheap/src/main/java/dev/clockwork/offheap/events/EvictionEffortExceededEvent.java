package dev.clockwork.offheap.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A HyperClock eviction run gave up on the eviction effort cap: it passed too many pinned entries
 * per entry it freed, so the insert went ahead over capacity. No stack: the cause is what is
 * pinned, not who inserted.
 */
@Name("dev.clockwork.EvictionEffortExceeded")
@Label("Eviction Effort Exceeded")
@Description("A HyperClock insert's eviction gave up after passing evictionEffortCap pinned"
        + " entries per entry freed; the insert went ahead over capacity")
@Category("Clockwork")
@StackTrace(false)
final class EvictionEffortExceededEvent extends ClockworkEvent {
    @Label("Requested")
    @Description("Charge the run was asked to free")
    @DataAmount(DataAmount.BYTES)
    long requestedBytes;

    @Label("Freed")
    @Description("Charge the run freed before giving up")
    @DataAmount(DataAmount.BYTES)
    long freedBytes;

    @Label("Entries Freed")
    long freedEntries;

    @Label("Pinned Entries Passed")
    long pinnedSeen;

    @Label("Effort Cap")
    @Description("The cache's evictionEffortCap")
    int effortCap;
}
