package dev.clockwork.offheap;

import dev.clockwork.cache.Admission;
import dev.clockwork.cache.Args;

/**
 * HyperClockCache over fixed-size open-addressing tables ({@link FixedClockTable}), sized once
 * from the capacity and an estimate of the average entry charge. The estimate matters: too high
 * and the table runs out of slots before the capacity is used (inserts then evict to free
 * slots); too low and slots are wasted (64 bytes each).
 *
 * <pre>{@code
 * try (var cache = FixedHyperClockCache.builder()
 *         .capacity(1L << 30)
 *         .estimatedEntryCharge(8192)
 *         .build()) {
 *     ...
 * }
 * }</pre>
 */
public final class FixedHyperClockCache extends HyperClockCache {
    /** RocksDB's default minimum shard size for HyperClockCache when choosing shard bits. */
    static final long MIN_SHARD_BYTES = 32L << 20;

    private FixedHyperClockCache(CacheMemory memory, ClockTable[] tables, long capacity,
                                 long hashSeed, Admission admission) {
        super(memory, tables, capacity, hashSeed, admission);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Most entries the tables accept before inserts must evict for a slot. */
    public long occupancyLimit() {
        long sum = 0;
        for (ClockTable table : tables) {
            sum += ((FixedClockTable) table).occupancyLimit();
        }
        return sum;
    }

    /** Options of a {@link FixedHyperClockCache}; {@link #build()} validates them all. */
    public static final class Builder {
        private long capacity = -1;
        private long estimatedEntryCharge = -1;
        private int numShardBits = -1;
        private boolean strictCapacityLimit;
        private int evictionEffortCap = 30;
        private boolean chargeMetadata = true;
        private long hashSeed = 0x5eed_c10c_c0de_5eedL;
        private Admission admission = Admission.ALWAYS;
        private boolean recordStats = true;

        private Builder() {
        }

        /** Capacity in bytes; required. */
        public Builder capacity(long bytes) {
            this.capacity = bytes;
            return this;
        }

        /** Expected average charge per entry, used to size the tables; required. */
        public Builder estimatedEntryCharge(long bytes) {
            this.estimatedEntryCharge = bytes;
            return this;
        }

        /** log2 of the shard count, 0..16; -1 (default) picks one shard per 32 MiB, up to 64. */
        public Builder numShardBits(int bits) {
            this.numShardBits = bits;
            return this;
        }

        public Builder strictCapacityLimit(boolean strict) {
            this.strictCapacityLimit = strict;
            return this;
        }

        /**
         * How many pinned entries an eviction sweep may pass per entry it frees before it gives up
         * and lets usage exceed capacity (non-strict only); at least 1, default 30.
         */
        public Builder evictionEffortCap(int cap) {
            this.evictionEffortCap = cap;
            return this;
        }

        /** Whether the 64-byte slots count against capacity (default true, as in RocksDB). */
        public Builder chargeMetadata(boolean charge) {
            this.chargeMetadata = charge;
            return this;
        }

        /** Seed of the key hash; vary it across hosts to decorrelate their tables. */
        public Builder hashSeed(long seed) {
            this.hashSeed = seed;
            return this;
        }

        /**
         * Whether lookups count hits and misses in {@link #stats()} (default true). Off saves a
         * striped counter increment per lookup; the other counters are always kept.
         */
        public Builder recordStats(boolean record) {
            this.recordStats = record;
            return this;
        }

        /** Policy consulted before each insert; default admits everything. */
        public Builder admission(Admission admission) {
            this.admission = Args.requireNonNull("admission", admission);
            return this;
        }

        public FixedHyperClockCache build() {
            Args.requirePositive("capacity", capacity);
            Args.requirePositive("estimatedEntryCharge", estimatedEntryCharge);
            Args.requireInRange("numShardBits", numShardBits, -1, 16);
            Args.requireInRange("evictionEffortCap", evictionEffortCap, 1, Integer.MAX_VALUE);
            int shardBits = numShardBits >= 0 ? numShardBits
                    : defaultShardBits(capacity, MIN_SHARD_BYTES);
            int shards = 1 << shardBits;
            long perShard = perShardCapacity(capacity, shards);
            int lengthBits = FixedClockTable.lengthBits(perShard, estimatedEntryCharge,
                    chargeMetadata);
            CacheMemory memory = new CacheMemory(recordStats);
            ClockTable[] tables = new ClockTable[shards];
            try {
                for (int i = 0; i < shards; i++) {
                    tables[i] = new FixedClockTable(lengthBits, i, perShard, strictCapacityLimit,
                            evictionEffortCap, chargeMetadata, memory);
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
            return new FixedHyperClockCache(memory, tables, capacity, hashSeed, admission);
        }
    }
}
