package dev.clockwork.cli.bench;

import static dev.clockwork.cli.common.FlagLayout.at;

import dev.clockwork.cli.common.CacheFlags;
import dev.clockwork.cli.common.FlagLayout;
import dev.clockwork.cli.common.OpMixFlags;
import dev.clockwork.cli.common.SizeChecks;
import dev.clockwork.cli.common.WorkloadFlags;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Where {@code bench} shows the flags it shares with {@code soak} ({@link CacheFlags},
 * {@link WorkloadFlags}, {@link OpMixFlags}): among its own in cache_bench's order, with
 * cache_bench's defaults and words.
 */
public final class BenchFlagLayout implements IModelTransformer {
    static final FlagLayout LAYOUT = new FlagLayout(
        at("-cache_type", 1, null,
                "Cache implementation: fixed_hyper_clock_cache, hyper_clock_cache (= auto"
                    + " in RocksDB, its default), auto_hyper_clock_cache, lru_cache; or a peer"
                    + " a storage engine would use instead: caffeine (Cache<Key, byte[]> weighed"
                    + " in bytes, on the heap: size -Xmx for it), ohc_linked, ohc_chunked (OHC,"
                    + " off heap, byte[] values). Peers pin nothing: a hit reads the value when"
                    + " it is looked up (Caffeine's stored array, OHC's copy), an insert is a put."
                    + " Default: ${DEFAULT-VALUE}."),
        at("-threads", 2, "16",
                "Worker threads operating on the cache at once, at most " + BenchOptions.MAX_THREADS
                    + ". Each allocates up front a value buffer (native) and a ring of its pinned"
                    + " handles (heap); all of them must fit in this machine's memory and "
                    + SizeChecks.HEAP_PERCENT + "%% of the JVM's maximum heap. Default:"
                    + " ${DEFAULT-VALUE}."),
        at("-cache_size", 3, "1073741824",
                "Cache capacity in bytes, up to 9223372036854775807 (a cache that never"
                    + " evicts; the caches cap usage at 2^56). With -populate_cache, at most this"
                    + " machine's memory; with fixed_hyper_clock_cache, whose table is allocated"
                    + " up front, a table that fits this machine's memory. Default:"
                    + " ${DEFAULT-VALUE} (1 GiB)."),
        at("-num_shard_bits", 4),
        at("-eviction_effort_cap", 5, null,
                "HyperClock: how much eviction work to spend on pinned entries before"
                    + " letting usage exceed capacity. Default: ${DEFAULT-VALUE}."),
        at("-resident_ratio", 6, null,
                "Fraction of the key space that fits in the cache; max key ="
                    + " cache_size / resident_ratio / value_bytes. Default: ${DEFAULT-VALUE}."),
        at("-skew", 11),
        at("-populate_cache", 12, null,
                "Fill the cache before the timed phase. Default: ${DEFAULT-VALUE}."),
        at("-pinned_ratio", 13, "0.25",
                "Keep about this share of the cache pinned: each thread holds its last"
                    + " handles in a FIFO. Default: ${DEFAULT-VALUE}."),
        at("-vary_capacity_ratio", 14, "0.0",
                "If > 0, thread 0 resets the capacity to a random size between"
                    + " (1 - ratio) and 1 times cache_size every ops_per_thread/100 ops;"
                    + " -value_bytes must fit the smallest. Default: ${DEFAULT-VALUE}."),
        at("-lookup_insert_percent", 15, "82",
                "%% of ops: look up; on a miss insert and keep the handle. Default:"
                    + " ${DEFAULT-VALUE}."),
        at("-insert_percent", 16, "2",
                "%% of ops: insert and keep the handle. Default: ${DEFAULT-VALUE}."),
        at("-blind_insert_percent", 17, "5",
                "%% of ops: insert without keeping a handle. Default: ${DEFAULT-VALUE}."),
        at("-lookup_percent", 18, "10",
                "%% of ops: look up only. Default: ${DEFAULT-VALUE}."),
        at("-erase_percent", 19, "1",
                "%% of ops: erase. The percentages (-scan_percent too) must add to 100. Default:"
                    + " ${DEFAULT-VALUE}."),
        at("-seed", 27),
        at("-high_pri_pool_ratio", 32, null,
                "lru_cache only: share of capacity for the high-priority pool, where"
                    + " entries go when they are hit (cache_bench hard-codes 0.5; 0 = no pool)."
                    + " Default: ${DEFAULT-VALUE}."),
        at("-low_pri_pool_ratio", 33, null,
                "lru_cache only: share of capacity for the low-priority pool, where"
                    + " inserts (priority LOW) enter (cache_bench leaves RocksDB's default, 0 ="
                    + " no pool: they enter the bottom pool). Default: ${DEFAULT-VALUE}."));

    @Override
    public CommandSpec transform(CommandSpec spec) {
        return LAYOUT.applyTo(spec);
    }
}
