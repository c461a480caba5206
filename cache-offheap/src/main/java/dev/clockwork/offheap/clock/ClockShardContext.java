package dev.clockwork.offheap.clock;

import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CloseGate;
import dev.clockwork.cache.admission.Admission;

/**
 * What every shard of one HyperClock cache is made with, whichever its index.
 *
 * @param shardIndex the shard's number (seeds its slots' stamps)
 * @param capacity the shard's share of the capacity, at most {@code usageLimit}
 * @param usageLimit the most the shard's usage may reach (its share of the usage limit)
 * @param strict whether an insert that cannot make room fails
 * @param evictionEffortCap pinned entries a sweep may pass per entry it frees
 * @param chargeMetadata whether slots count against the capacity
 * @param context the cache's arena and counters
 * @param gate what close shuts and drains before it frees: inserts, erases and freeing releases
 *     run inside it
 * @param admission asked before each victim an insert's eviction takes, or null for none
 */
public record ClockShardContext(int shardIndex, long capacity, long usageLimit, boolean strict,
                                int evictionEffortCap, boolean chargeMetadata, CacheContext context,
                                CloseGate gate, Admission admission) {
}
