package dev.clockwork.offheap;

import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.shard.Shard;
import dev.clockwork.offheap.stats.KindCounts;

/**
 * What a storage engine asks of its block cache beyond the index's lookup, insert and erase,
 * built on them for every cache type alike: each operation is a class of its own, and this
 * layer only holds it and hands calls to it.
 *
 * <p>Between {@link ShardedCache} (the index, its handles and close) and the cache types, so
 * that the operations see the index's package-private hooks and every type gets them the same.
 */
public abstract class EngineCache extends ShardedCache {

    EngineCache(CacheContext context, Shard[] shards, long capacity, long hashSeed,
                Admission admission) {
        super(context, shards, capacity, hashSeed, admission);
    }

    /**
     * A lookup counted under the kind it names as well as in the totals ({@link KindCounts}:
     * two adds to this thread's own stripes, no atomic instruction). {@link EntryKind#DEFAULT}
     * is counted in the totals only.
     */
    @Override
    public final long lookup(long key0, long key1, EntryKind kind) {
        Args.requireNonNull("kind", kind);
        KindCounts kinds = stats.kinds;
        kinds.check(kind);
        long handle = lookup(key0, key1);
        if (stats.recordLookups) {
            kinds.lookedUp(kind, handle != MISS);
        }
        return handle;
    }
}
