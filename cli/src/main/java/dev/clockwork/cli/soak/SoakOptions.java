package dev.clockwork.cli.soak;

import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.GFlags;
import dev.clockwork.cli.common.CacheFlags;
import dev.clockwork.cli.common.OpMixFlags;
import dev.clockwork.cli.common.SizeChecks;
import dev.clockwork.cli.common.WorkloadFlags;
import dev.clockwork.cli.workload.OpMix;
import dev.clockwork.cli.workload.PinnedFifo;
import dev.clockwork.cli.workload.ValueStamp;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The flags of {@code clockwork soak}. Same gflags style and, where a flag means the same thing,
 * the same name as {@code clockwork bench}; the soak's own flags are about
 * time (durations), value sizes (a spread instead of one size) and the extra API calls. The
 * shared ones are declared once in the mixins {@link #cache}, {@link #workload} and {@link #mix}
 * and placed in soak's help, with soak's defaults, by {@link SoakFlagLayout}.
 *
 * <p>Durations ({@code -duration}, {@code -report_interval}, {@code -warmup},
 * {@code -vary_capacity_interval}) are a number of seconds ({@code 90}, {@code 2.5}) or a number
 * with a unit: {@code ms}, {@code s}, {@code m}, {@code h} ({@code 500ms}, {@code 10m}).
 */
public final class SoakOptions {

    /** Values carry a 16-byte key stamp and an 8-byte checksum ({@link ValueStamp}). */
    static final long MIN_VALUE_BYTES = ValueStamp.MIN_CHECKSUM_BYTES;
    static final long MAX_VALUE_BYTES = 1 << 24;
    static final long MAX_THREADS = 1 << 12;
    static final long MAX_PINNED_PER_THREAD = 1 << 24;
    /** The automatic warm-up: this share of the duration, but at most a minute. */
    static final double AUTO_WARMUP_SHARE = 0.2;
    static final long MAX_AUTO_WARMUP_NANOS = 60_000_000_000L;

    /** The cache's flags, shared with bench. */
    @Mixin
    CacheFlags cache = new CacheFlags();

    /** The workload's shape, shared with bench. */
    @Mixin
    WorkloadFlags workload = new WorkloadFlags();

    /** cache_bench's five operation percentages, shared with bench. */
    @Mixin
    OpMixFlags mix = new OpMixFlags();

    @Option(names = "-duration", paramLabel = "<duration>", order = 2, defaultValue = "60s",
            converter = DurationConverter.class,
            description = "How long the workload runs: seconds (90, 2.5) or with a unit (500ms,"
                    + " 30s, 10m, 1h). Default: 60s.")
    long durationNanos;

    @Option(names = "-value_bytes", paramLabel = "<uint32>", order = 5,
            converter = GFlags.UInt32.class,
            description = "Every value this size (shorthand for -value_bytes_min=N"
                    + " -value_bytes_max=N; not together with them). Default: unset.")
    Long valueBytes;

    @Option(names = "-value_bytes_min", paramLabel = "<uint32>", order = 6,
            converter = GFlags.UInt32.class,
            description = "Smallest value size; sizes are spread log-uniformly over [min, max],"
                    + " each"
                    + " key always getting the same size (its charge too). At least 32 (room for"
                    + " the key stamp and checksum). Default: 64.")
    Long valueBytesMin;

    @Option(names = "-value_bytes_max", paramLabel = "<uint32>", order = 7,
            converter = GFlags.UInt32.class,
            description = "Largest value size. Default: 16384.")
    Long valueBytesMax;

    @Option(names = "-value_size_sweep", paramLabel = "<duration>", order = 8,
            defaultValue = "0", converter = DurationConverter.class,
            description = "Move the size mix: operations use only the keys whose sizes lie in a"
                    + " window of 1/" + SoakValues.Sizes.SWEEP_WINDOWS + " of the sizes (by"
                    + " rank), and the window sweeps from the smallest sizes to the largest and"
                    + " back once per this duration (the key space grows to fill the cache with"
                    + " any window's sizes). 0 = the whole mix all the time. Default: 0.")
    long valueSizeSweepNanos;

    @Option(names = "-ref_percent", paramLabel = "<uint32>", order = 18, defaultValue = "5",
            converter = GFlags.UInt32.class,
            description = "%% of hits that also take a second reference (ref), pinned and released"
                    + " on its own. Default: ${DEFAULT-VALUE}.")
    long refPercent;

    @Option(names = "-release_erase_percent", paramLabel = "<uint32>", order = 19,
            defaultValue = "10", converter = GFlags.UInt32.class,
            description = "%% of releases done with eraseIfLastRef = true. Default:"
                    + " ${DEFAULT-VALUE}.")
    long releaseErasePercent;

    @Option(names = "-byte_array_percent", paramLabel = "<uint32>", order = 20,
            defaultValue = "10", converter = GFlags.UInt32.class,
            description = "%% of inserts and of value reads that use the byte[] variants of the API"
                    + " (the rest use MemorySegments; reads split between copyValue and the"
                    + " value() view). Default: ${DEFAULT-VALUE}.")
    long byteArrayPercent;

    @Option(names = "-vary_capacity_interval", paramLabel = "<duration>", order = 22,
            defaultValue = "1s", converter = DurationConverter.class,
            description = "See -vary_capacity_ratio. Default: 1s.")
    long varyCapacityIntervalNanos;

    @Option(names = "-report_interval", paramLabel = "<duration>", order = 23,
            defaultValue = "10s", converter = DurationConverter.class,
            description = "Print one line of progress this often. Default: 10s.")
    long reportIntervalNanos;

    @Option(names = "-warmup", paramLabel = "<duration>", order = 24, defaultValue = "auto",
            converter = WarmupConverter.class,
            description = "RSS is judged against its value at the end of the warm-up: auto ="
                    + " 20%% of -duration, at most 60 s. Default: auto.")
    long warmupNanos; // -1 = auto

    @Option(names = "-rss_tolerance_pct", paramLabel = "<double>", order = 25,
            defaultValue = "5", converter = GFlags.Double.class,
            description = "RSS is flat when its maximum after the warm-up is at most the RSS at the"
                    + " end of the warm-up plus max(this %% of it, -rss_tolerance_mib)."
                    + " Default: ${DEFAULT-VALUE}.")
    double rssTolerancePct;

    @Option(names = "-rss_tolerance_mib", paramLabel = "<uint32>", order = 26,
            defaultValue = "32", converter = GFlags.UInt32.class,
            description = "See -rss_tolerance_pct. Default: ${DEFAULT-VALUE}.")
    long rssToleranceMib;

    @Option(names = "-heap_gc_mib", paramLabel = "<uint32>", order = 27, defaultValue = "16",
            converter = GFlags.UInt32.class,
            description = "When the Java heap in use has grown by this many MiB since the last"
                    + " GC, request one (System.gc()): the only allocation in the workload is the"
                    + " value() view's object, and without collections the JVM would keep"
                    + " touching fresh heap pages, which shows as RSS growth that is not the"
                    + " cache's. 0 = never. Default: ${DEFAULT-VALUE}.")
    long heapGcMib;

    @Option(names = "-max_failure_reports", paramLabel = "<uint32>", order = 32,
            defaultValue = "10", converter = GFlags.UInt32.class,
            description = "Describe at most this many failed value checks on stderr (all are"
                    + " counted). Default: ${DEFAULT-VALUE}.")
    long maxFailureReports;

    @Option(names = "-json", paramLabel = "<bool>", order = 33, arity = "0..1",
            defaultValue = "false", fallbackValue = "true", converter = GFlags.Bool.class,
            description = "Print JSON Lines instead of text: one object per report interval"
                    + " (\"type\":\"interval\") and one summary (\"type\":\"summary\")."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean json;

    /** Defaults of the value size flags, applied by {@link #validate}. */
    static final long DEFAULT_VALUE_BYTES_MIN = 64;
    static final long DEFAULT_VALUE_BYTES_MAX = 16384;

    /** Resolved by {@link #validate}. */
    long minValueBytes;
    long maxValueBytes;
    /** Set by the command: the process's RSS before the cache was made, -1 if unknown. */
    long rssBeforeCache = -1;

    /**
     * Checks the flags together and resolves the value size range.
     *
     * @return null when they are usable, else a message that names the offending flag
     */
    String validate() {
        String typeProblem = CacheFactory.checkType(cache.cacheType);
        if (typeProblem != null) {
            return "-cache_type: " + typeProblem;
        }
        if (durationNanos <= 0) {
            return "-duration must be > 0";
        }
        String threadsProblem = workload.threadsProblem(MAX_THREADS, "");
        if (threadsProblem != null) {
            return threadsProblem;
        }
        String sizeProblem = cache.sizeProblem();
        if (sizeProblem != null) {
            return sizeProblem;
        }
        if (valueBytes != null && (valueBytesMin != null || valueBytesMax != null)) {
            return "-value_bytes cannot be combined with -value_bytes_min/-value_bytes_max";
        }
        minValueBytes = valueBytes != null ? valueBytes
                : valueBytesMin != null ? valueBytesMin : DEFAULT_VALUE_BYTES_MIN;
        maxValueBytes = valueBytes != null ? valueBytes
                : valueBytesMax != null ? valueBytesMax : Math.max(minValueBytes,
                        DEFAULT_VALUE_BYTES_MAX);
        String minFlag = minFlag();
        if (minValueBytes < MIN_VALUE_BYTES) {
            return minFlag + " is less than " + MIN_VALUE_BYTES + ", the smallest value that"
                    + " carries its key stamp and checksum";
        }
        String maxFlag = maxFlag();
        if (maxValueBytes > MAX_VALUE_BYTES) {
            return maxFlag + " is more than " + MAX_VALUE_BYTES;
        }
        if (maxValueBytes < minValueBytes) {
            return maxFlag + " is less than " + minFlag;
        }
        String varyProblem = cache.varyCapacityProblem();
        if (varyProblem != null) {
            return varyProblem;
        }
        if (maxValueBytes > cache.minCapacity()) {
            return maxFlag + " must not exceed the smallest capacity, " + cache.minCapacity()
                    + ": -cache_size=" + cache.cacheSize + " less -vary_capacity_ratio="
                    + cache.varyCapacityRatio + " of it";
        }
        if (cache.varyCapacityRatio > 0 && varyCapacityIntervalNanos <= 0) {
            return "-vary_capacity_interval must be > 0";
        }
        if (valueSizeSweepNanos < 0) {
            return "-value_size_sweep must be >= 0";
        }
        if (reportIntervalNanos <= 0) {
            return "-report_interval must be > 0";
        }
        if (warmupNanos >= durationNanos) {
            return "-warmup must be shorter than -duration";
        }
        String ratioProblem = workload.ratiosProblem();
        if (ratioProblem != null) {
            return ratioProblem;
        }
        return validateMixAndSizes();
    }

    /** The second half of {@link #validate}: the mix, ratios and what the sizes allow. */
    private String validateMixAndSizes() {
        String mixProblem = opMix().check();
        if (mixProblem != null) {
            return mixProblem;
        }
        for (Object[] p : new Object[][] {{"-ref_percent", refPercent},
                {"-release_erase_percent", releaseErasePercent},
                {"-byte_array_percent", byteArrayPercent}}) {
            if ((Long) p[1] > 100) {
                return p[0] + " must be in [0, 100], was " + p[1];
            }
        }
        if (!(rssTolerancePct >= 0) || Double.isInfinite(rssTolerancePct)) {
            return "-rss_tolerance_pct must be a finite number >= 0, was " + rssTolerancePct;
        }
        String poolProblem = cache.poolProblem();
        if (poolProblem != null) {
            return poolProblem;
        }
        long perThread = workload.pinsPerThread(totalPinCount());
        if (perThread > MAX_PINNED_PER_THREAD) {
            return "-pinned_ratio=" + workload.pinnedRatio + " of -cache_size=" + cache.cacheSize
                    + " in values of the mean size (of " + sizeFlags() + ") over -threads="
                    + workload.threads + " pins " + perThread + " handles per thread, more than "
                    + MAX_PINNED_PER_THREAD + ": raise the value sizes or -threads, or lower"
                    + " -pinned_ratio or -cache_size";
        }
        String problem = cache.shardBitsProblem();
        if (problem == null) {
            problem = workload.skewProblem();
        }
        if (problem == null) {
            problem = workersFit(perThread);
        }
        if (problem == null) {
            problem = SizeChecks.populationFits(workload.populateCache, populateBytes(),
                    "98% of -cache_size x (1 + -vary_capacity_ratio), or the key space of"
                            + " -resident_ratio if smaller");
        }
        if (problem == null) {
            problem = SizeChecks.cache(cacheSettings(0), builderFlags());
        }
        return problem;
    }

    /**
     * The workers' buffers ({@link SoakValues}, {@link PinnedFifo}): each a value array of the
     * largest size and a ring of its pinned handles with their keys (3 longs a handle, room for
     * 2 more) on the heap, and a value buffer and a scratch buffer of the largest size in native
     * memory.
     */
    private String workersFit(long pinsPerThread) {
        long heap = maxValueBytes + (pinsPerThread + 2) * 3 * Long.BYTES;
        long nativeBytes = 2 * maxValueBytes + Long.BYTES;
        return SizeChecks.workersFit(workload.threads, heap, "a value array of " + maxFlag()
                + " and a ring of " + (pinsPerThread + 2) + " pinned handles, 24 bytes each",
                nativeBytes, "two buffers of " + maxFlag());
    }

    /** What population inserts at most: 98% of the starting capacity, or the key space. */
    long populateBytes() {
        double mean = SoakValues.meanSize(minValueBytes, maxValueBytes);
        return (long) Math.min(SoakRun.POPULATE_FILL * initialCapacity(),
                maxKey(new SoakValues.Sizes(minValueBytes, maxValueBytes)) * mean);
    }

    /** The flags that set the value sizes, for a refusal: -value_bytes, or the min and max. */
    private String sizeFlags() {
        return valueBytes != null ? minFlag() : minFlag() + " to " + maxFlag();
    }

    /**
     * The smallest value size as a refusal names it: by the flag that set it, marked when it is
     * the default (these flags have no picocli default, so
     * {@link dev.clockwork.cli.common.GivenFlags} cannot tell).
     */
    private String minFlag() {
        return valueBytes != null ? "-value_bytes=" + valueBytes
                : "-value_bytes_min=" + minValueBytes + (valueBytesMin == null ? " (default)" : "");
    }

    /** The largest value size as a refusal names it (see {@link #minFlag}). */
    private String maxFlag() {
        return valueBytes != null ? "-value_bytes=" + valueBytes
                : "-value_bytes_max=" + maxValueBytes + (valueBytesMax == null ? " (default)" : "");
    }

    /** The flag of each cache builder argument, for its refusals ({@link CacheFactory#check}). */
    Map<String, String> builderFlags() {
        String capacity = cache.varyCapacityRatio > 0
                ? "the starting capacity (-cache_size x (1 + -vary_capacity_ratio))"
                : "-cache_size";
        String entryCharge = valueBytes != null ? "-value_bytes"
                : "the mean value size (of -value_bytes_min to -value_bytes_max)";
        return CacheFlags.builderFlags(capacity, entryCharge, null);
    }

    /** The capacity the cache is built and populated with: the top of the wobble range. */
    long initialCapacity() {
        return (long) (cache.cacheSize * (1.0 + cache.varyCapacityRatio));
    }

    /** The warm-up: {@code -warmup}, or 20% of the duration but at most 60 s. */
    long effectiveWarmupNanos() {
        if (warmupNanos >= 0) {
            return warmupNanos;
        }
        return Math.min((long) (durationNanos * AUTO_WARMUP_SHARE), MAX_AUTO_WARMUP_NANOS);
    }

    /** Key numbers are drawn from {@code [0, maxKey)}: cache_size / resident_ratio / mean size. */
    long maxKey(double meanValueBytes) {
        return Math.max(1,
                (long) ((double) cache.cacheSize / workload.residentRatio / meanValueBytes));
    }

    /**
     * The key space for the sizes: {@link #maxKey(double)} of their mean, or with
     * {@code -value_size_sweep} that many keys per window of the smallest sizes, times the
     * windows, so that every window has keys enough to fill the cache.
     */
    long maxKey(SoakValues.Sizes sizes) {
        if (valueSizeSweepNanos == 0) {
            return maxKey(sizes.mean);
        }
        return maxKey(sizes.windowMean(0)) * SoakValues.Sizes.SWEEP_WINDOWS;
    }

    /** Handles pinned by all threads together: pinned_ratio of the cache in mean-size values. */
    long totalPinCount() {
        return PinnedFifo.totalPinCount(cache.cacheSize, workload.pinnedRatio,
                Math.max(1, Math.round(SoakValues.meanSize(minValueBytes, maxValueBytes))));
    }

    /** The five operation percentages. */
    OpMix opMix() {
        return mix.opMix(0);
    }

    /** Cumulative op thresholds over the unsigned 64-bit space ({@link OpMix#thresholds}). */
    long[] opThresholds() {
        return opMix().thresholds();
    }

    /** The cache, built at {@link #initialCapacity()}. */
    CacheFactory.Settings cacheSettings(long seed) {
        // value_bytes feeds the fixed table's estimated entry charge: the mean size
        long estimate = Math.max(1, Math.round(SoakValues.meanSize(minValueBytes, maxValueBytes)));
        return cache.settings(initialCapacity(), estimate, 0, seed, "none");
    }

    /** Formats nanoseconds as a duration the way the flags accept it ("1.5s", "10m", "250ms"). */
    static String formatDuration(long nanos) {
        if (nanos % 3_600_000_000_000L == 0 && nanos > 0) {
            return nanos / 3_600_000_000_000L + "h";
        }
        if (nanos % 60_000_000_000L == 0 && nanos > 0) {
            return nanos / 60_000_000_000L + "m";
        }
        if (nanos < 1_000_000_000L && nanos % 1_000_000L == 0) {
            return nanos / 1_000_000L + "ms";
        }
        return BigDecimal.valueOf(nanos).movePointLeft(9).stripTrailingZeros()
                .toPlainString() + "s";
    }

    private static final Pattern DURATION =
            Pattern.compile("([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)\\s*(ms|s|m|h)?");

    /** Parses a duration: seconds, or a number with a unit ms, s, m or h. */
    static long parseDuration(String value) {
        String s = value.strip().toLowerCase(Locale.ROOT);
        Matcher m = DURATION.matcher(s);
        if (!m.matches()) {
            throw new TypeConversionException("'" + value + "' is not a duration (seconds, or a"
                    + " number with a unit: 500ms, 30s, 10m, 1h)");
        }
        double number = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double nanosPerUnit = switch (unit) {
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "m" -> 60e9;
            default -> 3600e9;
        };
        double nanos = number * nanosPerUnit;
        if (nanos > 365 * 24 * 3600e9) {
            throw new TypeConversionException("'" + value + "' is more than a year");
        }
        return Math.round(nanos);
    }

    /** picocli converter for duration flags. */
    public static final class DurationConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return parseDuration(value);
        }
    }

    /** {@code -warmup}: a duration, or {@code auto} (-1). */
    public static final class WarmupConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return value.strip().equalsIgnoreCase("auto") ? -1L : parseDuration(value);
        }
    }
}
