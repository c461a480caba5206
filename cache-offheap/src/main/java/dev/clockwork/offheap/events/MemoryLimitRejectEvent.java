package dev.clockwork.offheap.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * An insert refused for lack of room: the strict capacity limit could not be met (too much is
 * pinned), or a size limit was reached ({@code memoryLimitRejects} in the stats). With a stack
 * trace, so that a recording shows whose inserts are refused.
 */
@Name("dev.clockwork.MemoryLimitReject")
@Label("Memory Limit Reject")
@Description("An insert refused because the strict capacity limit could not be met, or a size"
        + " limit was reached")
@Category("Clockwork")
final class MemoryLimitRejectEvent extends ClockworkEvent {
    @Label("Charge")
    @DataAmount(DataAmount.BYTES)
    long charge;

    @Label("Shard Usage")
    @Description("The shard's usage after the refusal")
    @DataAmount(DataAmount.BYTES)
    long shardUsage;

    @Label("Shard Capacity")
    @DataAmount(DataAmount.BYTES)
    long shardCapacity;

    @Label("Strict")
    @Description("Whether the cache has a strict capacity limit")
    boolean strict;

    @Label("Pinned Insert")
    @Description("Whether the caller asked for a handle (insertPinned)")
    boolean pinnedInsert;
}
