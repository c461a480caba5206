package dev.clockwork.offheap.stats;

import dev.clockwork.cache.CacheStats;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters behind {@link CacheStats}; increments allocate nothing at steady state. Hits and
 * misses, counted on every lookup when {@link #recordLookups} (a builder option, on by default),
 * are {@link LookupCounts}: no atomic instruction on the hit path. The rest count rarer events
 * (inserts, evictions) in {@link LongAdder}s, exact under any concurrency.
 */
public final class StatsCounters {
    public final boolean recordLookups;
    public final LookupCounts lookups = new LookupCounts();
    public final LongAdder inserts = new LongAdder();
    public final LongAdder standaloneInserts = new LongAdder();
    public final LongAdder memoryLimitRejects = new LongAdder();
    public final LongAdder admissionRejects = new LongAdder();
    public final LongAdder evictions = new LongAdder();
    /** Charge of the evicted entries (their slots or records not included). */
    public final LongAdder evictedCharge = new LongAdder();
    public final LongAdder evictionEffortExceeded = new LongAdder();
    /** Waits for another thread (Auto table: a chain's rewrite lock, or a split to finish). */
    public final LongAdder yields = new LongAdder();
    /** Auto table: lookups that started a chain walk again after noticing a concurrent change. */
    public final LongAdder lookupRestarts = new LongAdder();

    /** The declared entry kinds' counters ({@link KindCounts#NONE} without kinds). */
    public final KindCounts kinds;

    public StatsCounters(boolean recordLookups) {
        this(recordLookups, KindCounts.NONE);
    }

    public StatsCounters(boolean recordLookups, KindCounts kinds) {
        this.recordLookups = recordLookups;
        this.kinds = kinds;
    }

    public CacheStats snapshot() {
        return new CacheStats(lookups.hits(), lookups.misses(), inserts.sum(),
                standaloneInserts.sum(),
                memoryLimitRejects.sum(), admissionRejects.sum(), evictions.sum(),
                evictionEffortExceeded.sum(), yields.sum(), kinds.snapshot());
    }
}
