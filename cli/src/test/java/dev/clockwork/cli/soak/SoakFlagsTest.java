package dev.clockwork.cli.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cli.RunMain;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.ProcessStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.TypeConversionException;

/** {@code clockwork soak}'s flags, durations, value sizes and RSS rule. */
class SoakFlagsTest {

    /** Parses soak flags exactly as {@code clockwork soak ...} does, then validates them. */
    static SoakOptions parse(String... args) {
        SoakOptions options = RunMain.<SoakCommand>parse("soak", args).options;
        String problem = options.validate();
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return options;
    }

    private static String problem(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> parse(args)).getMessage();
    }

    @Test
    void defaults() {
        SoakOptions o = parse();
        assertEquals("hyper_clock_cache", o.cache.cacheType);
        assertEquals(60_000_000_000L, o.durationNanos);
        assertEquals(4, o.workload.threads);
        assertEquals(64L << 20, o.cache.cacheSize);
        assertEquals(64, o.minValueBytes);
        assertEquals(16384, o.maxValueBytes);
        assertEquals(10_000_000_000L, o.reportIntervalNanos);
        assertEquals(12_000_000_000L, o.effectiveWarmupNanos(), "20% of 60 s");
        assertEquals(0.1, o.cache.varyCapacityRatio);
        assertEquals(100, o.mix.lookupInsertPercent + o.mix.insertPercent + o.mix.blindInsertPercent
                + o.mix.lookupPercent + o.mix.erasePercent);
        assertFalse(o.json);
        assertTrue(o.workload.populateCache);
    }

    @Test
    void durationsTakeSecondsOrAUnit() {
        assertEquals(90_000_000_000L, SoakOptions.parseDuration("90"));
        assertEquals(2_500_000_000L, SoakOptions.parseDuration("2.5"));
        assertEquals(500_000_000L, SoakOptions.parseDuration("500ms"));
        assertEquals(30_000_000_000L, SoakOptions.parseDuration(" 30s "));
        assertEquals(600_000_000_000L, SoakOptions.parseDuration("10m"));
        assertEquals(90_000_000_000L, SoakOptions.parseDuration("1.5M"));
        assertEquals(3_600_000_000_000L, SoakOptions.parseDuration("1h"));
        for (String bad : List.of("", "abc", "-5", "10x", "1e3", "5 minutes", "10m30s")) {
            assertThrows(TypeConversionException.class, () -> SoakOptions.parseDuration(bad), bad);
        }
        assertEquals("10m", SoakOptions.formatDuration(600_000_000_000L));
        assertEquals("2.5s", SoakOptions.formatDuration(2_500_000_000L));
        assertEquals("100s", SoakOptions.formatDuration(100_000_000_000L));
        assertEquals("400ms", SoakOptions.formatDuration(400_000_000L));
        assertEquals("1h", SoakOptions.formatDuration(3_600_000_000_000L));

        SoakOptions o = parse("-duration=10m", "-report_interval", "30s");
        assertEquals(600_000_000_000L, o.durationNanos);
        assertEquals(30_000_000_000L, o.reportIntervalNanos);
        assertEquals(60_000_000_000L, o.effectiveWarmupNanos(), "60 s cap on the 20%");
        assertEquals(5_000_000_000L, parse("-duration=10m", "-warmup=5s").effectiveWarmupNanos());
        assertEquals(400_000_000L, parse("-duration=2").effectiveWarmupNanos());
    }

    @Test
    void valueSizes() {
        SoakOptions fixed = parse("-value_bytes=1000");
        assertEquals(1000, fixed.minValueBytes);
        assertEquals(1000, fixed.maxValueBytes);
        SoakOptions range = parse("-value_bytes_min=32", "-value_bytes_max=100");
        assertEquals(32, range.minValueBytes);
        assertEquals(100, range.maxValueBytes);
        assertEquals(20000, parse("-value_bytes_min=20000").maxValueBytes,
                "max defaults to at least min");
        assertTrue(problem("-value_bytes=100", "-value_bytes_max=200")
                .contains("-value_bytes cannot be combined"));
        assertTrue(problem("-value_bytes_min=31").startsWith("-value_bytes_min=31 is less than "
                + "32"));
        assertTrue(problem("-value_bytes=8").startsWith("-value_bytes=8 is less than 32"));
        assertTrue(problem("-value_bytes_min=100", "-value_bytes_max=99")
                .contains("-value_bytes_max=99 is less than -value_bytes_min=100"));
        assertTrue(problem("-cache_size=100000", "-value_bytes_max=95000")
                .contains("-value_bytes_max=95000 must not exceed the smallest capacity, 90000"));
    }

    @Test
    void sizesAreSpreadLogUniformlyAndFixedPerKey() {
        SoakValues.Sizes sizes = new SoakValues.Sizes(64, 16384);
        assertEquals(SoakValues.Sizes.CLASSES, sizes.sizes.length);
        assertEquals(64, sizes.sizes[0]);
        assertEquals(16384, sizes.sizes[sizes.sizes.length - 1]);
        // log-uniform: the mean of a log-uniform [a, b] is (b - a) / ln(b / a)
        assertEquals((16384 - 64) / Math.log(256), sizes.mean, 20);
        KeyGen gen = new KeyGen();
        int[] perClass = new int[sizes.sizes.length];
        for (long k = 0; k < 100_000; k++) {
            gen.encode(k);
            int s = sizes.sizeOf(gen.key0(), gen.key1());
            assertTrue(s >= 64 && s <= 16384, "size " + s);
            assertEquals(s, sizes.sizeOf(gen.key0(), gen.key1()), "a key always has one size");
            perClass[sizes.classOf(gen.key0(), gen.key1())]++;
        }
        for (int count : perClass) {
            assertTrue(count > 40 && count < 170, "uneven classes: " + count); // mean 97.7
        }
        SoakValues.Sizes one = new SoakValues.Sizes(100, 100);
        assertEquals(1, one.sizes.length);
        assertEquals(100, one.sizeOf(1, 2));
        assertEquals(100.0, one.mean);
        SoakValues.Sizes narrow = new SoakValues.Sizes(32, 40);
        assertEquals(8, narrow.sizes.length, "9 sizes, rounded down to a power of two");
    }

    @Test
    void theSizeSweepMovesAWindowUpAndBackAndWidensTheKeySpace() {
        SoakValues.Sizes sizes = new SoakValues.Sizes(32, 1 << 20);
        int width = sizes.windowWidth();
        assertEquals(SoakValues.Sizes.CLASSES / SoakValues.Sizes.SWEEP_WINDOWS, width);
        long period = 30_000_000_000L;
        int top = sizes.sizes.length - width;
        assertEquals(0, sizes.windowStart(0, period));
        assertEquals(top / 2, sizes.windowStart(period / 4, period), 1);
        assertEquals(top, sizes.windowStart(period / 2, period));
        assertEquals(top / 2, sizes.windowStart(3 * period / 4, period), 1);
        assertEquals(0, sizes.windowStart(period, period), "the next sweep starts at the bottom");
        assertTrue(sizes.windowMean(0) < sizes.windowMean(top));
        SoakOptions still = parse("-value_bytes_min=32", "-value_bytes_max=1048576",
                "-cache_size=16777216");
        SoakOptions moving = parse("-value_bytes_min=32", "-value_bytes_max=1048576",
                "-cache_size=16777216", "-value_size_sweep=30s");
        assertEquals(period, moving.valueSizeSweepNanos);
        assertEquals(0, still.valueSizeSweepNanos);
        // every window has keys enough to fill the cache with its own sizes
        long perWindow = moving.maxKey(sizes) / SoakValues.Sizes.SWEEP_WINDOWS;
        assertTrue(perWindow * sizes.windowMean(0) >= 16777216, "keys per window " + perWindow);
        assertTrue(moving.maxKey(sizes) > still.maxKey(sizes));
    }

    @Test
    void badFlagsAreNamed() {
        for (String[] bad : List.of(new String[] {"-duration=abc"}, new String[] {"-duration=-1"},
                new String[] {"-report_interval=soon"}, new String[] {"-warmup=x"},
                new String[] {"-threads=-1"}, new String[] {"-cache_size=8m"},
                new String[] {"-value_bytes_max=1.5"}, new String[] {"-pinned_ratio=lots"},
                new String[] {"-json=maybe"}, new String[] {"-vary_capacity_interval=1d"})) {
            String flag = bad[0].substring(0, bad[0].indexOf('='));
            Object[] r = RunMain.run("soak", bad[0]);
            assertEquals(2, r[0], bad[0]);
            assertTrue(((String) r[2]).contains(flag), r[2] + " should name " + flag);
        }
        Object[] r = RunMain.run("soak", "-no_such_flag=1");
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-no_such_flag"), (String) r[2]);
        assertTrue(((String) r[2]).contains("clockwork soak"), (String) r[2]);
    }

    @Test
    void validationNamesTheFlag() {
        assertTrue(problem("-duration=0").contains("-duration must be > 0"));
        assertTrue(problem("-threads=0").contains("-threads"));
        assertTrue(problem("-cache_size=0").contains("-cache_size"));
        assertTrue(problem("-report_interval=0").contains("-report_interval"));
        assertTrue(problem("-duration=10", "-warmup=10").contains("-warmup"));
        assertTrue(problem("-vary_capacity_ratio=1").contains("-vary_capacity_ratio"));
        assertTrue(problem("-vary_capacity_interval=0").contains("-vary_capacity_interval"));
        assertNull(parse("-vary_capacity_ratio=0", "-vary_capacity_interval=0").validate());
        assertTrue(problem("-ref_percent=101").contains("-ref_percent must be in [0, 100]"));
        assertTrue(problem("-release_erase_percent=200").contains("-release_erase_percent"));
        assertTrue(problem("-byte_array_percent=101").contains("-byte_array_percent"));
        assertTrue(problem("-rss_tolerance_pct=-1").contains("-rss_tolerance_pct"));
        assertTrue(problem("-resident_ratio=0").contains("-resident_ratio"));
        assertTrue(problem("-pinned_ratio=-1").contains("-pinned_ratio"));
        assertTrue(problem("-cache_type=bogus").contains("unknown cache_type 'bogus'"));
        String p = problem("-erase_percent=6");
        assertTrue(p.contains("Percentages must add to 100") && p.contains("-erase_percent=6")
                && p.contains("= 101"), p);
        Object[] r = RunMain.run("soak", "-lookup_percent=0", "-duration=1");
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-lookup_percent=0"), (String) r[2]);
        r = RunMain.run("soak", "-value_bytes_min=8");
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-value_bytes_min=8"), (String) r[2]);
    }

    @Test
    void countsAndSizesAreBoundedNamingTheFlag() {
        assertEquals("-num_shard_bits must be in [-1, 16], was 17", problem("-num_shard_bits=17"));
        assertTrue(problem("-skew=1001").startsWith("-skew=1001 is more than 1000"));
        String max = "-cache_size=9223372036854775807";
        assertTrue(problem(max).contains("-pinned_ratio=0.1 of -cache_size=9223372036854775807"),
                problem(max));
        Object[] r = RunMain.run("soak", "-num_shard_bits=17");
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-num_shard_bits"), (String) r[2]);
        if (ProcessStats.physicalMemoryBytes().isPresent()) {
            String p = problem(max, "-pinned_ratio=0");
            assertTrue(p.startsWith("-populate_cache fills the cache with about") && p.contains(
                    "lower -cache_size, or pass -populate_cache=false"), p);
        }
        // The fixed table's refusals name the soak's flags.
        assertEquals("-value_bytes 262144 is larger than each shard's share of -cache_size,"
                + " 131072 (-cache_size 1048576 over 8 shards): a table sized for it holds no"
                + " entry; lower -value_bytes or -num_shard_bits, or raise -cache_size",
                problem("-cache_type=fixed_hyper_clock_cache", "-cache_size=1048576",
                        "-value_bytes=262144", "-num_shard_bits=3", "-vary_capacity_ratio=0"));
        String p = problem("-cache_type=fixed_hyper_clock_cache", "-cache_size=1048576",
                "-value_bytes_min=200000", "-value_bytes_max=300000", "-num_shard_bits=3");
        assertTrue(p.startsWith("the mean value size (of -value_bytes_min to -value_bytes_max)")
                && p.contains("each shard's share of the starting capacity (-cache_size x (1 +"
                + " -vary_capacity_ratio)), 144180"), p);
    }

    /** An unbounded LRU cache, not populated, runs its duration and returns every byte. */
    @Test
    void maxCacheSizeRunsWithoutPopulation() {
        Object[] r = RunMain.run("soak", "-cache_type=lru_cache",
                "-cache_size=9223372036854775807", "-pinned_ratio=0", "-populate_cache=false",
                "-duration=1", "-threads=2", "-report_interval=1", "-rss_tolerance_mib=100000",
                "-seed=5");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Result: PASS"), out);
    }

    @Test
    void settingsStartAtTheTopOfTheCapacityRange() {
        SoakOptions o = parse("-cache_size=1000000", "-vary_capacity_ratio=0.2",
                "-value_bytes=100", "-cache_type=fixed_hyper_clock_cache", "-seed=9");
        var s = o.cacheSettings(9);
        assertEquals(1_200_000, s.capacity());
        assertEquals(100, s.valueBytes(), "the fixed table's entry estimate is the mean size");
        assertEquals(800_000, o.cache.minCapacity());
        assertEquals(40_000, o.maxKey(100), "cache_size / resident_ratio / mean size");
        assertEquals(1000, o.totalPinCount(), "10% of the cache in mean-size values");
    }

    @Test
    void helpListsTheFlags() {
        Object[] r = RunMain.run("soak", "--help");
        assertEquals(0, r[0]);
        String help = (String) r[1];
        for (String flag : List.of("-cache_type", "-duration", "-threads", "-cache_size",
                "-value_bytes", "-value_bytes_min", "-value_bytes_max", "-report_interval",
                "-warmup", "-rss_tolerance_pct", "-rss_tolerance_mib", "-vary_capacity_ratio",
                "-ref_percent", "-release_erase_percent", "-byte_array_percent", "-heap_gc_mib",
                "-json", "Exit code")) {
            assertTrue(help.contains(flag), flag + " missing from help:\n" + help);
        }
        r = RunMain.run();
        assertTrue(((String) r[2]).contains("soak"), (String) r[2]);
    }

    @Test
    void rssRule() {
        long mib = SoakMemory.MIB;
        // small processes: 32 MiB allowance
        assertEquals(32 * mib, SoakMemory.rssAllowance(100 * mib, 5, 32));
        assertTrue(SoakMemory.rssFlat(100 * mib, 132 * mib, 5, 32));
        assertFalse(SoakMemory.rssFlat(100 * mib, 132 * mib + 1, 5, 32));
        // large processes: 5%
        assertEquals(100 * mib, SoakMemory.rssAllowance(2000 * mib, 5, 32));
        assertTrue(SoakMemory.rssFlat(2000 * mib, 2100 * mib, 5, 32));
        assertFalse(SoakMemory.rssFlat(2000 * mib, 2100 * mib + 1, 5, 32));
        // shrinking is flat
        assertTrue(SoakMemory.rssFlat(2000 * mib, 1000 * mib, 0, 0));
        assertFalse(SoakMemory.rssFlat(2000 * mib, 2000 * mib + 1, 0, 0));
    }

    @Test
    void readsVmRssFromProcStatus(@TempDir Path dir) throws IOException {
        Path status = dir.resolve("status");
        Files.writeString(status, "Name:\tjava\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n");
        assertEquals(102400, ProcessStats.statusKib(status, "VmRSS:"));
        assertEquals(204800, ProcessStats.statusKib(status, "VmHWM:"));
        assertEquals(-1, ProcessStats.statusKib(status, "VmSwap:"));
        assertEquals(-1, ProcessStats.statusKib(dir.resolve("missing"), "VmRSS:"));
        if (Files.exists(Path.of("/proc/self/status"))) {
            long rss = ProcessStats.rssBytes();
            assertTrue(rss > 1 << 20, "this JVM's RSS: " + rss);
        }
    }

    /** 4,096 workers with 16 MiB value arrays were an OutOfMemoryError with a stack trace. */
    @Test
    void workersBuffersMustFitTheHeap() {
        String p = problem("-threads=4096", "-value_bytes=16777216", "-cache_size=1073741824",
                "-populate_cache=false");
        assertTrue(p.startsWith("-threads=4096 workers hold 16777288 bytes of heap each (a value"
                + " array of -value_bytes=16777216 and a ring of 3 pinned handles, 24 bytes each),"
                + " 68719771648 in all, more than 75% of the JVM's maximum heap"), p);
        Object[] r = RunMain.run("soak", "-threads=4096", "-value_bytes=16777216",
                "-cache_size=1073741824", "-populate_cache=false");
        assertEquals(2, r[0]);
        assertEquals(1, ((String) r[2]).lines().count(), (String) r[2]);
    }
}
