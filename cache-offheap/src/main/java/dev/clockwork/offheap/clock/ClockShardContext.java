package dev.clockwork.offheap.clock;

import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CloseGate;
import dev.clockwork.offheap.shard.ShardContext;

/**
 * What a HyperClock shard and its table are made with: the {@link ShardContext} every shard of
 * either family gets, and the two things only the clock needs beside it. The accessors below
 * read through to the shared context, so the clock's constructors name what they use.
 *
 * @param shard what every shard is made with (index, capacity, limits, the cache's context)
 * @param evictionEffortCap pinned entries a sweep may pass per entry it frees
 * @param gate what close shuts and drains before it frees: inserts, erases and freeing releases
 *     run inside it
 */
public record ClockShardContext(ShardContext shard, int evictionEffortCap, CloseGate gate) {
    int shardIndex() {
        return shard.shardIndex();
    }

    long capacity() {
        return shard.capacity();
    }

    long usageLimit() {
        return shard.usageLimit();
    }

    boolean strict() {
        return shard.strict();
    }

    boolean chargeMetadata() {
        return shard.chargeMetadata();
    }

    CacheContext context() {
        return shard.context();
    }

    /** The admission policy, or null for none ({@link Admission#ALWAYS}: nothing to ask). */
    Admission admission() {
        Admission admission = shard.admission();
        return admission == Admission.ALWAYS ? null : admission;
    }
}
