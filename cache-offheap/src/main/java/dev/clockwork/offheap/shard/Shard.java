package dev.clockwork.offheap.shard;

import dev.clockwork.offheap.events.ShardGauges;

/**
 * One shard of a sharded cache, as the cache sees it across shards: its accounting, its limits
 * and its end. A key's hash picks its shard; each shard has its own share of the capacity and
 * evicts on its own (RocksDB's {@code CacheShardBase}). The per-key operations are each cache
 * type's own, typed, so that the hot paths call them without an interface in between.
 */
public interface Shard extends ShardGauges {
    /** Bytes charged to the shard: entries and, where charged, their metadata. */
    long usage();

    /** Bytes charged by entries someone holds a reference on. */
    long pinnedUsage();

    /** Entries stored in the shard. */
    long entryCount();

    /** The shard's share of the capacity, as last set. */
    long capacity();

    /** @param capacity the shard's share, at most its usage limit ({@link ShardSizing}) */
    void setCapacity(long capacity);

    void setStrict(boolean strict);

    boolean strict();

    /** Frees every native byte the shard holds; once, after the cache's arena is closed. */
    void freeAll();
}
