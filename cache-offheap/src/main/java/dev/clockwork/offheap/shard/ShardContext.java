package dev.clockwork.offheap.shard;

import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.context.CacheContext;

/**
 * What every shard of a cache is made with, whichever the family: its place among the shards,
 * its share of the capacity and of the usage limit, the limits' switches, the cache's context and
 * its admission policy. What only one family needs travels beside it as a small record of that
 * family's own ({@code LruShard.Options}: the pool ratios and the record limit; the HyperClock
 * shards' eviction effort cap and close gate), so that neither family carries fields it ignores,
 * and a shard's constructor takes two named bundles instead of a row of positional numbers.
 *
 * @param shardIndex the shard's number, 0 to {@code 2^shardBits - 1} (seeds its stamps, and a
 *     handle's shard bits)
 * @param shardBits log2 of the cache's shard count
 * @param capacity the shard's share of the capacity, at most {@code usageLimit}
 * @param usageLimit the most the shard's usage may reach (its share of the cache's usage limit)
 * @param strict whether an insert that cannot make room fails
 * @param chargeMetadata whether slots or records count against the capacity
 * @param context the cache's arena, values, counters, events and callback guard
 * @param admission asked before each victim an insert's eviction takes;
 *     {@link Admission#ALWAYS} for none
 */
public record ShardContext(int shardIndex, int shardBits, long capacity, long usageLimit,
                           boolean strict, boolean chargeMetadata, CacheContext context,
                           Admission admission) {
}
