package dev.clockwork.offheap.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The admission policy (TinyLFU, or the caller's own) refused an entry: it kept the entry
 * eviction would have taken. One event per {@code admissionRejects} count: a refused insert, or
 * in a W-TinyLFU LRU cache (where new entries enter an admission window) the window's oldest
 * entry losing its duel. No stack: refusing one-off keys is the policy's everyday work.
 */
@Name("dev.clockwork.AdmissionReject")
@Label("Admission Reject")
@Description("An entry refused by the admission policy, which kept the victim instead: a new"
        + " insert, or an LRU admission window's oldest entry")
@Category("Clockwork")
@StackTrace(false)
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
}
