package dev.clockwork.cli.simulate;

import dev.clockwork.cli.GFlags;
import dev.clockwork.cli.common.Failures;
import dev.clockwork.cli.common.SizeChecks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The flags of {@code clockwork simulate}. Two modes: {@code -trace} (one or more files, at
 * {@code -capacities}) or {@code -pollution} (the built-in scenario, at {@code -capacity}).
 * {@link #validate} refuses what does not go together, naming the flag.
 */
public final class SimulateOptions {
    /** Largest capacity in entries: the fixed table is allocated up front, 64 bytes a slot. */
    public static final long MAX_ENTRIES = 1L << 24;
    /** Most threads {@code -threads} may ask for. */
    public static final int MAX_THREADS = 64;
    /** Most accesses of the pollution scenario (8 bytes each in memory, and OPT's 13 more). */
    public static final long MAX_POLLUTION_ACCESSES = 1L << 28;

    @Option(names = "-trace", paramLabel = "<file>", order = 1,
            description = "A trace to replay (plain, .gz or .xz); repeat the flag for more.")
    List<Path> traces;

    @Option(names = "-format", paramLabel = "<name>", order = 2, defaultValue = "auto",
            description = "Trace format: lirs (a decimal key per line), cache2k (big-endian"
                    + " 32-bit keys), csv (key,size per line) or auto (told from the contents)."
                    + " Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "-max_accesses", paramLabel = "<uint64>", order = 2,
            converter = GFlags.UInt64.class,
            description = "-trace: the most accesses a trace may hold; a longer one is refused."
                    + " Every line of a text trace counts (blank ones too), and a line may be at"
                    + " most " + TraceLines.MAX_LINE_BYTES + " bytes. Each access takes 8 bytes"
                    + " of heap, 12 with sizes, and OPT 13 more while it runs (raise the heap"
                    + " with CLOCKWORK_JAVA_OPTS=-Xmx<size>). At most " + Trace.Builder.MAX_LENGTH
                    + ". Default: " + TraceReader.DEFAULT_MAX_ACCESSES + ".")
    Long maxAccesses;

    @Option(names = "-capacities", paramLabel = "<list>", order = 3, split = ",",
            converter = GFlags.UInt64.class,
            description = "Capacities to simulate with -trace, comma-separated, in entries (or"
                    + " bytes with -bytes), e.g. 500,1000,2000.")
    List<Long> capacities;

    @Option(names = "-bytes", paramLabel = "<bool>", order = 4, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Capacities are in bytes and each access weighs its size (needs a"
                    + " trace with sizes: csv). Default: ${DEFAULT-VALUE}.")
    boolean bytes;

    @Option(names = "-policies", paramLabel = "<list>", order = 5, split = ",",
            description = "Policies to run, comma-separated, from: lru, opt, caffeine, s3fifo,"
                    + " sieve, arc, lirs, clockpro, lru_cache, fixed_hyper_clock_cache,"
                    + " auto_hyper_clock_cache, and each Clockwork type with _tinylfu. Default:"
                    + " all (with -bytes, all but arc, lirs and clockpro, which count entries"
                    + " only).")
    List<String> policies;

    @Option(names = "-pollution", paramLabel = "<dist>", order = 6,
            description = "Run the pollution scenario instead of a trace: a good stream (uniform"
                    + " or zipf, exponent 0.9) alternating with never-repeated keys; reports the"
                    + " good stream's hit ratio after the first 10%% of accesses.")
    String pollution;

    @Option(names = "-capacity", paramLabel = "<uint64>", order = 7,
            converter = GFlags.UInt64.class,
            description = "-pollution: the capacity in entries.")
    Long capacity;

    @Option(names = "-accesses", paramLabel = "<uint64>", order = 8, defaultValue = "1000000",
            converter = GFlags.UInt64.class,
            description = "-pollution: accesses in all, good and polluting. Default:"
                    + " ${DEFAULT-VALUE}.")
    long accesses;

    @Option(names = "-good_keys", paramLabel = "<uint64>", order = 9, defaultValue = "0",
            converter = GFlags.UInt64.class,
            description = "-pollution: the good stream's key space; 0 = 4 x -capacity. With zipf"
                    + " a table of 8 bytes a key, which with the trace (8 bytes an access) must"
                    + " fit in " + SizeChecks.HEAP_PERCENT + "%% of the JVM's maximum heap."
                    + " Default: ${DEFAULT-VALUE}.")
    long goodKeys;

    @Option(names = "-seed", paramLabel = "<uint64>", order = 10, defaultValue = "1",
            converter = GFlags.UInt64.class,
            description = "-pollution: seed of the good stream; the same seed, the same trace."
                    + " Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "-threads", paramLabel = "<int32>", order = 11, defaultValue = "1",
            converter = GFlags.Int32.class,
            description = "Replay each trace through each concurrent policy (caffeine and the"
                    + " Clockwork types) from this many threads at once, 1 to " + MAX_THREADS
                    + ", claiming the trace's accesses in order, " + ConcurrentReplay.BATCH
                    + " at a time; each such policy also runs on one thread, reported beside it."
                    + " lru and opt run on one thread whatever this says. Default:"
                    + " ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "-csv", paramLabel = "<bool>", order = 12, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Print CSV: trace,capacity,policy,threads,hit_ratio (with -threads >"
                    + " 1 also hit_ratio_1_thread, admission_rejects, admission_rejects_1_thread)."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean csv;

    @Option(names = "-json", paramLabel = "<bool>", order = 13, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Print one JSON object per result. Default: ${DEFAULT-VALUE}.")
    boolean json;

    @Option(names = "-progress_interval", paramLabel = "<double>", order = 14,
            defaultValue = "10", converter = GFlags.Double.class,
            description = "Seconds between progress lines on stderr during a long replay; 0 ="
                    + " none. Default: ${DEFAULT-VALUE}.")
    double progressInterval;

    /** The policies to run: -policies, or every registered one (with -bytes, that takes bytes). */
    List<String> policyNames(PolicyRegistry registry) {
        if (policies != null) {
            return policies;
        }
        return bytes ? registry.namesTakingBytes() : registry.names();
    }

    /** -max_accesses, or its default. */
    long maxAccesses() {
        return maxAccesses != null ? maxAccesses : TraceReader.DEFAULT_MAX_ACCESSES;
    }

    /** -format as a format, null for auto (after {@link #validate}). */
    TraceFormat traceFormat() {
        return TraceFormat.byName(format);
    }

    /** The good key space of the pollution scenario (after {@link #validate}). */
    int goodKeySpace() {
        return (int) (goodKeys != 0 ? goodKeys : PollutionTrace.DEFAULT_KEYS_PER_ENTRY * capacity);
    }

    /**
     * Checks the flags together.
     *
     * @return null when they are usable, else a message that names the offending flag
     */
    String validate(PolicyRegistry registry) {
        if (csv && json) {
            return "-csv and -json cannot be combined: pick one output";
        }
        if (threads < 1 || threads > MAX_THREADS) {
            return "-threads must be in [1, " + MAX_THREADS + "], was " + threads;
        }
        if (!(progressInterval >= 0) || Double.isInfinite(progressInterval)) {
            return "-progress_interval must be a finite number >= 0, was " + progressInterval;
        }
        if (policies != null) {
            String problem = registry.check(policies, bytes);
            if (problem != null) {
                return problem;
            }
        }
        boolean traceMode = traces != null && !traces.isEmpty();
        if (traceMode == (pollution != null)) {
            return traceMode ? "-trace and -pollution cannot be combined: run them separately"
                    : "give -trace <file> (one or more) or -pollution uniform|zipf";
        }
        return traceMode ? validateTraces() : validatePollution();
    }

    private String validateTraces() {
        if (TraceFormat.byName(format) == null && !format.equals("auto")) {
            return "-format must be auto, lirs, cache2k or csv, was '" + format + "'";
        }
        if (capacity != null) {
            return "-capacity is for -pollution; with -trace give -capacities";
        }
        if (maxAccesses() < 1 || maxAccesses() > Trace.Builder.MAX_LENGTH) {
            return "-max_accesses must be in [1, " + Trace.Builder.MAX_LENGTH + "], was "
                    + maxAccesses();
        }
        if (capacities == null || capacities.isEmpty()) {
            return "-trace needs -capacities, e.g. -capacities=500,1000,2000";
        }
        for (long c : capacities) {
            if (c < 1) {
                return "-capacities: every capacity must be >= 1, was " + c;
            }
            if (!bytes && c > MAX_ENTRIES) {
                return "-capacities: " + c + " entries is more than " + MAX_ENTRIES
                        + " (the fixed table is allocated up front, 64 bytes a slot)";
            }
        }
        for (Path t : traces) {
            if (t.toString().isEmpty()) {
                return "-trace needs a file name, was empty";
            }
            String problem = unreadable(t);
            if (problem != null) {
                return "-trace " + t + ": " + problem;
            }
        }
        return null;
    }

    /** Why {@code file} cannot be read as a trace, or null if it may be. */
    private static String unreadable(Path file) {
        if (Files.isDirectory(file)) {
            return "is a directory, not a trace file";
        }
        if (!Files.exists(file)) {
            return "no such file";
        }
        if (!Files.isRegularFile(file)) {
            return "not a regular file (a trace is read into memory whole, so it must end)";
        }
        if (!Files.isReadable(file)) {
            return "not readable (permission denied)";
        }
        return null;
    }

    private String validatePollution() {
        if (PollutionTrace.Distribution.byName(pollution) == null) {
            return "-pollution must be uniform or zipf, was '" + pollution + "'";
        }
        if (capacities != null) {
            return "-capacities is for -trace; with -pollution give -capacity";
        }
        if (maxAccesses != null) {
            return "-max_accesses is for -trace; with -pollution give -accesses";
        }
        if (bytes) {
            return "-bytes needs a trace with sizes; the pollution scenario counts entries";
        }
        if (capacity == null || capacity < 1 || capacity > MAX_ENTRIES) {
            return "-pollution needs -capacity in [1, " + MAX_ENTRIES + "] entries, was "
                    + capacity;
        }
        if (accesses < 2 || accesses > MAX_POLLUTION_ACCESSES) {
            return "-accesses must be in [2, " + MAX_POLLUTION_ACCESSES + "], was " + accesses;
        }
        if (goodKeys > Integer.MAX_VALUE / 2
                || goodKeys == 0 && capacity * PollutionTrace.DEFAULT_KEYS_PER_ENTRY
                        > Integer.MAX_VALUE / 2) {
            return "-good_keys must be at most " + Integer.MAX_VALUE / 2 + ", was "
                    + (goodKeys != 0 ? goodKeys + "" : "4 x -capacity");
        }
        return pollutionHeapProblem(Runtime.getRuntime().maxMemory());
    }

    /**
     * The scenario's trace is made in memory before it runs: 8 bytes an access, and with zipf a
     * table of 8 bytes a good key. Refused when that alone passes the heap's allowance
     * ({@link SizeChecks#HEAP_PERCENT}% of it); the policies need more on top (OPT 13 bytes an
     * access and a map of the keys).
     */
    String pollutionHeapProblem(long maxHeap) {
        boolean zipf = PollutionTrace.Distribution.byName(pollution)
                == PollutionTrace.Distribution.ZIPF;
        long keysBytes = zipf ? (long) goodKeySpace() * Long.BYTES : 0;
        long bytes = accesses * Long.BYTES + keysBytes;
        if (bytes <= SizeChecks.heapAllowance(maxHeap)) {
            return null;
        }
        return "-accesses=" + accesses + (zipf ? " and a zipf table of " + goodKeySpace()
                + " good keys (-good_keys)" : "") + " take " + bytes + " bytes of heap (8 an"
                + " access" + (zipf ? ", 8 a good key" : "") + "), more than "
                + SizeChecks.HEAP_PERCENT + "% of the JVM's maximum heap (" + (maxHeap >> 20)
                + " MiB): lower them, or " + Failures.raiseHeap();
    }
}
