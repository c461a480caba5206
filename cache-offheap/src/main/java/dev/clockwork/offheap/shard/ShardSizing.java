package dev.clockwork.offheap.shard;

import dev.clockwork.offheap.entry.EntryStamp;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * How a cache is split into shards, and the loops over them: RocksDB's {@code ShardedCache}
 * ({@code ForEachShard}, {@code SumOverShards}) without the templates.
 */
public final class ShardSizing {
    /** RocksDB's most default shard bits: 64 shards. */
    private static final int MAX_DEFAULT_SHARD_BITS = 6;

    private ShardSizing() {
    }

    /**
     * Most slots (HyperClock) or records (LRU) a shard may have when there are
     * {@code 2^shardBits} shards, as far as handles are concerned: a handle names a slot or
     * record and its shard in {@link EntryStamp#LOCATION_BITS} bits. Each cache type may have a
     * lower limit of its own.
     *
     * @param shardBits log2 of the shard count, 0 to 16
     * @return {@code 2^(31 - shardBits)}
     */
    public static long maxLocationsPerShard(int shardBits) {
        return 1L << (EntryStamp.LOCATION_BITS - shardBits);
    }

    /**
     * Capacity of each of {@code shards} shards (a power of two): the total split evenly, rounded
     * up, but at most {@code shardUsageLimit}. Exact for every positive {@code long}: the
     * rounding adds after dividing, so it cannot overflow.
     */
    public static long perShardCapacity(long capacity, int shards, long shardUsageLimit) {
        long share = capacity / shards + (capacity % shards == 0 ? 0 : 1);
        return Math.min(share, shardUsageLimit);
    }

    /**
     * RocksDB's default: one more shard bit per doubling of capacity over {@code minShardSize},
     * at most 6 bits (64 shards).
     */
    public static int defaultShardBits(long capacity, long minShardSize) {
        int bits = 0;
        long shards = capacity / minShardSize;
        while ((shards >>= 1) != 0) {
            if (++bits >= MAX_DEFAULT_SHARD_BITS) {
                return bits;
            }
        }
        return bits;
    }

    /** Sum of {@code value} over the shards; each read on its own, so not atomic across them. */
    public static <S> long sumOverShards(S[] shards, ToLongFunction<? super S> value) {
        long sum = 0;
        for (S shard : shards) {
            sum += value.applyAsLong(shard);
        }
        return sum;
    }

    /** Largest {@code value} over the shards. */
    public static <S> long maxOverShards(S[] shards, ToLongFunction<? super S> value) {
        long max = Long.MIN_VALUE;
        for (S shard : shards) {
            max = Math.max(max, value.applyAsLong(shard));
        }
        return max;
    }

    public static <S> void forEachShard(S[] shards, Consumer<? super S> action) {
        for (S shard : shards) {
            action.accept(shard);
        }
    }
}
