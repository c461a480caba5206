package dev.clockwork.cli.common;

import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.GFlags;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The flags of the cache a run builds, shared by {@code bench} and {@code soak} as a picocli
 * mixin: its type, capacity (and how far the capacity wobbles), shards, eviction effort and LRU
 * pools. Each flag is declared and checked here once; where the commands differ (the default,
 * the help text, the place in the help) the command's {@link FlagLayout} says so.
 */
public final class CacheFlags {
    @Option(names = "-cache_type", paramLabel = "<name>", defaultValue = CacheFactory.HYPER_CLOCK)
    public String cacheType;

    @Option(names = "-cache_size", paramLabel = "<uint64>", converter = GFlags.UInt64.class)
    public long cacheSize;

    @Option(names = "-num_shard_bits", paramLabel = "<int32>", defaultValue = "-1",
            converter = GFlags.Int32.class,
            description = "log2 of the number of shards, -1..16; -1 = chosen by the cache."
                    + " Default: ${DEFAULT-VALUE}.")
    public int numShardBits;

    @Option(names = "-eviction_effort_cap", paramLabel = "<int32>", defaultValue = "30",
            converter = GFlags.Int32.class)
    public int evictionEffortCap;

    @Option(names = "-vary_capacity_ratio", paramLabel = "<double>",
            converter = GFlags.Double.class)
    public double varyCapacityRatio;

    @Option(names = "-high_pri_pool_ratio", paramLabel = "<double>", defaultValue = "0.5",
            converter = GFlags.Double.class)
    public double highPriPoolRatio;

    @Option(names = "-low_pri_pool_ratio", paramLabel = "<double>", defaultValue = "0.0",
            converter = GFlags.Double.class)
    public double lowPriPoolRatio;

    /** A copy of every flag's value (a run derived from another, e.g. bench's warm-up). */
    public CacheFlags copy() {
        CacheFlags c = new CacheFlags();
        c.cacheType = cacheType;
        c.cacheSize = cacheSize;
        c.numShardBits = numShardBits;
        c.evictionEffortCap = evictionEffortCap;
        c.varyCapacityRatio = varyCapacityRatio;
        c.highPriPoolRatio = highPriPoolRatio;
        c.lowPriPoolRatio = lowPriPoolRatio;
        return c;
    }

    /** Why -cache_size cannot be used, or null. */
    public String sizeProblem() {
        return cacheSize <= 0 ? "-cache_size must be > 0" : null;
    }

    /** Why -vary_capacity_ratio cannot be used, or null. */
    public String varyCapacityProblem() {
        if (!(varyCapacityRatio >= 0 && varyCapacityRatio < 1)) {
            return "-vary_capacity_ratio must be in [0, 1), was " + varyCapacityRatio;
        }
        return null;
    }

    /** Why -num_shard_bits cannot be used, or null. */
    public String shardBitsProblem() {
        return SizeChecks.shardBits(numShardBits);
    }

    /** Why the LRU pool ratios cannot be used together, or null. */
    public String poolProblem() {
        return SizeChecks.poolRatios(highPriPoolRatio, lowPriPoolRatio);
    }

    /** The smallest capacity -vary_capacity_ratio sets (-cache_size with no wobble). */
    public long minCapacity() {
        return (long) (cacheSize * (1.0 - varyCapacityRatio));
    }

    /**
     * The cache to build at {@code capacity}, for a run with the effective (uint32, non-zero)
     * {@code seed}: its hash seed is {@link CacheFactory#hashSeedFor}{@code (seed)}, as in
     * cache_bench.
     */
    public CacheFactory.Settings settings(long capacity, long valueBytes, long valueBytesEstimate,
                                          long seed, String admission) {
        return new CacheFactory.Settings(cacheType, capacity, valueBytes, valueBytesEstimate,
                numShardBits, false, evictionEffortCap, CacheFactory.hashSeedFor(seed),
                highPriPoolRatio, lowPriPoolRatio, admission);
    }

    /**
     * The flag behind each cache builder argument, for its refusals ({@link CacheFactory#check}):
     * the capacity's and the entry charges' as the command words them ({@code minAvgEntryCharge}
     * null where the command has no flag for it), the rest these flags.
     */
    public static Map<String, String> builderFlags(String capacity, String estimatedEntryCharge,
                                                   String minAvgEntryCharge) {
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put("capacity", capacity);
        flags.put("numShardBits", "-num_shard_bits");
        flags.put("estimatedEntryCharge", estimatedEntryCharge);
        if (minAvgEntryCharge != null) {
            flags.put("minAvgEntryCharge", minAvgEntryCharge);
        }
        flags.put("evictionEffortCap", "-eviction_effort_cap");
        flags.put("highPriPoolRatio", "-high_pri_pool_ratio");
        flags.put("lowPriPoolRatio", "-low_pri_pool_ratio");
        return Map.copyOf(flags);
    }
}
