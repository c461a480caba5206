package dev.clockwork.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.RunMain;
import dev.clockwork.cli.common.CacheFlags;
import dev.clockwork.cli.common.OpMixFlags;
import dev.clockwork.cli.common.WorkloadFlags;
import dev.clockwork.cli.workload.ProcessStats;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchFlagsTest {

    /** Parses bench flags exactly as {@code clockwork bench ...} does, then validates them. */
    static BenchOptions parse(String... args) {
        BenchOptions options = RunMain.<BenchCommand>parse("bench", args).options;
        String problem = options.validate();
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return options;
    }

    @Test
    void warmupRunsTheSameWorkloadOnASmallQuietCache() {
        BenchOptions o = parse("-threads=4", "-value_bytes=64", "-lean", "-histograms=1",
                "-jit_warmup_ops=1000", "-seed=7");
        BenchOptions w = o.forWarmup();
        assertEquals(BenchOptions.WARMUP_CACHE_BYTES, w.cache.cacheSize);
        assertEquals(250, w.opsPerThread);
        assertEquals(4, w.workload.threads);
        assertEquals(64, w.valueBytes);
        assertTrue(w.lean);
        assertFalse(w.histograms);
        assertEquals(0, w.jitWarmupOps);
        assertEquals(o.mix.lookupInsertPercent, w.mix.lookupInsertPercent);
        assertEquals(1L << 30, o.cache.cacheSize, "the measured run's options are untouched");
        assertEquals(400_000, parse().jitWarmupOps);
        assertEquals(1 << 20, parse("-cache_size=1048576").forWarmup().cache.cacheSize);
    }

    @Test
    void admissionIsTinyLfuByDefaultNoneOnRequestAndNothingElse() {
        assertEquals("tinylfu", parse().admission);
        assertEquals("none", parse("-admission=none").admission);
        BenchOptions tiny = parse("-cache_size=1048576");
        assertEquals("tinylfu", tiny.admission);
        try (var cache = CacheFactory.create(tiny.cacheSettings(1))) {
            assertEquals(0, cache.stats().admissionRejects());
        }
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> parse("-admission=lfu"));
        assertTrue(bad.getMessage().contains("-admission") && bad.getMessage().contains("lfu"),
                bad.getMessage());
    }

    @Test
    void defaultsAreCacheBenchDefaults() {
        BenchOptions o = parse();
        assertEquals("hyper_clock_cache", o.cache.cacheType); // as cache_bench
        assertEquals(16, o.workload.threads);
        assertEquals(1L << 30, o.cache.cacheSize);
        assertEquals(-1, o.cache.numShardBits);
        assertEquals(30, o.cache.evictionEffortCap);
        assertEquals(0.25, o.workload.residentRatio);
        assertEquals(2_000_000, o.opsPerThread);
        assertEquals(8192, o.valueBytes);
        assertEquals(0, o.valueBytesEstimate);
        assertEquals(0.5, o.compressibleToRatio);
        assertEquals(5, o.workload.skew);
        assertTrue(o.workload.populateCache);
        assertEquals(0.25, o.workload.pinnedRatio);
        assertEquals(0.0, o.cache.varyCapacityRatio);
        assertEquals(82, o.mix.lookupInsertPercent);
        assertEquals(2, o.mix.insertPercent);
        assertEquals(5, o.mix.blindInsertPercent);
        assertEquals(10, o.mix.lookupPercent);
        assertEquals(1, o.mix.erasePercent);
        assertEquals(0, o.usleep);
        assertFalse(o.lean);
        assertTrue(o.histograms);
        assertEquals(0, o.workload.seed);
        assertFalse(o.gatherStats);
        assertEquals(1000, o.gatherStatsSleepMs);
        assertEquals(256, o.gatherStatsEntriesPerLock);
        assertFalse(o.earlyExit);
        // derived: 1 GiB / 0.25 / 8 KiB
        assertEquals(524_288, o.maxKey());
        assertEquals(32_768, o.totalPinCount());
    }

    @Test
    void valuesAttachedSeparatedOrDoubleDash() {
        BenchOptions o = parse("-threads=2", "-cache_size", "1048576", "--value_bytes=256",
                "--ops_per_thread", "2000", "-cache_type=fixed_hyper_clock_cache",
                "-num_shard_bits=-1", "-resident_ratio", "0.5", "-seed=0x10");
        assertEquals(2, o.workload.threads);
        assertEquals(1_048_576, o.cache.cacheSize);
        assertEquals(256, o.valueBytes);
        assertEquals(2000, o.opsPerThread);
        assertEquals(-1, o.cache.numShardBits);
        assertEquals(0.5, o.workload.residentRatio);
        assertEquals(16, o.workload.seed);
        assertEquals(2, parse("-num_shard_bits", "2").cache.numShardBits);
    }

    @Test
    void booleansAcceptEveryGflagsSpelling() {
        assertTrue(parse("-lean").lean);
        assertTrue(parse("--lean").lean);
        assertTrue(parse("-lean=true").lean);
        assertTrue(parse("-lean=1").lean);
        assertTrue(parse("-lean=yes").lean);
        assertTrue(parse("-lean=T").lean);
        assertFalse(parse("-lean=false").lean);
        assertFalse(parse("-lean=0").lean);
        assertFalse(parse("-lean", "-nolean").lean);

        assertTrue(parse("-populate_cache").workload.populateCache);
        assertFalse(parse("-populate_cache=0").workload.populateCache);
        assertFalse(parse("-populate_cache=false").workload.populateCache);
        assertTrue(parse("-populate_cache=true").workload.populateCache);
        assertTrue(parse("-populate_cache=1").workload.populateCache);
        assertFalse(parse("-nopopulate_cache").workload.populateCache);
        assertFalse(parse("-histograms=0").histograms);
    }

    @Test
    void booleanNeverConsumesTheNextArgument() {
        // gflags: "-lean false" is -lean=true followed by a stray argument
        Object[] r = RunMain.run("bench", "-lean", "false");
        assertNotEquals(0, r[0]);
        assertTrue(((String) r[2]).contains("false"), (String) r[2]);
        BenchOptions o = parse("-lean", "-threads=3");
        assertTrue(o.lean);
        assertEquals(3, o.workload.threads);
    }

    @Test
    void badBooleanValueNamesTheFlag() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> parse("-lean=maybe"));
        assertTrue(e.getMessage().contains("-lean"), e.getMessage());
        Object[] r = RunMain.run("bench", "-populate_cache=2");
        assertNotEquals(0, r[0]);
        assertTrue(((String) r[2]).contains("-populate_cache"), (String) r[2]);
    }

    @Test
    void badNumbersNameTheFlag() {
        for (String[] bad : List.of(new String[] {"-threads=-1"}, new String[] {"-threads=abc"},
                new String[] {"-cache_size=1e9"}, new String[] {"-value_bytes=4294967296"},
                new String[] {"-resident_ratio=x"}, new String[] {"-num_shard_bits=1.5"})) {
            String flag = bad[0].substring(0, bad[0].indexOf('='));
            Object[] r = RunMain.run(prepend("bench", bad));
            assertEquals(2, r[0], bad[0]);
            assertTrue(((String) r[2]).contains(flag), r[2] + " should name " + flag);
        }
    }

    @Test
    void percentagesMustAddTo100() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("-erase_percent=2"));
        assertTrue(e.getMessage().contains("Percentages must add to 100"), e.getMessage());
        assertTrue(e.getMessage().contains("-erase_percent=2"), e.getMessage());
        assertTrue(e.getMessage().contains("= 101"), e.getMessage());

        Object[] r = RunMain.run("bench", "-lookup_insert_percent=50");
        assertNotEquals(0, r[0]);
        assertTrue(((String) r[2]).contains("-lookup_insert_percent=50"), (String) r[2]);

        BenchOptions ok = parse("-lookup_insert_percent=0", "-insert_percent=0",
                "-blind_insert_percent=0", "-lookup_percent=100", "-erase_percent=0");
        assertEquals(100, ok.mix.lookupPercent);
    }

    @Test
    void opThresholdsPartitionTheUint64Space() {
        BenchOptions o = parse();
        long hundredth = Long.divideUnsigned(-1L, 100);
        assertEquals(hundredth * 82, o.lookupInsertThreshold());
        assertEquals(hundredth * 84, o.insertThreshold());
        assertEquals(hundredth * 89, o.blindInsertThreshold());
        assertEquals(hundredth * 99, o.lookupThreshold());
        assertEquals(hundredth * 100, o.eraseThreshold());
        assertEquals("184467440737095516", Long.toUnsignedString(hundredth));
    }

    @Test
    void cacheTypes() {
        for (String t : List.of("fixed_hyper_clock_cache", "hyper_clock_cache",
                "auto_hyper_clock_cache", "lru_cache")) {
            assertEquals(t, parse("-cache_type=" + t).cache.cacheType);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("-cache_type=bogus"));
        assertTrue(e.getMessage().contains("unknown cache_type 'bogus'"), e.getMessage());
    }

    @Test
    void otherValidation() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("-threads=0"))
                .getMessage().contains("-threads"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("-value_bytes=0"))
                .getMessage().contains("-value_bytes"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> parse("-cache_size=100", "-value_bytes=200")).getMessage()
                .contains("-value_bytes=200 must not exceed -cache_size=100"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("-resident_ratio=0"))
                .getMessage().contains("-resident_ratio"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("-pinned_ratio=-1"))
                .getMessage().contains("-pinned_ratio"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> parse("-high_pri_pool_ratio=1.5")).getMessage()
                .contains("-high_pri_pool_ratio must be in [0, 1]"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> parse("-low_pri_pool_ratio=-0.1")).getMessage()
                .contains("-low_pri_pool_ratio must be in [0, 1]"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> parse("-high_pri_pool_ratio=0.7", "-low_pri_pool_ratio=0.4")).getMessage()
                .contains("must not exceed 1"));
    }

    @Test
    void poolRatiosDefaultAsInCacheBenchAndReachTheCache() {
        BenchOptions o = parse();
        assertEquals(0.5, o.cache.highPriPoolRatio);
        assertEquals(0.0, o.cache.lowPriPoolRatio);
        var settings = parse("-high_pri_pool_ratio=0.25", "-low_pri_pool_ratio=0.5")
                .cacheSettings(1);
        assertEquals(0.25, settings.highPriPoolRatio());
        assertEquals(0.5, settings.lowPriPoolRatio());
    }

    @Test
    void unknownFlagIsNamed() {
        Object[] r = RunMain.run("bench", "-no_such_flag=1");
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-no_such_flag"), (String) r[2]);
    }

    @Test
    void cacheBenchOnlyFlagsAreIgnoredWhenNeutralAndRejectedOtherwise() {
        assertEquals(2, parse("-gather_stats=false", "-report_problems", "-threads=2")
                .workload.threads);
        BenchOptions o = parse("-nogather_stats", "-report_problems=0", "-gather_stats_sleep_ms",
                "500", "-lean");
        assertTrue(o.lean);
        assertFalse(o.reportProblems);
        assertTrue(parse().reportProblems);
        // bench implements these four now: they are its own flags, not ignored ones
        assertTrue(parse("-gather_stats").gatherStats);
        assertEquals(500, parse("-gather_stats_sleep_ms", "500").gatherStatsSleepMs);
        assertTrue(parse("-early_exit").earlyExit);
        Object[] r = RunMain.run("bench", "-stress_cache_instances=3");
        assertNotEquals(0, r[0]);
        assertTrue(((String) r[2]).contains("-stress_cache_instances=3"), (String) r[2]);
    }

    @Test
    void degenerateHashBitsIsParsedAndValidated() {
        assertEquals(0, parse().degenerateHashBits);
        assertEquals(0, parse("-degenerate_hash_bits=0").degenerateHashBits);
        assertEquals(6, parse("-degenerate_hash_bits=6").degenerateHashBits);
        assertEquals(3, parse("-degenerate_hash_bits", "3").degenerateHashBits);
        assertEquals(63, parse("--degenerate_hash_bits=0x3f").degenerateHashBits);
        for (String bad : List.of("-1", "64", "1000")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> parse("-degenerate_hash_bits=" + bad));
            assertTrue(e.getMessage().contains("-degenerate_hash_bits"), e.getMessage());
            assertTrue(e.getMessage().contains("[0, 63]"), e.getMessage());
            Object[] r = RunMain.run("bench", "-degenerate_hash_bits=" + bad);
            assertEquals(2, r[0], bad);
            assertTrue(((String) r[2]).contains("-degenerate_hash_bits"), (String) r[2]);
        }
        Object[] r = RunMain.run("bench", "-degenerate_hash_bits=x");
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-degenerate_hash_bits"), (String) r[2]);
        // the warm-up runs the same keys
        assertEquals(5, parse("-degenerate_hash_bits=5").forWarmup().degenerateHashBits);
    }

    @Test
    void fileKeysIsParsedAndRefusedWithDegenerateKeys() {
        assertEquals(0, parse().fileKeys);
        assertEquals(4096, parse("-file_keys=4096").fileKeys);
        assertEquals(4096, parse("-file_keys=4096").forWarmup().fileKeys, "the warm-up's keys");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("-file_keys=4096", "-degenerate_hash_bits=3"));
        assertTrue(e.getMessage().contains("-file_keys"), e.getMessage());
        Object[] r = RunMain.run("bench", "-file_keys=16", "-threads=1", "-ops_per_thread=2000",
                "-cache_size=8000000", "-progress_interval=0");
        assertEquals(0, r[0], (String) r[2]);
        assertTrue(((String) r[1]).contains("Lookup hit ratio"), (String) r[1]);
    }

    @Test
    void verifyValuesIsABooleanDefaultingToFalse() {
        assertFalse(parse().verifyValues);
        assertTrue(parse("-verify_values").verifyValues);
        assertTrue(parse("--verify_values=yes").verifyValues);
        assertFalse(parse("-verify_values=0").verifyValues);
        assertFalse(parse("-verify_values", "-noverify_values").verifyValues);
        assertTrue(parse("-verify_values").forWarmup().verifyValues);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("-verify_values=2"));
        assertTrue(e.getMessage().contains("-verify_values"), e.getMessage());
    }

    @Test
    void cacheHashSeedIsTheSeedMaskedToInt32Max() {
        assertEquals(7, parse("-seed=7").cacheSettings(7).hashSeed());
        assertEquals(0x7FFF_FFFFL, parse().cacheSettings(0xFFFF_FFFFL).hashSeed());
        assertEquals(0x1234_5678L, parse().cacheSettings(0x9234_5678L).hashSeed());
    }

    @Test
    void helpListsEveryFlagWithItsDefault() {
        for (String h : List.of("--help", "-help", "-h")) {
            Object[] r = RunMain.run("bench", h);
            assertEquals(0, r[0], h);
            String help = (String) r[1];
            for (String flag : List.of("-cache_type", "-threads", "-cache_size", "-num_shard_bits",
                    "-eviction_effort_cap", "-resident_ratio", "-ops_per_thread", "-value_bytes",
                    "-value_bytes_estimate", "-compressible_to_ratio", "-skew", "-populate_cache",
                    "-pinned_ratio", "-lookup_insert_percent", "-insert_percent",
                    "-blind_insert_percent", "-lookup_percent", "-erase_percent", "-lean",
                    "-histograms", "-seed", "-report_problems", "-degenerate_hash_bits",
                    "-verify_values", "-gather_stats", "-gather_stats_sleep_ms",
                    "-gather_stats_entries_per_lock", "-early_exit")) {
                assertTrue(help.contains(flag), flag + " missing from help:\n" + help);
            }
            assertTrue(help.contains("Default: 82"), help);
        }
    }

    /** A first run on the defaults is long and large: the help says how long and how large. */
    @Test
    void helpSaysWhatARunOnTheDefaultsTakes() {
        String flat = ((String) RunMain.run("bench", "--help")[1]).replaceAll("\\s+", " ");
        assertTrue(flat.contains("16 threads doing 2,000,000 operations each (32 million in"
                + " all): about 1 to 2 minutes on 2 cores, and about 1.2 GiB of resident memory"),
                flat);
        assertTrue(flat.contains("-threads and -ops_per_thread set the time, -cache_size the"
                + " memory"), flat);
        assertTrue(!flat.contains("-report_on_stdout"), "hidden: " + flat);
    }

    /** The four flags follow their cache_bench neighbours in the help, with their defaults. */
    @Test
    void gatherStatsAndEarlyExitFlagsInTheHelp() {
        String help = (String) RunMain.run("bench", "--help")[1];
        // the option lines (descriptions mention some of the names too)
        int erase = help.indexOf("-erase_percent=<");
        int gather = help.indexOf("-gather_stats[=<");
        int sleep = help.indexOf("-gather_stats_sleep_ms=<");
        int perLock = help.indexOf("-gather_stats_entries_per_lock=<");
        int usleep = help.indexOf("-usleep=<");
        int lean = help.indexOf("-lean[=<");
        int early = help.indexOf("-early_exit[=<");
        int histograms = help.indexOf("-histograms[=<");
        assertTrue(erase > 0, help);
        assertTrue(erase < gather && gather < sleep && sleep < perLock && perLock < usleep
                && usleep < lean && lean < early && early < histograms, help);
        String flat = help.replaceAll("\\s+", " ");
        assertTrue(flat.contains("forEachEntry"), help);
        assertTrue(flat.contains("milliseconds between the end of one walk"), help);
        assertTrue(flat.contains("holds a shard's lock for at most this many records"), help);
        assertTrue(flat.contains("end the process (exit code 0)"), help);
        for (String d : List.of("Default: 1000", "Default: 256")) {
            assertTrue(help.contains(d), d + "\n" + help);
        }
    }

    @Test
    void gatherStatsFlagsAreCheckedAndKeptOutOfTheWarmup() {
        BenchOptions o = parse("-gather_stats", "-gather_stats_sleep_ms=0",
                "-gather_stats_entries_per_lock=1", "-early_exit");
        assertTrue(o.gatherStats);
        assertEquals(0, o.gatherStatsSleepMs);
        assertEquals(1, o.entriesPerLock());
        assertEquals(Integer.MAX_VALUE,
                parse("-gather_stats_entries_per_lock=4294967295").entriesPerLock());
        BenchOptions w = o.forWarmup();
        assertFalse(w.gatherStats, "the warm-up walks nothing");
        assertFalse(w.earlyExit, "the warm-up must not end the process");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("-gather_stats_entries_per_lock=0"));
        assertTrue(e.getMessage().contains("-gather_stats_entries_per_lock"), e.getMessage());
        RuntimeException bad = assertThrows(RuntimeException.class,
                () -> parse("-gather_stats_sleep_ms=-1"));
        assertTrue(bad.getMessage().contains("-gather_stats_sleep_ms"), bad.getMessage());
    }

    /** A run that exits early prints no JSON line, so -compare cannot use it: refused. */
    @Test
    void earlyExitWithCompareIsRefusedNamingBoth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("-early_exit", "-compare=lru_cache,fixed_hyper_clock_cache"));
        assertTrue(e.getMessage().contains("-early_exit") && e.getMessage().contains("-compare"),
                e.getMessage());
        Object[] r = RunMain.run("bench", "-compare=lru_cache", "-early_exit");
        assertEquals(2, r[0]);
        String err = (String) r[2];
        assertTrue(err.contains("-early_exit") && err.contains("-compare"), err);
        assertTrue(!((String) r[1]).contains("==="), "nothing ran:\n" + r[1]);
        // each alone is fine
        assertNull(parse("-early_exit").validate());
        assertNull(parse("-compare=lru_cache", "-noearly_exit").validate());
    }

    @Test
    void flagValuesListEveryFlagInHelpOrder() {
        BenchOptions o = parse("-value_bytes=300", "-skew=2", "-compare=lru_cache,"
                + "auto_hyper_clock_cache", "-gather_stats");
        var flags = o.flagValues();
        assertEquals("300", flags.get("value_bytes"));
        assertEquals("2", flags.get("skew"));
        assertEquals("30", flags.get("eviction_effort_cap"));
        assertEquals("0.25", flags.get("pinned_ratio"));
        assertEquals("0.25", flags.get("resident_ratio"));
        assertEquals("1073741824", flags.get("cache_size"));
        assertEquals("true", flags.get("gather_stats"));
        assertEquals("256", flags.get("gather_stats_entries_per_lock"));
        assertEquals("false", flags.get("early_exit"));
        assertEquals("lru_cache,auto_hyper_clock_cache", flags.get("compare"));
        assertEquals(List.of("cache_type", "threads", "cache_size"),
                flags.keySet().stream().limit(3).toList());
        assertFalse(flags.containsKey("help"));
        long options = Stream.of(BenchOptions.class, CacheFlags.class, WorkloadFlags.class,
                        OpMixFlags.class)
                .flatMap(c -> Arrays.stream(c.getDeclaredFields()))
                .filter(f -> f.isAnnotationPresent(CommandLine.Option.class)).count();
        assertEquals(options, flags.size(), flags.toString());
    }

    @Test
    void versionAndNoSubcommand() {
        Object[] r = RunMain.run("--version");
        assertEquals(0, r[0]);
        assertTrue(((String) r[1]).startsWith("clockwork "), (String) r[1]);
        r = RunMain.run();
        assertNotEquals(0, r[0]);
        assertTrue(((String) r[2]).contains("bench"), (String) r[2]);
    }

    // ---------------------------------------------------------------- counts and sizes

    private static String problem(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> parse(args)).getMessage();
    }

    /** Refused through the whole tool: usage error code 2, the message on stderr. */
    private static String refused(String... args) {
        Object[] r = RunMain.run(prepend("bench", args));
        assertEquals(2, r[0], "stdout:\n" + r[1] + "\nstderr:\n" + r[2]);
        assertFalse(((String) r[1]).contains("Number of threads"), "nothing ran:\n" + r[1]);
        return (String) r[2];
    }

    @Test
    void totalOpsMustFitALong() {
        String p = problem("-ops_per_thread=9223372036854775807", "-threads=2");
        assertEquals("-ops_per_thread=9223372036854775807 times -threads=2 is more than"
                + " 9223372036854775807 operations in all", p);
        assertTrue(refused("-ops_per_thread=9223372036854775807", "-threads=2")
                .contains("-ops_per_thread=9223372036854775807 times -threads=2"));
        assertEquals(Long.MAX_VALUE / 16, parse("-ops_per_thread=" + Long.MAX_VALUE / 16)
                .opsPerThread);
        assertTrue(problem("-ops_per_thread=" + (Long.MAX_VALUE / 16 + 1)).contains("-threads=16"));
        assertEquals(Long.MAX_VALUE, parse("-ops_per_thread=9223372036854775807", "-threads=1")
                .opsPerThread);
    }

    /** The progress line's share of ops done, exact for every long total. */
    @Test
    void progressPercentNeverOverflows() {
        assertEquals(100, BenchRun.percent(0, 0));
        assertEquals(0, BenchRun.percent(0, 3));
        assertEquals(33, BenchRun.percent(1, 3));
        assertEquals(100, BenchRun.percent(3, 3));
        long max = Long.MAX_VALUE;
        assertEquals(100, BenchRun.percent(max, max));
        assertEquals(99, BenchRun.percent(max - 1, max));
        assertEquals(50, BenchRun.percent(1L << 62, max));
        assertEquals(0, BenchRun.percent(4096, max));
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 10_000; i++) {
            long total = random.nextLong(1, max);
            long done = random.nextLong(0, total + 1);
            long expected = BigInteger.valueOf(done).multiply(
                    BigInteger.valueOf(100)).divide(BigInteger.valueOf(total))
                    .longValueExact();
            assertEquals(expected, BenchRun.percent(done, total), done + " of " + total);
        }
    }

    @Test
    void shardBitsSkewAndProgressIntervalAreBounded() {
        for (String bits : List.of("-2", "17", "1000")) {
            assertEquals("-num_shard_bits must be in [-1, 16], was " + Integer.parseInt(bits),
                    problem("-num_shard_bits=" + bits));
        }
        assertTrue(refused("-num_shard_bits=17").contains("-num_shard_bits must be in [-1, 16]"));
        assertEquals(16, parse("-num_shard_bits=16").cache.numShardBits);
        assertEquals(1000, parse("-skew=1000").workload.skew);
        assertTrue(problem("-skew=1001").startsWith("-skew=1001 is more than 1000"));
        assertTrue(refused("-skew=4294967295").contains("-skew=4294967295"));
        for (String interval : List.of("1e300", "Infinity", "NaN", "-1")) {
            assertTrue(problem("-progress_interval=" + interval).startsWith(
                    "-progress_interval must be in [0, 31536000] seconds"), interval);
        }
        assertEquals(31536000.0, parse("-progress_interval=31536000").progressInterval);
        assertTrue(problem("-cache_size=1000", "-value_bytes=10",
                "-vary_capacity_ratio=0.9999999999").contains("capacities below 1 byte"));
    }

    /**
     * cache_size = Long.MAX_VALUE: refused while something would be proportional to it (the
     * pinned handles, the population), and by the fixed table, whose slots it would need; with
     * neither, LRU and Auto run it as a cache that never evicts.
     */
    @Test
    void maxCacheSizeIsRefusedOrRuns() {
        String max = "-cache_size=9223372036854775807";
        assertEquals("clockwork bench: -cache_size=9223372036854775807: -pinned_ratio=0.25"
                + " (default) of -cache_size=9223372036854775807 in values of -value_bytes=8192"
                + " (default) over -threads=16 (default) pins 17592186044417 handles per thread,"
                + " more than 134217728: raise -value_bytes or -threads, or lower -pinned_ratio"
                + " or -cache_size", refused(max).strip());
        Assumptions.assumeTrue(
                ProcessStats.physicalMemoryBytes().isPresent());
        String p = refused(max, "-pinned_ratio=0");
        assertTrue(p.contains("-populate_cache fills the cache with about 9223372036854775807"
                + " bytes") && p.contains("more than this machine's memory")
                && p.contains("lower -cache_size, or pass -populate_cache=false"), p);
        p = refused(max, "-pinned_ratio=0", "-populate_cache=false",
                "-cache_type=fixed_hyper_clock_cache");
        // the slots a shard may have are the library's to set: the refusal must name the flags
        assertTrue(p.strip().matches("clockwork bench: -cache_size 9223372036854775807 with"
                + " -value_bytes 8192 needs 2\\^38 slots per shard, more than the 2\\^\\d+ a shard"
                + " may have with 64 shards: raise -value_bytes or -num_shard_bits, or lower"
                + " -cache_size"), p);
        for (String type : List.of("lru_cache", "auto_hyper_clock_cache")) {
            Object[] r = RunMain.run("bench", max, "-pinned_ratio=0", "-populate_cache=false",
                    "-cache_type=" + type, "-threads=2", "-ops_per_thread=2000",
                    "-jit_warmup_ops=0", "-histograms=0", "-progress_interval=0", "-seed=3");
            String out = (String) r[1];
            assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
            assertTrue(out.contains("Cache size          : 8388608.00 TB"), out);
            assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        }
    }

    /** A fixed table that could not hold one value is refused, in the flags' own names. */
    @Test
    void fixedTablesTooSmallForAValueAreRefusedNamingTheFlags() {
        String p = refused("-cache_type=fixed_hyper_clock_cache", "-cache_size=1048576",
                "-value_bytes=1024", "-value_bytes_estimate=2097152");
        assertTrue(p.contains("clockwork bench: -value_bytes_estimate 2097152 is larger than each"
                + " shard's share of -cache_size, 1048576 (-cache_size 1048576 over 1 shard): a"
                + " table sized for it holds no entry; lower -value_bytes_estimate or"
                + " -num_shard_bits, or raise -cache_size"), p);
        assertEquals("-value_bytes 262144 is larger than each shard's share of -cache_size, 131072"
                + " (-cache_size 1048576 over 8 shards): a table sized for it holds no entry;"
                + " lower -value_bytes or -num_shard_bits, or raise -cache_size",
                problem("-cache_type=fixed_hyper_clock_cache", "-cache_size=1048576",
                        "-value_bytes=262144", "-num_shard_bits=3"));
        // Other builder refusals are named by their flags too.
        assertEquals("-eviction_effort_cap must be in [1, 2147483647], was 0",
                problem("-eviction_effort_cap=0"));
        assertNull(parse("-eviction_effort_cap=0", "-cache_type=lru_cache").validate(),
                "LRU has no effort cap");
        // -compare checks every type before any runs.
        p = refused("-compare=lru_cache,fixed_hyper_clock_cache", "-cache_size=1048576",
                "-value_bytes=262144", "-num_shard_bits=3");
        assertTrue(p.contains("-compare: fixed_hyper_clock_cache: -value_bytes 262144 is larger"),
                p);
    }

    @Test
    void theWarmupCacheGrowsToTheRunsSizeWhenASmallOneCannotBeBuilt() {
        // 64 shards of 4 MiB hold 2 MiB values; the 64 MiB warm-up's 1 MiB shards would not.
        BenchOptions o = parse("-cache_type=fixed_hyper_clock_cache", "-cache_size=268435456",
                "-value_bytes=2097152", "-num_shard_bits=6");
        assertEquals(256L << 20, o.forWarmup().cache.cacheSize);
        assertEquals(BenchOptions.WARMUP_CACHE_BYTES, parse("-cache_size=268435456",
                "-value_bytes=2097152", "-num_shard_bits=6").forWarmup().cache.cacheSize, "Auto");
    }

    @Test
    void validDefaultsHaveNoProblem() {
        assertNull(parse().validate());
    }

    private static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    /** A value larger than the smallest capacity the wobble sets failed a worker mid-run. */
    @Test
    void valuesMustFitTheSmallestCapacity() {
        assertEquals("clockwork bench: -value_bytes=1048576 must not exceed the smallest"
                + " capacity, 524288: -cache_size=1048576 less -vary_capacity_ratio=0.5 of it",
                refused("-cache_size=1048576", "-value_bytes=1048576",
                        "-vary_capacity_ratio=0.5").strip());
    }

    /** The warm-up cache holds a value: a 64 MiB one refused each 128 MiB insert. */
    @Test
    void theWarmupCacheHoldsAValue() {
        assertEquals(128L << 20, parse("-value_bytes=134217728", "-cache_size=1073741824",
                "-threads=2").forWarmup().cache.cacheSize);
        assertEquals(BenchOptions.WARMUP_CACHE_BYTES, parse("-value_bytes=1048576")
                .forWarmup().cache.cacheSize);
    }

    /**
     * Each worker's ring of pinned handles is on the heap and its value buffer in native memory,
     * both allocated up front: 65,536 rings of 131,073 handles were 64 GiB of heap, 64 workers
     * with 1 GiB values 64 GiB of native memory (the machine killed the process).
     */
    @Test
    void workersBuffersMustFitTheHeapAndTheMachine() {
        String heap = refused("-threads=65536", "-cache_size=1099511627776", "-value_bytes=64",
                "-pinned_ratio=0.5", "-populate_cache=false").strip();
        assertTrue(heap.startsWith("clockwork bench: -threads=65536 workers hold 1048584 bytes"
                + " of heap each (a ring of 131073 pinned handles: -pinned_ratio=0.5 of"
                + " -cache_size=1099511627776 in values of -value_bytes=64), "), heap);
        assertTrue(heap.contains("more than 75% of the JVM's maximum heap"), heap);
        if (ProcessStats.physicalMemoryBytes().isPresent()) {
            String memory = refused("-threads=65536", "-value_bytes=1073741824",
                    "-cache_size=2147483648", "-populate_cache=false", "-verify_values").strip();
            assertTrue(memory.startsWith("clockwork bench: -threads=65536 workers hold 2147483656"
                    + " bytes of native memory each (-value_bytes=1073741824, twice with"
                    + " -verify_values), 140737488879616 in all, more than this machine's"
                    + " memory"), memory);
        }
    }
}
