package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.offheap.clock.ClockShard;
import dev.clockwork.offheap.lru.LruShard;
import dev.clockwork.offheap.memory.ValueSlabs;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Test-only window on per-shard state, for the model-based tests in
 * {@code dev.clockwork.offheap.model}: they check capacity and usage shard by shard, because
 * that is where the caches enforce them (each shard gets {@code ceil(capacity / shards)}).
 *
 * <p>Reads only; never changes a cache. For a HyperClock cache a shard is one {@link ClockShard};
 * for an LRU cache one {@link LruShard} (reached through the cache's private array by reflection,
 * as LruCache exposes no per-shard view).
 */
public final class ModelAccess {
    private static final VarHandle LRU_SHARDS;

    static {
        try {
            LRU_SHARDS = MethodHandles.privateLookupIn(LruCache.class, MethodHandles.lookup())
                    .findVarHandle(LruCache.class, "shards", LruShard[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ModelAccess() {
    }

    /** Native bytes a HyperClock cache holds for standalone records (values not included). */
    public static long standaloneRecordBytes(Cache cache) {
        return ((HyperClockCache) cache).standaloneRecordBytes();
    }

    /**
     * Bytes of a cache's value slabs that hold no value (free blocks, chunk headers and tails);
     * walks the free lists, so only while no other thread uses the cache.
     */
    public static long idleValueBytes(Cache cache) {
        return ((ShardedCache) cache).context.values.idleBytes();
    }

    /** Native bytes of a cache's value slab chunks, values in them or not. */
    public static long valueChunkBytes(Cache cache) {
        return ((ShardedCache) cache).context.values.chunkBytes();
    }

    /**
     * Native bytes as if every value were malloc'd at exactly its length: the outstanding bytes
     * less the slabs' idle bytes and each visited value's block slack. With no other thread using
     * the cache, and every value visible to {@link Cache#forEachEntry} (no standalone entries).
     */
    public static long nativeBytesAtValueLengths(Cache cache) {
        long[] slack = new long[1];
        cache.forEachEntry((key0, key1, value, charge) -> slack[0] +=
                ValueSlabs.footprint((int) value.byteSize()) - value.byteSize(), 1024);
        return NativeMemory.outstandingBytes() - idleValueBytes(cache) - slack[0];
    }

    /** Per-shard readings of one moment. Arrays are indexed by shard. */
    public static final class ShardState {
        /** Bytes charged to the shard (entries, standalone entries, charged metadata). */
        public final long[] usage;
        /** The shard's capacity. */
        public final long[] capacity;
        /** HyperClock: table entries (visible or erased-but-pinned); LRU: entries in the index. */
        public final long[] occupancy;
        /** HyperClock: most entries the table accepts at its current size; LRU: unused. */
        public final long[] occupancyLimit;
        /** HyperClock: charged table metadata (slots in use x 64, or 0); LRU: 0. */
        public final long[] metadata;
        /** HyperClock: charge of standalone entries; LRU: 0. */
        public final long[] standaloneUsage;
        /** Bytes charged by pinned entries (HyperClock: slot metadata included, if charged). */
        public final long[] pinnedUsage;
        /** HyperClock: slots in use (Auto: grows); LRU: 0. */
        public final long[] slots;

        ShardState(int shards) {
            usage = new long[shards];
            capacity = new long[shards];
            occupancy = new long[shards];
            occupancyLimit = new long[shards];
            metadata = new long[shards];
            standaloneUsage = new long[shards];
            pinnedUsage = new long[shards];
            slots = new long[shards];
        }
    }

    public static int shards(Cache cache) {
        if (cache instanceof HyperClockCache hcc) {
            return hcc.tables.length;
        }
        return lruShards((LruCache) cache).length;
    }

    /**
     * The shard a key belongs to in a cache built with {@code hashSeed} (as the caches pick it).
     */
    public static int shardOf(Cache cache, long hashSeed, long key0, long key1) {
        long h0 = KeyHash.hash0(key0, key1, hashSeed);
        return (int) (h0 >>> 32) & (shards(cache) - 1);
    }

    public static ShardState read(Cache cache) {
        if (cache instanceof HyperClockCache hcc) {
            ShardState s = new ShardState(hcc.shards.length);
            for (int i = 0; i < hcc.shards.length; i++) {
                ClockShard t = hcc.shards[i];
                s.usage[i] = t.usage();
                s.capacity[i] = t.capacity();
                s.occupancy[i] = t.occupancy();
                s.occupancyLimit[i] = t.occupancyLimit();
                s.metadata[i] = t.metadataCharge();
                s.standaloneUsage[i] = t.standaloneUsage();
                s.pinnedUsage[i] = t.tablePinnedUsage();
                s.slots[i] = t.usedSlots();
            }
            return s;
        }
        LruCache lru = (LruCache) cache;
        LruShard[] shards = lruShards(lru);
        ShardState s = new ShardState(shards.length);
        long perShard = ShardedCache.perShardCapacity(lru.capacity(), shards.length);
        for (int i = 0; i < shards.length; i++) {
            s.usage[i] = shards[i].usage();
            s.capacity[i] = perShard;
            s.occupancy[i] = shards[i].entryCount();
            s.pinnedUsage[i] = shards[i].pinnedUsage();
        }
        return s;
    }

    /** One LRU shard's usage, read just before an operation whose outcome depends on it. */
    public static long lruShardUsage(Cache cache, int shard) {
        return lruShards((LruCache) cache)[shard].usage();
    }

    /** The capacity each shard gets: the total split evenly, rounded up. */
    public static long perShardCapacity(long capacity, int shards) {
        return ShardedCache.perShardCapacity(capacity, shards);
    }

    private static LruShard[] lruShards(LruCache cache) {
        return (LruShard[]) LRU_SHARDS.get(cache);
    }
}
