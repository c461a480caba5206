package dev.clockwork.offheap;

import dev.clockwork.cache.Admission;
import dev.clockwork.cache.Args;

/**
 * Options every off-heap cache builder shares: capacity, sharding, the strict limit, metadata
 * charging, the hash seed, stats and admission. Each builder's {@code build()} validates them and
 * names the first bad one.
 *
 * @param <B> the concrete builder, returned by each setter for chaining
 */
public abstract class CacheOptions<B extends CacheOptions<B>> {
    long capacity = -1;
    int numShardBits = -1;
    boolean strictCapacityLimit;
    boolean chargeMetadata = true;
    long hashSeed = 0x5eed_c10c_c0de_5eedL;
    Admission admission = Admission.ALWAYS;
    boolean recordStats = true;

    CacheOptions() {
    }

    @SuppressWarnings("unchecked")
    final B self() {
        return (B) this;
    }

    /** The smallest shard worth its own lock or table when choosing shard bits by default. */
    abstract long minShardBytes();

    /** Capacity in bytes; required. */
    public B capacity(long bytes) {
        this.capacity = bytes;
        return self();
    }

    /**
     * log2 of the shard count, 0..16; -1 (default) picks, as RocksDB does, one more shard bit per
     * doubling of capacity over the minimum shard size (32 MiB for HyperClock, 512 KiB for LRU), up
     * to 64 shards.
     */
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
     * Whether each entry's 64-byte slot or record counts against capacity (default true, as in
     * RocksDB). A fixed table charges all its slots up front; an Auto table charges slots as it
     * grows, outside the strict limit's check, so growth can take usage a few slots past a strict
     * limit; an LRU cache adds 64 bytes to each entry's charge.
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

    /** Validates the options; subclasses add theirs. */
    void validate() {
        Args.requirePositive("capacity", capacity);
        Args.requireInRange("numShardBits", numShardBits, -1, 16);
    }

    final int shardCount() {
        return 1 << (numShardBits >= 0 ? numShardBits
                : NativeCache.defaultShardBits(capacity, minShardBytes()));
    }
}
