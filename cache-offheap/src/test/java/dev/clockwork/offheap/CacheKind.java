package dev.clockwork.offheap;

/**
 * The three cache types, for tests that run on each: {@code @EnumSource(CacheKind.class)}.
 *
 * <p>Every cache is built through its public builder. {@link #builder} sets only the capacity
 * and, for the fixed table, the entry-charge estimate its slot count is sized from; everything
 * else (shards, metadata charge, strictness, hash seed, admission) is left to the caller, so a
 * test states what it depends on and the builders' defaults apply to the rest. Order and
 * ordinals are fixed (FIXED, AUTO, LRU): some tests seed their random draws with the ordinal.
 */
enum CacheKind {
    FIXED,
    AUTO,
    LRU;

    /**
     * A builder of this type for {@code capacity} bytes. {@code entryCharge} is the fixed table's
     * {@code estimatedEntryCharge}; the Auto table and LRU size themselves and ignore it.
     */
    CacheOptions<?> builder(long capacity, long entryCharge) {
        return switch (this) {
            case FIXED -> HyperClockCache.builder().capacity(capacity)
                    .estimatedEntryCharge(entryCharge);
            case AUTO -> HyperClockCache.builder().capacity(capacity);
            case LRU -> LruCache.builder().capacity(capacity);
        };
    }

    /** {@link #builder} with {@code 2^shardBits} shards and every other setting at its default. */
    ShardedCache build(long capacity, long entryCharge, int shardBits) {
        return builder(capacity, entryCharge).numShardBits(shardBits).build();
    }

    /**
     * A one-shard builder whose capacity counts entries of charge 1: metadata is not charged, the
     * fixed and Auto tables are sized for one-byte entries, and LRU has no high-priority pool (a
     * hit would otherwise be promoted into it, where a flood of new keys cannot reach it; a test
     * of admission must see what the policy keeps, not what the pool shields).
     */
    CacheOptions<?> unitCharged(long entries) {
        return switch (this) {
            case FIXED -> HyperClockCache.builder().capacity(entries).estimatedEntryCharge(1)
                    .numShardBits(0).chargeMetadata(false);
            case AUTO -> HyperClockCache.builder().capacity(entries).minAvgEntryCharge(1)
                    .numShardBits(0).chargeMetadata(false);
            case LRU -> LruCache.builder().capacity(entries).numShardBits(0).chargeMetadata(false)
                    .highPriPoolRatio(0);
        };
    }

    /** Whether this is a HyperClock cache (fixed or Auto table) rather than LRU. */
    boolean hyperClock() {
        return this != LRU;
    }
}
