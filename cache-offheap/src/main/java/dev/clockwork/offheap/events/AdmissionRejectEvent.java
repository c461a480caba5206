package dev.clockwork.offheap.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The admission policy (TinyLFU, or the caller's own) refused an entry: it kept the entry
 * eviction would have taken. An {@code admissionRejects} count: a refused insert, or in a
 * W-TinyLFU LRU cache (where new entries enter an admission window) the window's oldest entry
 * losing its duel. No stack: refusing one-off keys is the policy's everyday work.
 *
 * <p>Off by default ({@code @Enabled(false)}), and when a recording enables it, at most
 * {@link CacheEvents#ADMISSION_REJECTS_PER_SECOND} a second per cache: a cache that refuses
 * one-off keys refuses on a large share of its misses, up to hundreds of thousands a second,
 * which would flood a recording. The rejects left out are counted, and the next event recorded
 * carries how many ({@code suppressed}), so the events still add up to the count.
 */
@Name("dev.clockwork.AdmissionReject")
@Label("Admission Reject")
@Description("An entry refused by the admission policy, which kept the victim instead: a new"
        + " insert, or an LRU admission window's oldest entry")
@Category("Clockwork")
@StackTrace(false)
@Enabled(false)
final class AdmissionRejectEvent extends ClockworkEvent {
    @Label("Charge")
    @DataAmount(DataAmount.BYTES)
    long charge;

    @Label("Shard Usage")
    @DataAmount(DataAmount.BYTES)
    long shardUsage;

    @Label("Shard Capacity")
    @DataAmount(DataAmount.BYTES)
    long shardCapacity;

    @Label("Window Loser")
    @Description("The entry refused was an LRU admission window's oldest (inserted earlier and"
            + " evicted now), not a new insert")
    boolean windowLoser;

    @Label("Suppressed")
    @Description("Admission rejects of this cache not recorded since its previous event (the"
            + " rate limit): this event stands for 1 + suppressed rejects")
    long suppressed;
}
