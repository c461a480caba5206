package dev.clockwork.offheap.events;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One cache's JFR events: each method records one event if a recording wants it, and does
 * nothing else otherwise. They are called on rare paths only (a refused insert, an eviction run
 * that gave up, a table doubling), never on a lookup.
 *
 * <p>Cheap when no recording wants the event: each method first asks a fresh event whether it
 * is enabled. That first event cannot escape (it is only asked), so C2 removes its allocation,
 * and before JFR instruments the class {@code isEnabled()} is a constant {@code false}; only then
 * is the event that is filled and committed made. (Asking the event that is committed would do
 * in most cases, but if C2 does not inline {@code commit()} that event escapes, and its
 * allocation would stay on the disabled path too.) A {@code static final} {@code EventType}
 * would avoid the allocation in the interpreter as well, but looking one up starts JFR's
 * metadata repository in every JVM that builds a cache, recording or not.
 *
 * <p>Admission rejects can come at the rate of misses, so their event is rate-limited per cache
 * ({@link EventRateLimit}, {@value #ADMISSION_REJECTS_PER_SECOND} a second): the limit is asked
 * only once the event is known to be enabled, and a reject it refuses allocates nothing either.
 */
public final class CacheEvents {
    /** Most {@code AdmissionReject} events a cache records in a second. */
    public static final int ADMISSION_REJECTS_PER_SECOND = 100;

    private static final AtomicLong IDS = new AtomicLong();

    /** This cache's number in its events: 1, 2, ... in the order caches are built. */
    public final long cacheId = IDS.incrementAndGet();
    private final String cacheType;
    private final EventRateLimit admissionRejects;

    /**
     * The events of a cache being built, which takes the next {@link #cacheId}.
     *
     * @param cacheType the cache's class name, which each event carries
     */
    public CacheEvents(String cacheType) {
        this(cacheType, new EventRateLimit(ADMISSION_REJECTS_PER_SECOND, System::nanoTime));
    }

    /** With the given limit on admission reject events (tests run it on a clock of their own). */
    CacheEvents(String cacheType, EventRateLimit admissionRejects) {
        this.cacheType = cacheType;
        this.admissionRejects = admissionRejects;
    }

    private void identify(ClockworkEvent event, int shard) {
        event.cacheId = cacheId;
        event.cacheType = cacheType;
        event.shard = shard;
    }

    /**
     * A HyperClock eviction run gave up on the effort cap (see the event's description).
     *
     * @param shard the shard whose table was swept
     * @param requestedBytes the charge the run was asked to free
     * @param freedBytes the charge it freed
     * @param freedEntries the entries it freed
     * @param pinnedSeen the pinned entries it passed
     * @param effortCap the cache's eviction effort cap
     */
    public void evictionEffortExceeded(int shard, long requestedBytes, long freedBytes,
                                       long freedEntries, long pinnedSeen, int effortCap) {
        if (!new EvictionEffortExceededEvent().isEnabled()) {
            return;
        }
        var event = new EvictionEffortExceededEvent();
        if (event.shouldCommit()) {
            identify(event, shard);
            event.requestedBytes = requestedBytes;
            event.freedBytes = freedBytes;
            event.freedEntries = freedEntries;
            event.pinnedSeen = pinnedSeen;
            event.effortCap = effortCap;
            event.commit();
        }
    }

    /**
     * An insert of {@code charge} into {@code shard} was refused for lack of room. The shard's
     * usage and capacity are read only when the event is recorded ({@code LruShard}'s under its
     * lock).
     *
     * @param shard the shard that refused
     * @param shardIndex its number
     * @param charge the refused entry's charge
     * @param pinnedInsert whether the caller asked for a handle
     */
    public void memoryLimitReject(ShardGauges shard, int shardIndex, long charge,
            boolean pinnedInsert) {
        if (!new MemoryLimitRejectEvent().isEnabled()) {
            return;
        }
        var event = new MemoryLimitRejectEvent();
        if (event.shouldCommit()) {
            identify(event, shardIndex);
            event.charge = charge;
            event.shardUsage = shard.usage();
            event.shardCapacity = shard.capacity();
            event.strict = shard.strict();
            event.pinnedInsert = pinnedInsert;
            event.commit();
        }
    }

    /**
     * The admission policy refused an entry of {@code charge} in {@code shard}: a new insert, or
     * ({@code windowLoser}, W-TinyLFU LRU) the admission window's oldest entry, evicted instead
     * of moving on to the main list. Recorded only within the cache's rate limit; a reject past
     * it is counted, and the next event recorded carries the count ({@code suppressed}).
     *
     * @param shard the shard the entry was refused in
     * @param shardIndex its number
     * @param charge the refused entry's charge
     * @param windowLoser whether it was an LRU admission window's oldest entry
     */
    public void admissionReject(ShardGauges shard, int shardIndex, long charge,
            boolean windowLoser) {
        if (!new AdmissionRejectEvent().isEnabled() || !admissionRejects.tryAcquire()) {
            return;
        }
        var event = new AdmissionRejectEvent();
        if (event.shouldCommit()) {
            identify(event, shardIndex);
            event.charge = charge;
            event.shardUsage = shard.usage();
            event.shardCapacity = shard.capacity();
            event.windowLoser = windowLoser;
            event.suppressed = admissionRejects.takeSuppressed();
            event.commit();
        }
    }

    /**
     * An Auto table grew from {@code fromSlots} to {@code toSlots} (a batch: see
     * {@link #endsGrowthBatch}).
     *
     * @param shard the shard whose table grew
     * @param fromSlots its slots when the batch began
     * @param toSlots its slots now
     * @param maxSlots the slots its reservation holds
     * @param entries the entries in its table now
     */
    public void tableGrowth(int shard, long fromSlots, long toSlots, long maxSlots, long entries) {
        if (!new TableGrowthEvent().isEnabled()) {
            return;
        }
        var event = new TableGrowthEvent();
        if (event.shouldCommit()) {
            identify(event, shard);
            event.fromSlots = fromSlots;
            event.toSlots = toSlots;
            event.maxSlots = maxSlots;
            event.entries = entries;
            event.commit();
        }
    }

    /**
     * Whether creating slot {@code newSlot} (counted from 0) of a table that may have
     * {@code maxSlots} ends a batch of growth worth an event: the table doubled (it now has a
     * power of two of slots), or it reached its reservation's end. A table growing one slot at a
     * time then records one event per doubling instead of one per slot.
     *
     * @param newSlot the slot just created, {@code >= 1}
     * @param maxSlots the slots the table's reservation holds
     * @return whether a {@link #tableGrowth} event is due
     */
    public static boolean endsGrowthBatch(long newSlot, long maxSlots) {
        long slots = newSlot + 1;
        return (slots & newSlot) == 0 || slots == maxSlots;
    }

    /**
     * The slot count the batch that {@code newSlot} ends started from: the last power of two.
     *
     * @param newSlot the slot that ends the batch, {@code >= 1}
     * @return the table's slots when the batch began
     */
    public static long growthBatchStart(long newSlot) {
        return Long.highestOneBit(newSlot);
    }
}
