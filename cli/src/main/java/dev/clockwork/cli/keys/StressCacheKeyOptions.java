package dev.clockwork.cli.keys;

import dev.clockwork.cli.GFlags;
import dev.clockwork.cli.common.Failures;
import dev.clockwork.cli.common.SizeChecks;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code bench -stress_cache_key}'s flags: cache_bench's, with its names, defaults and meanings
 * (RocksDB {@code cache/cache_bench_tool.cc}).
 */
public final class StressCacheKeyOptions {

    /**
     * Most databases a run simulates. A run holds 32 bytes a database (its id, file number and
     * session) and re-opens every one at each simulated process restart; cache_bench's default
     * is 100.
     */
    public static final long MAX_DB_COUNT = 1 << 24;

    /** Heap a run holds for each database: four longs. */
    static final long BYTES_PER_DB = 4 * Long.BYTES;

    /** The share of the JVM's maximum heap, in percent, the runs in flight may hold. */
    static final int HEAP_PERCENT = SizeChecks.HEAP_PERCENT;

    @Option(names = "-stress_cache_key", paramLabel = "<bool>", order = 100, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Run the cache key collision simulator instead of the cache workload"
                    + " (see docs/keys.md). Default: ${DEFAULT-VALUE}.")
    public boolean stressCacheKey;

    @Option(names = "-sck_files_per_day", paramLabel = "<uint32>", order = 101,
            defaultValue = "2500000", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Simulated files generated per simulated day."
                    + " Default: ${DEFAULT-VALUE}.")
    public long filesPerDay;

    @Option(names = "-sck_days_per_run", paramLabel = "<uint32>", order = 102,
            defaultValue = "90", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Number of days to simulate in each run; times"
                    + " -sck_files_per_day at most 9223372036854775807 files. Default:"
                    + " ${DEFAULT-VALUE}.")
    public long daysPerRun;

    @Option(names = "-sck_min_collision", paramLabel = "<uint32>", order = 103,
            defaultValue = "15", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Keep running until this many collisions seen."
                    + " Default: ${DEFAULT-VALUE}.")
    public long minCollision;

    @Option(names = "-sck_file_size_mb", paramLabel = "<uint32>", order = 104,
            defaultValue = "32", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Simulated file size in MiB, for accounting"
                    + " purposes. Default: ${DEFAULT-VALUE}.")
    public long fileSizeMb;

    @Option(names = "-sck_reopen_nfiles", paramLabel = "<uint32>", order = 105,
            defaultValue = "100", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Simulate DB re-open average every n files."
                    + " Default: ${DEFAULT-VALUE}.")
    public long reopenNFiles;

    @Option(names = "-sck_newdb_nreopen", paramLabel = "<uint32>", order = 106,
            defaultValue = "1000", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Simulate new DB average every n re-opens."
                    + " Default: ${DEFAULT-VALUE}.")
    public long newdbNReopen;

    @Option(names = "-sck_restarts_per_day", paramLabel = "<uint32>", order = 107,
            defaultValue = "24", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Average simulated process restarts per day"
                    + " (across DBs). Default: ${DEFAULT-VALUE}.")
    public long restartsPerDay;

    @Option(names = "-sck_db_count", paramLabel = "<uint32>", order = 108,
            defaultValue = "100", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Parallel DBs in simulation sharing a block cache,"
                    + " at most " + MAX_DB_COUNT + " (32 bytes of heap each, per run in flight)."
                    + " Default: ${DEFAULT-VALUE}.")
    public long dbCount;

    @Option(names = "-sck_table_bits", paramLabel = "<uint32>", order = 109,
            defaultValue = "20", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Log2 number of tracked (live) files (across"
                    + " DBs), 10 to 30; each run in flight holds a table of 8 x 2^bits bytes of"
                    + " heap, and the runs in flight at most " + HEAP_PERCENT + "%% of the JVM's"
                    + " maximum heap. Default: ${DEFAULT-VALUE}.")
    public long tableBits;

    @Option(names = "-sck_keep_bits", paramLabel = "<uint32>", order = 110,
            defaultValue = "50", converter = GFlags.UInt32.class,
            description = "(-stress_cache_key) Number of bits to keep from each cache key"
                    + " (<= 64). Default: ${DEFAULT-VALUE}.")
    public long keepBits;

    @Option(names = "-sck_randomize", paramLabel = "<bool>", order = 111, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "(-stress_cache_key) Randomize (hash) cache key. Default:"
                    + " ${DEFAULT-VALUE}.")
    public boolean randomize;

    @Option(names = "-sck_footer_unique_id", paramLabel = "<bool>", order = 112, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "(-stress_cache_key) Simulate using proposed footer unique id."
                    + " Default: ${DEFAULT-VALUE}.")
    public boolean footerUniqueId;

    /**
     * Why these flags cannot run with {@code concurrentRuns} runs at once in a heap of
     * {@code maxHeapBytes}, or null. Every product of flags that becomes a loop bound or an
     * allocation is checked here, before anything runs.
     */
    public String validate(int concurrentRuns, long maxHeapBytes) {
        if (filesPerDay == 0 || daysPerRun == 0 || fileSizeMb == 0 || reopenNFiles == 0
                || newdbNReopen == 0 || restartsPerDay == 0) {
            return "-sck_files_per_day, -sck_days_per_run, -sck_file_size_mb,"
                    + " -sck_reopen_nfiles, -sck_newdb_nreopen and -sck_restarts_per_day must be"
                    + " at least 1";
        }
        if (restartsPerDay > filesPerDay) {
            return "-sck_restarts_per_day must be at most -sck_files_per_day (" + filesPerDay
                    + "), was " + restartsPerDay;
        }
        if (tableBits < 10 || tableBits > 30) {
            return "-sck_table_bits must be in [10, 30], was " + tableBits;
        }
        if (keepBits == 0) {
            return "-sck_keep_bits must be at least 1";
        }
        if (dbCount > MAX_DB_COUNT) {
            return "-sck_db_count=" + dbCount + " is more than " + MAX_DB_COUNT + " (a run"
                    + " holds " + BYTES_PER_DB + " bytes a database and re-opens each at every"
                    + " simulated restart)";
        }
        String filesProblem = filesPerRunProblem();
        return filesProblem != null ? filesProblem : heapProblem(concurrentRuns, maxHeapBytes);
    }

    /**
     * The files a run simulates, {@code -sck_files_per_day x -sck_days_per_run}, must fit a long.
     */
    private String filesPerRunProblem() {
        try {
            Math.multiplyExact(filesPerDay, daysPerRun);
            return null;
        } catch (ArithmeticException e) {
            return "-sck_files_per_day=" + filesPerDay + " x -sck_days_per_run=" + daysPerRun
                    + " files a run is more than " + Long.MAX_VALUE;
        }
    }

    /** Files a run simulates (after {@link #validate}, which checks that this fits). */
    public long filesPerRun() {
        return filesPerDay * daysPerRun;
    }

    /** Databases a run simulates: {@code -sck_db_count}, one with footer ids or a count of 0. */
    int databases() {
        return (int) Math.max(1, footerUniqueId ? 1 : dbCount);
    }

    /** Heap one run holds while it runs: its table of live files and its databases. */
    long heapPerRun() {
        return ((long) Long.BYTES << tableBits) + BYTES_PER_DB * databases();
    }

    private String heapProblem(int concurrentRuns, long maxHeapBytes) {
        long needed = heapPerRun() * concurrentRuns;
        long allowed = SizeChecks.heapAllowance(maxHeapBytes);
        if (needed <= allowed) {
            return null;
        }
        return "-sck_table_bits=" + tableBits + " and -sck_db_count=" + dbCount + " take "
                + heapPerRun() + " bytes of heap a run, " + concurrentRuns + " run(s) at once"
                + " (-threads, at most the cores): " + needed + " bytes, more than "
                + HEAP_PERCENT + "% of the JVM's maximum heap (" + (maxHeapBytes >> 20)
                + " MiB): lower -sck_table_bits, -sck_db_count or -threads, or "
                + Failures.raiseHeap();
    }

    /** Flag values by name, for -json. */
    public Map<String, Object> values() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sck_files_per_day", filesPerDay);
        m.put("sck_days_per_run", daysPerRun);
        m.put("sck_min_collision", minCollision);
        m.put("sck_file_size_mb", fileSizeMb);
        m.put("sck_reopen_nfiles", reopenNFiles);
        m.put("sck_newdb_nreopen", newdbNReopen);
        m.put("sck_restarts_per_day", restartsPerDay);
        m.put("sck_db_count", dbCount);
        m.put("sck_table_bits", tableBits);
        m.put("sck_keep_bits", Math.min(keepBits, 64));
        m.put("sck_randomize", randomize);
        m.put("sck_footer_unique_id", footerUniqueId);
        return m;
    }
}
