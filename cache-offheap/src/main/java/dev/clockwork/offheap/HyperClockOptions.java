package dev.clockwork.offheap;

import dev.clockwork.cache.Admission;
import dev.clockwork.cache.Args;

/**
 * Options shared by every HyperClock cache builder ({@link HyperClockCache#builder()},
 * {@link FixedHyperClockCache#builder()}, {@link AutoHyperClockCache#builder()}). Each builder's
 * {@code build()} validates them all and names the first bad one.
 *
 * @param <B> the concrete builder, returned by each setter for chaining
 */
public abstract class HyperClockOptions<B extends HyperClockOptions<B>> {
    /** RocksDB's default minimum shard size for HyperClockCache when choosing shard bits. */
    static final long MIN_SHARD_BYTES = 32L << 20;

    long capacity = -1;
    int numShardBits = -1;
    boolean strictCapacityLimit;
    int evictionEffortCap = 30;
    boolean chargeMetadata = true;
    long hashSeed = 0x5eed_c10c_c0de_5eedL;
    Admission admission = Admission.ALWAYS;
    boolean recordStats = true;

    HyperClockOptions() {
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** Capacity in bytes; required. */
    public B capacity(long bytes) {
        this.capacity = bytes;
        return self();
    }

    /** log2 of the shard count, 0..16; -1 (default) picks one shard per 32 MiB, up to 64. */
    public B numShardBits(int bits) {
        this.numShardBits = bits;
        return self();
    }

    /** Whether an insert that would exceed capacity (with nothing left to evict) fails. */
    public B strictCapacityLimit(boolean strict) {
        this.strictCapacityLimit = strict;
        return self();
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

    /**
     * Whether the 64-byte slots count against capacity (default true, as in RocksDB). A fixed
     * table charges all its slots up front; an Auto table charges slots as it grows, outside the
     * strict limit's check, so growth can take usage a few slots past a strict limit.
     */
    public B chargeMetadata(boolean charge) {
        this.chargeMetadata = charge;
        return self();
    }

    /** Seed of the key hash; vary it across hosts to decorrelate their tables. */
    public B hashSeed(long seed) {
        this.hashSeed = seed;
        return self();
    }

    /**
     * Whether lookups count hits and misses in {@code stats()} (default true). Off saves a
     * striped counter increment per lookup; the other counters are always kept.
     */
    public B recordStats(boolean record) {
        this.recordStats = record;
        return self();
    }

    /** Policy consulted before each insert; default admits everything. */
    public B admission(Admission admission) {
        this.admission = Args.requireNonNull("admission", admission);
        return self();
    }

    /** Validates the shared options. */
    final void validate() {
        Args.requirePositive("capacity", capacity);
        Args.requireInRange("numShardBits", numShardBits, -1, 16);
        Args.requireInRange("evictionEffortCap", evictionEffortCap, 1, Integer.MAX_VALUE);
    }

    final int shardCount() {
        return 1 << (numShardBits >= 0 ? numShardBits
                : HyperClockCache.defaultShardBits(capacity, MIN_SHARD_BYTES));
    }

    /** Makes the table of one shard. */
    interface TableMaker {
        ClockTable make(int shard, long shardCapacity, CacheMemory memory);
    }

    /** Makes every shard's table, freeing those already made if one fails. */
    final ClockTable[] makeTables(CacheMemory memory, TableMaker maker) {
        int shards = shardCount();
        long perShard = HyperClockCache.perShardCapacity(capacity, shards);
        ClockTable[] tables = new ClockTable[shards];
        try {
            for (int i = 0; i < shards; i++) {
                tables[i] = maker.make(i, perShard, memory);
            }
        } catch (RuntimeException | Error e) {
            memory.closeArena();
            for (ClockTable table : tables) {
                if (table != null) {
                    table.freeAll();
                }
            }
            throw e;
        }
        return tables;
    }
}
