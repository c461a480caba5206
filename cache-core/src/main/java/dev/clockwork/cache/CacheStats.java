package dev.clockwork.cache;

import java.util.List;

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
 * @param kinds one {@link KindStats} per {@link EntryKind} declared on the cache's builder, in
 *     index order; empty when none was (and for caches that count no kinds)
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
        long yields,
        List<KindStats> kinds) {

    /** A snapshot of the counters in the canonical order, with the kinds' list copied. */
    public CacheStats {
        kinds = List.copyOf(kinds);
    }

    /**
     * A snapshot without kinds, for caches that count none.
     *
     * @param hits see {@link #hits()}
     * @param misses see {@link #misses()}
     * @param inserts see {@link #inserts()}
     * @param standaloneInserts see {@link #standaloneInserts()}
     * @param memoryLimitRejects see {@link #memoryLimitRejects()}
     * @param admissionRejects see {@link #admissionRejects()}
     * @param evictions see {@link #evictions()}
     * @param evictionEffortExceeded see {@link #evictionEffortExceeded()}
     * @param yields see {@link #yields()}
     */
    public CacheStats(long hits, long misses, long inserts, long standaloneInserts,
                      long memoryLimitRejects, long admissionRejects, long evictions,
                      long evictionEffortExceeded, long yields) {
        this(hits, misses, inserts, standaloneInserts, memoryLimitRejects, admissionRejects,
                evictions, evictionEffortExceeded, yields, List.of());
    }

    /**
     * The figures of one declared kind.
     *
     * @param kind a kind
     * @return its figures, or {@code null} if the cache was not built with it
     */
    public KindStats kind(EntryKind kind) {
        for (KindStats k : kinds) {
            if (k.kind().equals(kind)) {
                return k;
            }
        }
        return null;
    }

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
