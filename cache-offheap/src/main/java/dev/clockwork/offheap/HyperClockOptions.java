package dev.clockwork.offheap;

import dev.clockwork.cache.Args;
import dev.clockwork.offheap.clock.ClockShard;
import dev.clockwork.offheap.memory.CacheMemory;

/**
 * Options shared by every HyperClock cache builder ({@link HyperClockCache#builder()},
 * {@link FixedHyperClockCache#builder()}, {@link AutoHyperClockCache#builder()}): the common
 * {@link CacheOptions} and the eviction effort cap.
 *
 * @param <B> the concrete builder, returned by each setter for chaining
 */
public abstract class HyperClockOptions<B extends HyperClockOptions<B>> extends CacheOptions<B> {
    /** RocksDB's default minimum shard size for HyperClockCache when choosing shard bits. */
    static final long MIN_SHARD_BYTES = 32L << 20;

    int evictionEffortCap = 30;

    HyperClockOptions() {
    }

    @Override
    long minShardBytes() {
        return MIN_SHARD_BYTES;
    }

    /**
     * How many pinned entries an eviction sweep may pass per entry it frees before it gives up
     * and lets usage exceed capacity (non-strict only); at least 1, default 30. Under heavy
     * pinning the cache may then hold about 1/cap more than its capacity instead of burning CPU.
     */
    public B evictionEffortCap(int cap) {
        this.evictionEffortCap = cap;
        return self();
    }

    @Override
    public void validate() {
        super.validate();
        Args.requireInRange("evictionEffortCap", evictionEffortCap, 1, Integer.MAX_VALUE);
    }

    @Override
    public abstract HyperClockCache build();

    /** Makes the table of one shard. */
    interface TableMaker {
        ClockShard make(int shard, long shardCapacity, long usageLimit, CacheMemory memory);
    }

    /** Makes every shard's table, freeing those already made if one fails. */
    final ClockShard[] makeTables(CacheMemory memory, TableMaker maker) {
        int shards = shardCount();
        long perShard = HyperClockCache.perShardCapacity(capacity, shards);
        long usageLimit = shardUsageLimit(shardBits());
        ClockShard[] tables = new ClockShard[shards];
        try {
            for (int i = 0; i < shards; i++) {
                tables[i] = maker.make(i, perShard, usageLimit, memory);
            }
        } catch (RuntimeException | Error e) {
            memory.closeArena();
            for (ClockShard table : tables) {
                if (table != null) {
                    table.freeAll();
                }
            }
            throw e;
        }
        return tables;
    }
}
