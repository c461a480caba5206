package dev.clockwork.offheap.shard;

import dev.clockwork.offheap.context.CallbackGuard;
import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.entry.RecordSlab;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * How a cache is split into shards, and the loops over them: RocksDB's {@code ShardedCache}
 * ({@code ForEachShard}, {@code SumOverShards}) without the templates.
 */
public final class ShardSizing {
    /** RocksDB's most default shard bits: 64 shards. */
    private static final int MAX_DEFAULT_SHARD_BITS = 6;
    /**
     * A handle names a slot or record and its shard in this many bits, 31: the rest of its 64
     * hold the entry's 31-bit generation and a kind bit ({@link EntryStamp}).
     */
    public static final int MAX_LOCATION_BITS = EntryStamp.LOCATION_BITS;

    private ShardSizing() {
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

    /**
     * Most slots (HyperClock) or records (LRU) a shard may have when there are
     * {@code 2^shardBits} shards, as far as handles are concerned (see
     * {@link #MAX_LOCATION_BITS}); each cache type may have a lower limit of its own.
     *
     * @param shardBits log2 of the shard count, 0 to 16
     * @return {@code 2^(31 - shardBits)}
     */
    public static long maxLocationsPerShard(int shardBits) {
        return 1L << (MAX_LOCATION_BITS - shardBits);
    }

    /**
     * Most chunks the record slab of one of {@code 2^shardBits} shards may carve: its indexes
     * stay below 2^31 and below {@link #maxLocationsPerShard}.
     */
    public static int maxRecordChunks(int shardBits) {
        return (int) (Math.min(1L << 31, maxLocationsPerShard(shardBits))
                / RecordSlab.RECORDS_PER_CHUNK);
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

    /**
     * Gives every shard its share of a new capacity. A shard that throws (an LRU shard's policy,
     * asked for its window) took the capacity anyway; so do the others, and the caller then gets
     * the first exception, with the others suppressed in it.
     */
    public static void setCapacity(Shard[] shards, long perShard) {
        Throwable failure = null;
        for (Shard shard : shards) {
            try {
                shard.setCapacity(perShard);
            } catch (Throwable t) {
                if (failure == null) {
                    failure = t;
                } else {
                    failure.addSuppressed(t);
                }
            }
        }
        if (failure != null) {
            throw CallbackGuard.rethrow(failure);
        }
    }

    public static <S> void forEachShard(S[] shards, Consumer<? super S> action) {
        for (S shard : shards) {
            action.accept(shard);
        }
    }
}
