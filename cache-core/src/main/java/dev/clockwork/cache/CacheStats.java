package dev.clockwork.cache;

/**
 * A point-in-time snapshot of a cache's counters. Counters are summed over shards without a global
 * lock, so a snapshot taken under load is approximate. Each counter is monotonic, except that hits
 * and misses may step back by a few counts when threads sharing a counter stripe race (see
 * {@code hits}).
 *
 * @param hits lookups that found the key (0 if the cache was built not to count lookups); exact
 *     for one thread, and may miss a few lookups that threads sharing a counter stripe make at
 *     the same moment (counted without atomic instructions, to keep the hit path cheap)
 * @param misses lookups that did not (likewise)
 * @param inserts inserts that stored an entry in the table
 * @param standaloneInserts inserts that returned a pinned handle not indexed by the table
 *     (duplicate key or table full); the entry is freed when its last handle is released
 * @param memoryLimitRejects inserts refused because the strict capacity limit could not be met,
 *     or a size limit was reached (see {@link Cache#insert})
 * @param admissionRejects inserts refused by the {@link dev.clockwork.cache.admission.Admission}
 *     policy, and (LRU) entries of the admission window evicted because they lost to the main
 *     region's oldest (also counted in {@code evictions})
 * @param evictions entries evicted to make room
 * @param evictionEffortExceeded eviction sweeps that gave up because too much of what they saw
 *     was pinned (see the eviction effort cap)
 * @param yields times a thread had to wait for another (a lock held by another thread); the
 *     lookup path never waits
 */
public record CacheStats(
        long hits,
        long misses,
        long inserts,
        long standaloneInserts,
        long memoryLimitRejects,
        long admissionRejects,
        long evictions,
        long evictionEffortExceeded,
        long yields) {

    /**
     * Hits divided by lookups, or 0 when there were none.
     *
     * @return {@code hits / (hits + misses)}, in {@code [0, 1]}; 0 when both are 0
     */
    public double hitRatio() {
        long lookups = hits + misses;
        return lookups == 0 ? 0.0 : (double) hits / lookups;
    }
}
