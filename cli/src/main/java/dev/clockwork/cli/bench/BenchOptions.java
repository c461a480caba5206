package dev.clockwork.cli.bench;

import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.GFlags;
import dev.clockwork.cli.caches.Targets;
import dev.clockwork.cli.common.CacheFlags;
import dev.clockwork.cli.common.OpMixFlags;
import dev.clockwork.cli.common.WorkloadFlags;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.OpMix;
import dev.clockwork.cli.workload.PinnedFifo;
import java.lang.reflect.Modifier;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags of {@code clockwork bench}, named and defaulted as in RocksDB's cache_bench
 * ({@code cache/cache_bench_tool.cc}), except {@code -cache_type}: cache_bench defaults to
 * {@code hyper_clock_cache}, which means the auto-sizing HyperClockCache, and so does Clockwork.
 *
 * <p>The flags bench shares with soak are declared once in the mixins {@link #cache},
 * {@link #workload} and {@link #mix}; {@link BenchFlagLayout} places them in bench's help with
 * cache_bench's defaults. Bench's own flags are declared here; {@link BenchChecks} checks all of
 * them together.
 *
 * <p>Integer flags keep their gflags types: uint32 and uint64 flags are held in {@code long}s
 * (uint64 limited to {@link Long#MAX_VALUE}).
 */
public final class BenchOptions {

    /** Upper bounds that keep the harness's own arrays and loops sane. */
    static final long MAX_THREADS = 1 << 16;
    static final long MAX_VALUE_BYTES = 1 << 30;
    static final long MAX_PINNED_PER_THREAD = 1 << 27;
    /** Longest -progress_interval, in seconds: a year, as the soak's longest duration. */
    static final double MAX_PROGRESS_INTERVAL_SECONDS = 365 * 24 * 3600.0;

    /** The cache's flags, shared with soak. */
    @Mixin
    CacheFlags cache = new CacheFlags();

    /** The workload's shape, shared with soak. */
    @Mixin
    WorkloadFlags workload = new WorkloadFlags();

    /** cache_bench's five operation percentages, shared with soak (bench adds -scan_percent). */
    @Mixin
    OpMixFlags mix = new OpMixFlags();

    @Option(names = "-ops_per_thread", paramLabel = "<uint64>", order = 7,
            defaultValue = "2000000", converter = GFlags.UInt64.class,
            description = "Operations per thread in the timed phase; times -threads at most"
                    + " 9223372036854775807. Default: ${DEFAULT-VALUE}.")
    long opsPerThread;

    @Option(names = "-value_bytes", paramLabel = "<uint32>", order = 8, defaultValue = "8192",
            converter = GFlags.UInt32.class,
            description = "Size of every inserted value, also its charge. Default:"
                    + " ${DEFAULT-VALUE}.")
    long valueBytes;

    @Option(names = "-value_bytes_estimate", paramLabel = "<uint32>", order = 9,
            defaultValue = "0", converter = GFlags.UInt32.class,
            description = "If > 0: the estimated entry charge (fixed HyperClock) or minimum average"
                    + " charge (auto HyperClock). If 0: the fixed table is sized for"
                    + " -value_bytes; the auto table for -value_bytes when it is under 450, else"
                    + " for its default, 450 (cache_bench keeps 450 for small values too, so that"
                    + " its auto table runs out of slots before the capacity is used; pass"
                    + " -value_bytes_estimate=450 to size it so). Default: ${DEFAULT-VALUE}.")
    long valueBytesEstimate;

    @Option(names = "-compressible_to_ratio", paramLabel = "<double>", order = 10,
            defaultValue = "0.5", converter = GFlags.Double.class,
            description = "Random fraction of each value; the rest repeats that part. Default:"
                    + " ${DEFAULT-VALUE}.")
    double compressibleToRatio;

    @Option(names = "-gather_stats", paramLabel = "<bool>", order = 20, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Run one more thread that, every -gather_stats_sleep_ms while the"
                    + " workers run, walks every entry of the cache (Cache.forEachEntry, as a"
                    + " block cache's statistics collector would) counting entries, charge and"
                    + " key bytes; report how long each walk took (with -histograms) and what"
                    + " the last walk found. Default: ${DEFAULT-VALUE}.")
    boolean gatherStats;

    @Option(names = "-gather_stats_sleep_ms", paramLabel = "<uint32>", order = 21,
            defaultValue = "1000", converter = GFlags.UInt32.class,
            description = "With -gather_stats: milliseconds between the end of one walk and the"
                    + " start of the next. Default: ${DEFAULT-VALUE}.")
    long gatherStatsSleepMs;

    @Option(names = "-gather_stats_entries_per_lock", paramLabel = "<uint32>", order = 22,
            defaultValue = "256", converter = GFlags.UInt32.class,
            description = "With -gather_stats: the walk's batch size. lru_cache holds a shard's"
                    + " lock for at most this many records at a time; the HyperClock caches"
                    + " take no lock and check for close once per this many entries. At least"
                    + " 1; values above 2147483647 count as that. Default: ${DEFAULT-VALUE}.")
    long gatherStatsEntriesPerLock;

    @Option(names = "-usleep", paramLabel = "<uint32>", order = 23, defaultValue = "0",
            converter = GFlags.UInt32.class,
            description = "After each op sleep a random 0..usleep microseconds. Default:"
                    + " ${DEFAULT-VALUE}.")
    long usleep;

    @Option(names = "-lean", paramLabel = "<bool>", order = 24, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Do not read (hash) values on hits: time cache operations only."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean lean;

    @Option(names = "-early_exit", paramLabel = "<bool>", order = 25, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "As soon as the first worker thread has done its ops, end the process"
                    + " (exit code 0) without releasing handles, closing the cache or printing"
                    + " anything more, as cache_bench does for malloc statistics: no report and"
                    + " no -json line, only the header and progress lines printed so far. Not"
                    + " with -compare. Default: ${DEFAULT-VALUE}.")
    boolean earlyExit;

    @Option(names = "-histograms", paramLabel = "<bool>", order = 26, arity = "0..1",
            defaultValue = "true", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Time every op and print latency statistics. Default: ${DEFAULT-VALUE}.")
    boolean histograms;

    @Option(names = "-jit_warmup_ops", paramLabel = "<uint64>", order = 28,
            defaultValue = "400000", converter = GFlags.UInt64.class,
            description = "Clockwork only (cache_bench has no JIT): before the timed run, run this"
                    + " many ops in all (split over the threads) of the same workload on a"
                    + " separate,"
                    + " throwaway cache of the same type (at most 64 MiB), so that the timed run"
                    + " measures compiled code, not the JIT. 0 = measure cold."
                    + " Default: ${DEFAULT-VALUE}.")
    long jitWarmupOps;

    @Option(names = "-report_problems", paramLabel = "<bool>", order = 29, arity = "0..1",
            defaultValue = "true", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "At the end, print HyperClock table diagnostics to stderr (slot"
                    + " occupancy, eviction effort exceeded, estimated entry charge advice; for"
                    + " the Auto table also head occupancy, entries at home, longest chain, yield"
                    + " count and the reservation), as cache_bench's ReportProblems; for"
                    + " lru_cache, usage by pool and the metadata's native bytes."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean reportProblems;

    @Option(names = "-degenerate_hash_bits", paramLabel = "<int32>", order = 30,
            defaultValue = "0", converter = GFlags.Int32.class,
            description = "HyperClock stress: build every key so that the low N bits of its hashed"
                    + " key's home-slot word are the same (the keys stay distinct; shard and probe"
                    + " step still vary), so keys pile onto 1/2^N of the home slots and probe runs"
                    + " grow long. 0..63; 0 = ordinary keys. Default: ${DEFAULT-VALUE}.")
    int degenerateHashBits;

    @Option(names = "-file_keys", paramLabel = "<uint32>", order = 30, defaultValue = "0",
            converter = GFlags.UInt32.class,
            description = "Clockwork: key number k is block (k mod N) of file (k / N), its key"
                    + " derived from the file's FileCacheKey (stable cache keys, docs/keys.md),"
                    + " blocks -value_bytes apart, so the scheme's cost shows end to end. N is"
                    + " this flag; 0 = cache_bench's keys. Not with -degenerate_hash_bits."
                    + " Default: ${DEFAULT-VALUE}.")
    long fileKeys;

    @Option(names = "-verify_values", paramLabel = "<bool>", order = 31, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Clockwork only: stamp every value with its key (first 16 bytes) and a"
                    + " checksum (last 8 bytes, for values of 32 bytes or more), check it on every"
                    + " hit and when a pinned handle is released, report the failures and exit"
                    + " with code 3 if there were any. Default: ${DEFAULT-VALUE}.")
    boolean verifyValues;

    @Option(names = "-admission", paramLabel = "<string>", order = 34, defaultValue = "tinylfu",
            description = "Clockwork: admission policy in front of eviction, none or tinylfu"
                    + " (TinyLFU with an adaptive recency bias; see docs/design.md, \"Admission\")."
                    + " Default: ${DEFAULT-VALUE}.")
    String admission;

    @Option(names = {"-compare", "--compare"}, paramLabel = "<types>", order = 34, split = ",",
            description = "Clockwork: run the same workload (all other flags, the same seed) on"
                    + " each of these cache types in turn, e.g. lru_cache,"
                    + "fixed_hyper_clock_cache,caffeine,caffeine:zgc,ohc_linked, each in a JVM of"
                    + " its own (so no run inherits another's JIT profile) sized as its user"
                    + " would size it: -Xmx512m for off-heap types, -Xms = -Xmx = twice the"
                    + " capacity (at least 1 GiB) for caffeine; :g1, :zgc or :parallel after a"
                    + " type picks its collector (default: the JVM's, G1). Prints each run's"
                    + " report, then one table of throughput, hit ratio, latency and the JVM's"
                    + " bill with ratios to the first. -cache_type is ignored. Default: none (one"
                    + " run of -cache_type).")
    List<String> compare;

    @Option(names = "-value_bytes_mix", paramLabel = "<sizes>", order = 37, split = ",",
            converter = GFlags.UInt32.class,
            description = "Clockwork: values of several sizes, e.g. 4096,8192,16384: key number k's"
                    + " value always has the size at a hash of k modulo the list's length (a block"
                    + " keeps its size), and its charge is that size. -value_bytes is then their"
                    + " mean (key space, table estimate, pins); give one or the other."
                    + " Default: none.")
    List<Long> valueBytesMix;

    @Option(names = "-scan_percent", paramLabel = "<uint32>", order = 38, defaultValue = "0",
            converter = GFlags.UInt32.class,
            description = "Clockwork: %% of ops that are steps of one-off scans (a compaction or"
                    + " full-table scan): each thread reads -scan_length consecutive key numbers"
                    + " from a random start, looking each up and inserting it on a miss, then"
                    + " starts another scan. Counted in the hit ratio like any lookup. The"
                    + " percentages with it must add to 100. Default: ${DEFAULT-VALUE}.")
    long scanPercent;

    @Option(names = "-scan_length", paramLabel = "<uint64>", order = 39, defaultValue = "4096",
            converter = GFlags.UInt64.class,
            description = "Clockwork: key numbers one scan reads (-scan_percent). Default:"
                    + " ${DEFAULT-VALUE}.")
    long scanLength;

    @Option(names = "-duration", paramLabel = "<double>", order = 40, defaultValue = "0",
            converter = GFlags.Double.class,
            description = "Clockwork: if > 0, the timed phase runs this many seconds (every"
                    + " thread until then) instead of -ops_per_thread ops per thread. Default:"
                    + " ${DEFAULT-VALUE}.")
    double duration;

    @Option(names = "-preset", paramLabel = "<name>", order = 41, defaultValue = "none",
            description = "Clockwork: defaults for a workload, each overridden by a flag given on"
                    + " the command line. block_cache: a storage engine's block cache. Blocks of"
                    + " 4, 8 and 16 KiB (-value_bytes_mix=4096,8192,16384), a data set 3 times"
                    + " the cache (-resident_ratio=0.333333), keys of files of 4,096 blocks"
                    + " (-file_keys=4096), skew 5, 95 %% lookups that insert on a miss and 5 %%"
                    + " steps of one-off scans of 4,096 blocks (-lookup_insert_percent=95"
                    + " -scan_percent=5, the other ops 0; given any op percentage, the preset"
                    + " sets none), each block released after it is read"
                    + " (-pinned_ratio=0), 60 seconds (-duration=60). At the default 1 GiB a run"
                    + " takes 65 to 75 seconds (JIT warm-up, population, 60 s, report), under 2"
                    + " minutes; 4 and 8 GiB add a few seconds of population each. none:"
                    + " cache_bench's defaults. Default: ${DEFAULT-VALUE}.")
    String preset;

    @Option(names = "-restart", paramLabel = "<bool>", order = 42, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Clockwork: the restart experiment. Runs the workload to warm the"
                    + " cache, dumps the cache to -restart_dump, closes it, then twice builds a"
                    + " new cache and runs the workload -restart_seconds on it (no population):"
                    + " once after loading the dump, once cold. Reports the hit ratio of each"
                    + " restart, the dump's and the load's times and rates. Clockwork's types"
                    + " only. Default: ${DEFAULT-VALUE}.")
    boolean restart;

    @Option(names = "-restart_seconds", paramLabel = "<double>", order = 43,
            defaultValue = "60", converter = GFlags.Double.class,
            description = "Clockwork: with -restart, how long each restarted cache runs the"
                    + " workload, in seconds: the hit ratio reported is that of these first"
                    + " seconds. Default: ${DEFAULT-VALUE}.")
    double restartSeconds;

    @Option(names = "-restart_dump", paramLabel = "<path>", order = 44, defaultValue = "",
            description = "Clockwork: with -restart, the dump file (replaced if present, kept"
                    + " afterwards); empty: a temporary file, deleted at the end. Default:"
                    + " none (a temporary file).")
    String restartDump;

    @Option(names = {"-json", "--json"}, paramLabel = "<bool>", order = 35, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Clockwork: machine-readable output. Standard output gets one line of"
                    + " JSON per run (cache type, threads, ops, elapsed seconds, rough parallel"
                    + " and thread ops/sec, lookup hit ratio, entries and native bytes at the end,"
                    + " max RSS, heap used, and with -histograms count, P50, P99, P99.9 and max"
                    + " latency per operation kind; every flag's value; the table figures the"
                    + " report prints: final occupancy and slots, eviction effort exceeded, for"
                    + " HyperClock caches, and the final pinned count; with -gather_stats the"
                    + " walks' count, P50, P99, P99.9 and max in microseconds); the human"
                    + " report goes to standard error."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean json;

    @Option(names = {"-progress_interval", "--progress_interval"}, paramLabel = "<double>",
            order = 36, defaultValue = "10", converter = GFlags.Double.class,
            description = "Clockwork: while the threads run, print a progress line to standard"
                    + " error every this many seconds (share of ops done, ops/sec since the last"
                    + " line); 0 = never. Runs shorter than one interval print none. Default:"
                    + " ${DEFAULT-VALUE}.")
    double progressInterval;

    /** {@link #gatherStatsEntriesPerLock} as forEachEntry takes it (capped at int's range). */
    int entriesPerLock() {
        return (int) Math.min(gatherStatsEntriesPerLock, Integer.MAX_VALUE);
    }

    /**
     * Every flag of this command by name (without the dash), in the help's order, with its value
     * as a string, for {@code -json}: a results file then says what it measured. Lists are
     * joined with commas (empty when not given).
     */
    Map<String, String> flagValues() {
        return BenchFlagLayout.LAYOUT.values(this, cache, workload, mix);
    }

    /** Largest degenerate_hash_bits: a 64-bit word has 64 bits, and at least one must vary. */
    static final int MAX_DEGENERATE_HASH_BITS = 63;

    /** Largest throwaway cache used for the JIT warm-up. */
    static final long WARMUP_CACHE_BYTES = 64L << 20;

    /**
     * The options of the JIT warm-up run: the same workload on a cache of at most
     * {@link #WARMUP_CACHE_BYTES}, or of one value when that is larger (a cache refuses a value
     * larger than itself), or of the measured run's size, when the cache type cannot be
     * built that small with these flags, e.g. a fixed table whose shards would be smaller than
     * one value; {@link #jitWarmupOps} ops split over the threads, quiet.
     */
    BenchOptions forWarmup() {
        BenchOptions w = copy();
        w.cache.cacheSize = Math.min(cache.cacheSize,
                Math.max(WARMUP_CACHE_BYTES, maxValueBytes()));
        if (!Targets.isPeer(cache.cacheType)
                && CacheFactory.check(w.cacheSettings(0), Map.of()) != null) {
            w.cache.cacheSize = cache.cacheSize;
        }
        w.opsPerThread = Math.max(1, jitWarmupOps / workload.threads);
        w.histograms = false;
        w.duration = 0;
        w.cache.varyCapacityRatio = 0;
        w.usleep = 0;
        w.jitWarmupOps = 0;
        w.reportProblems = false;
        w.gatherStats = false;
        w.earlyExit = false;
        return w;
    }

    /** A copy of every flag's value. */
    BenchOptions copy() {
        BenchOptions copy = new BenchOptions();
        for (var field : BenchOptions.class.getDeclaredFields()) {
            if (!Modifier.isStatic(field.getModifiers())) {
                try {
                    field.set(copy, field.get(this));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        copy.cache = cache.copy();
        copy.workload = workload.copy();
        copy.mix = mix.copy();
        return copy;
    }

    /**
     * Checks the flags together ({@link BenchChecks}).
     *
     * @return null when they are usable, else a message that names the offending flag
     */
    String validate() {
        return new BenchChecks(this).problem();
    }

    /** Why -progress_interval cannot be used (also by -stress_cache_key), or null. */
    String progressIntervalProblem() {
        if (!(progressInterval >= 0 && progressInterval <= MAX_PROGRESS_INTERVAL_SECONDS)) {
            return "-progress_interval must be in [0, " + (long) MAX_PROGRESS_INTERVAL_SECONDS
                    + "] seconds (a year), was " + progressInterval;
        }
        return null;
    }

    /** What population inserts at most: the cache's size, or the whole key space if smaller. */
    long populateBytes() {
        return (long) Math.min((double) cache.cacheSize, (double) maxKey() * valueBytes);
    }

    /** The flag of each cache builder argument, for its refusals ({@link CacheFactory#check}). */
    Map<String, String> builderFlags() {
        return CacheFlags.builderFlags("-cache_size",
                valueBytesEstimate > 0 ? "-value_bytes_estimate" : "-value_bytes",
                "-value_bytes_estimate");
    }

    /**
     * Key numbers are drawn from {@code [0, maxKey)}:
     * {@code cache_size / resident_ratio / value_bytes}.
     */
    long maxKey() {
        return (long) ((double) cache.cacheSize / workload.residentRatio / valueBytes);
    }

    long totalPinCount() {
        return PinnedFifo.totalPinCount(cache.cacheSize, workload.pinnedRatio, valueBytes);
    }

    /** The six operation percentages. */
    OpMix opMix() {
        return mix.opMix(scanPercent);
    }

    /**
     * The value size of key number {@code key}: -value_bytes, or with -value_bytes_mix the
     * size at a hash of the key (always the same for a key).
     */
    int valueBytesOf(long key) {
        if (valueBytesMix == null || valueBytesMix.isEmpty()) {
            return (int) valueBytes;
        }
        int i = (int) Long.remainderUnsigned(
                KeyGen.mixKeyNumber(key), valueBytesMix.size());
        return (int) (long) valueBytesMix.get(i);
    }

    /** The largest value a run inserts. */
    int maxValueBytes() {
        if (valueBytesMix == null || valueBytesMix.isEmpty()) {
            return (int) valueBytes;
        }
        return (int) (long) Collections.max(valueBytesMix);
    }

    // The cumulative op-selection thresholds (OpMix#thresholds), one per kind.

    long lookupInsertThreshold() {
        return opMix().thresholds()[0];
    }

    long insertThreshold() {
        return opMix().thresholds()[1];
    }

    long blindInsertThreshold() {
        return opMix().thresholds()[2];
    }

    long lookupThreshold() {
        return opMix().thresholds()[3];
    }

    long eraseThreshold() {
        return opMix().thresholds()[4];
    }

    /**
     * The cache for a run with the effective (uint32, non-zero) {@code seed}; its hash seed is
     * {@link CacheFactory#hashSeedFor}{@code (seed)}, as in cache_bench, which is also what
     * {@link KeyGen} inverts for {@code -degenerate_hash_bits}.
     */
    CacheFactory.Settings cacheSettings(long seed) {
        return cache.settings(cache.cacheSize, valueBytes, valueBytesEstimate, seed, admission);
    }
}
