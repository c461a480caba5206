package dev.clockwork.cli.soak;

import static dev.clockwork.cli.common.FlagLayout.at;

import dev.clockwork.cli.common.FlagLayout;
import dev.clockwork.cli.common.SizeChecks;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Where {@code soak} shows the flags it shares with {@code bench}, with the defaults of a
 * minute's run of a mixed, checked workload, and what each flag means in that workload.
 */
public final class SoakFlagLayout implements IModelTransformer {
    static final FlagLayout LAYOUT = new FlagLayout(
        at("-cache_type", 1, null,
                "Cache implementation: fixed_hyper_clock_cache, hyper_clock_cache (="
                    + " auto), auto_hyper_clock_cache, lru_cache. Default: ${DEFAULT-VALUE}."),
        at("-threads", 3, "4",
                "Worker threads operating on the cache at once, at most " + SoakOptions.MAX_THREADS
                    + ". Each allocates up front two native buffers and a heap array of the"
                    + " largest value size, and a ring of its pinned handles (heap); all of them"
                    + " must fit in this machine's memory and " + SizeChecks.HEAP_PERCENT + "%% of"
                    + " the JVM's maximum heap. Default: ${DEFAULT-VALUE}."),
        at("-cache_size", 4, "67108864",
                "Cache capacity in bytes (the middle of the -vary_capacity_ratio range),"
                    + " up to 9223372036854775807; with -populate_cache, at most this machine's"
                    + " memory; with fixed_hyper_clock_cache, whose table is allocated up front, a"
                    + " table that fits this machine's memory. Default: ${DEFAULT-VALUE}"
                    + " (64 MiB)."),
        at("-num_shard_bits", 8),
        at("-eviction_effort_cap", 9, null,
                "HyperClock: eviction effort cap. Default: ${DEFAULT-VALUE}."),
        at("-resident_ratio", 10, null,
                "Fraction of the key space that fits in the cache; max key ="
                    + " cache_size / resident_ratio / mean value size. Default: ${DEFAULT-VALUE}."),
        at("-skew", 11),
        at("-pinned_ratio", 12, "0.1",
                "Keep about this share of the cache pinned: each thread holds its last"
                    + " handles in a FIFO, checks each value again just before releasing it."
                    + " Default: ${DEFAULT-VALUE}."),
        at("-lookup_insert_percent", 13, "55",
                "%% of ops: look up (check the value on a hit, pin it); on a miss"
                    + " insertPinned, check and pin. Default: ${DEFAULT-VALUE}."),
        at("-insert_percent", 14, "5",
                "%% of ops: insertPinned, check and pin. Default: ${DEFAULT-VALUE}."),
        at("-blind_insert_percent", 15, "10",
                "%% of ops: insert without a handle. Default: ${DEFAULT-VALUE}."),
        at("-lookup_percent", 16, "25",
                "%% of ops: look up only (check and pin on a hit). Default:"
                    + " ${DEFAULT-VALUE}."),
        at("-erase_percent", 17, "5",
                "%% of ops: erase. The five percentages must add to 100. Default:"
                    + " ${DEFAULT-VALUE}."),
        at("-vary_capacity_ratio", 21, "0.1",
                "If > 0: the cache starts (and is populated) at (1 + ratio) * cache_size,"
                    + " and every -vary_capacity_interval the capacity is set to a random size in"
                    + " [1 - ratio, 1 + ratio] * cache_size. Default: ${DEFAULT-VALUE}."),
        at("-populate_cache", 28, null,
                "Fill the cache (key numbers 0, 1, 2, ...) before the workload starts."
                    + " Default: ${DEFAULT-VALUE}."),
        at("-seed", 29),
        at("-high_pri_pool_ratio", 30, null,
                "lru_cache only: share of capacity for the high-priority pool. Default:"
                    + " ${DEFAULT-VALUE}."),
        at("-low_pri_pool_ratio", 31, null,
                "lru_cache only: share of capacity for the low-priority pool. Default:"
                    + " ${DEFAULT-VALUE}."));

    @Override
    public CommandSpec transform(CommandSpec spec) {
        return LAYOUT.applyTo(spec);
    }
}
