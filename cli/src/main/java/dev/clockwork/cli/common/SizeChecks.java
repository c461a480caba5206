package dev.clockwork.cli.common;

import java.util.Map;
import java.util.OptionalLong;

import dev.clockwork.cli.CacheFactory;
import dev.clockwork.offheap.CacheOptions;
import dev.clockwork.cli.workload.ProcessStats;

/**
 * Checks of the flags both gflags commands ({@code bench}, {@code soak}) take, made
 * where the flags enter so that a refusal names the flag and nothing runs: each returns null
 * when the value is usable, else a message for {@link FlagCommand#refuse}.
 */
public final class SizeChecks {
    private SizeChecks() {
    }

    /**
     * Largest {@code -skew}: every operation draws skew + 1 random numbers for its key, so the
     * per-operation work grows with it; at 1,000 the keys already crowd into the lowest 0.1% of
     * the key space.
     */
    public static final long MAX_SKEW = 1000;

    public static String shardBits(int numShardBits) {
        if (numShardBits < -1 || numShardBits > CacheOptions.MAX_SHARD_BITS) {
            return "-num_shard_bits must be in [-1, " + CacheOptions.MAX_SHARD_BITS + "], was "
                    + numShardBits;
        }
        return null;
    }

    public static String skew(long skew) {
        if (skew > MAX_SKEW) {
            return "-skew=" + skew + " is more than " + MAX_SKEW + " (each operation draws -skew"
                    + " + 1 random numbers for its key)";
        }
        return null;
    }

    /**
     * Population fills the cache before the run, inserting one value after another until it is
     * full or the key space runs out: refused when that is more than this machine's memory,
     * where the loop would run until memory is exhausted.
     *
     * @param populateBytes what population would insert (at most the cache's size)
     */
    public static String populationFits(boolean populate, long populateBytes, String sizeFlags) {
        OptionalLong memory = ProcessStats.physicalMemoryBytes();
        if (populate && memory.isPresent() && populateBytes > memory.getAsLong()) {
            return "-populate_cache fills the cache with about " + populateBytes + " bytes ("
                    + sizeFlags + "), more than this machine's memory, " + memory.getAsLong()
                    + " bytes: lower -cache_size, or pass -populate_cache=false";
        }
        return null;
    }

    /**
     * Whether the cache can be built ({@link CacheFactory#check}): the builder's refusal, its
     * arguments named by the flags in {@code builderFlags}.
     */
    public static String cache(CacheFactory.Settings settings, Map<String, String> builderFlags) {
        return CacheFactory.check(settings, builderFlags);
    }

    /** The LRU pool ratios, each in [0, 1] and together at most 1. */
    public static String poolRatios(double highPriPoolRatio, double lowPriPoolRatio) {
        if (!(highPriPoolRatio >= 0 && highPriPoolRatio <= 1)) {
            return "-high_pri_pool_ratio must be in [0, 1], was " + highPriPoolRatio;
        }
        if (!(lowPriPoolRatio >= 0 && lowPriPoolRatio <= 1)) {
            return "-low_pri_pool_ratio must be in [0, 1], was " + lowPriPoolRatio;
        }
        if (highPriPoolRatio + lowPriPoolRatio > 1) {
            return "-high_pri_pool_ratio + -low_pri_pool_ratio must not exceed 1, was "
                    + (highPriPoolRatio + lowPriPoolRatio);
        }
        return null;
    }

    /** The share of the key space that fits, and the share of the cache kept pinned. */
    public static String residentAndPinnedRatios(double residentRatio, double pinnedRatio) {
        if (!(residentRatio > 0) || Double.isInfinite(residentRatio)) {
            return "-resident_ratio must be a finite number > 0, was " + residentRatio;
        }
        if (!(pinnedRatio >= 0) || Double.isInfinite(pinnedRatio)) {
            return "-pinned_ratio must be a finite number >= 0, was " + pinnedRatio;
        }
        return null;
    }
}
