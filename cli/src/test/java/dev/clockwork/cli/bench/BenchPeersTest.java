package dev.clockwork.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cli.RunMain;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The peers as bench cache types, the JVM's bill in every report, the block-cache preset and
 * -compare's per-entry JVMs: tiny real runs.
 */
class BenchPeersTest {

    /** Each peer runs cache_bench's workload and reports like a Clockwork type, bill included. */
    @ParameterizedTest
    @ValueSource(strings = {"caffeine", "ohc_linked", "ohc_chunked"})
    void aPeerRunsTheWorkloadAndReportsTheBill(String type) {
        Object[] r = RunMain.run("bench", "-cache_type=" + type, "-cache_size=8388608",
                "-threads=2", "-ops_per_thread=20000", "-value_bytes=1024", "-seed=7",
                "-jit_warmup_ops=0", "-json");
        assertEquals(0, r[0], "stdout:\n" + r[1] + "\nstderr:\n" + r[2]);
        String report = (String) r[2];
        BenchResult result = BenchResult.fromJson(((String) r[1]).strip());
        assertEquals(type, result.cacheType());
        assertEquals(40_000, Math.round(result.parallelOpsPerSec() * result.elapsedSecs()), 400);
        assertTrue(result.hitRatio() > 0.3 && result.hitRatio() < 1, "hit " + result.hitRatio());
        assertTrue(result.entries() > 0 && result.entries() <= 8388608 / 1024, "entries");
        assertEquals(0, result.table().pinnedCount(), "a peer holds no handles");
        assertNotNull(result.allOps());
        assertEquals(40_000, result.allOps().count());
        assertTrue(result.allOps().p50() <= result.allOps().p9999()
                && result.allOps().p9999() <= result.allOps().max());
        assertNotNull(result.bill());
        assertTrue(result.bill().cpuNanos() > 0, "CPU time is counted");
        assertTrue(result.rssBytes() > 0);
        assertTrue(report.contains("Cache impl name     : " + (type.equals("caffeine")
                ? "Caffeine" : "OHC")), report);
        assertTrue(report.contains("All operations (ns): P50 "), report);
        assertTrue(report.matches("(?s).*\nSlowest operation: \\d+\\.\\d{3} ms, [a-z_]+ by thread"
                + " [01], \\d+\\.\\d{3} s into the timed run\n.*"), report);
        assertTrue(report.matches("(?s).*\nGC: \\d+ pauses, \\d+ ms in all, .*"), report);
        assertTrue(report.contains("CPU: "), report);
        assertTrue(report.contains("Platform stalls (a thread sleeping 1 ms at a time, as"
                + " jHiccup): P99.9 "), report);
        assertNotNull(result.stalls());
        assertTrue(result.stalls().maxNanos() >= result.stalls().p999Nanos());
        assertTrue(report.contains("RSS at the end of the run: "), report);
    }

    /** A Clockwork run's JSON carries the bill too, with the tail over all ops. */
    @Test
    void aClockworkRunReportsTheBill() {
        Object[] r = RunMain.run("bench", "-cache_type=lru_cache", "-cache_size=4194304",
                "-threads=1", "-ops_per_thread=5000", "-value_bytes=512", "-seed=3",
                "-jit_warmup_ops=0", "-json");
        assertEquals(0, r[0], "stderr:\n" + r[2]);
        String line = ((String) r[1]).strip();
        assertTrue(line.contains("\"latency_all_ns\":{\"count\":5000,"), line);
        assertTrue(line.contains("\"jvm\":{\"collector\":"), line);
        assertTrue(line.contains("\"cpu_ns_per_op\":"), line);
        assertTrue(line.contains("\"rss_bytes\":"), line);
    }

    /** What a peer cannot do is refused before anything runs, naming the flag. */
    @Test
    void peersRefuseWhatNeedsClockwork() {
        Object[] verify = RunMain.run("bench", "-cache_type=caffeine", "-verify_values",
                "-cache_size=8388608");
        assertEquals(2, verify[0]);
        assertTrue(((String) verify[2]).contains("-verify_values checks values in a Clockwork"
                + " cache; caffeine is not one"), (String) verify[2]);
        Object[] gather = RunMain.run("bench", "-compare=lru_cache,ohc_linked", "-gather_stats",
                "-cache_size=8388608");
        assertEquals(2, gather[0]);
        assertTrue(((String) gather[2]).contains("-gather_stats walks a Clockwork cache's"
                + " entries; ohc_linked is not one"), (String) gather[2]);
    }

    /** Caffeine in a JVM whose heap cannot hold the cache: refused, saying how to size it. */
    @Test
    void caffeineRefusesAHeapTooSmallForTheCache() {
        long tooBig = Runtime.getRuntime().maxMemory();
        Object[] r = RunMain.run("bench", "-cache_type=caffeine", "-cache_size=" + tooBig);
        assertEquals(2, r[0]);
        String err = (String) r[2];
        assertTrue(err.contains("-cache_type=caffeine holds the cache on the Java heap"), err);
        assertTrue(err.contains("raise -Xmx"), err);
    }

    /**
     * -compare starts each entry's JVM by the heap rule with the collector it names: Caffeine
     * at twice the capacity (at least 1 GiB) on ZGC, an off-heap type at 512 MiB.
     */
    @Test
    void compareSizesEachJvmByItsEntry() {
        Object[] r = RunMain.run("bench", "-cache_size=4194304", "-threads=1",
                "-ops_per_thread=3000", "-value_bytes=512", "-seed=5", "-jit_warmup_ops=0",
                "-compare=lru_cache,caffeine:zgc");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        int lru = out.indexOf("=== -cache_type=lru_cache (a JVM of its own: -Xmx512m) ===");
        int caffeine = out.indexOf("=== -cache_type=caffeine (a JVM of its own: -Xms1024m"
                + " -Xmx1024m -XX:+UseZGC) ===");
        assertTrue(lru >= 0 && caffeine > lru, out);
        assertTrue(out.indexOf("Max heap            : 512 MiB", lru) < caffeine, out);
        assertTrue(out.indexOf("Max heap            : 1024 MiB", caffeine) > caffeine, out);
        assertTrue(out.indexOf("Garbage collector   : ZGC", caffeine) > caffeine, out);
        int table = out.indexOf("Latency over all operations (us), the JVM's bill");
        assertTrue(table > caffeine, out);
        assertTrue(out.substring(table).contains("\ncaffeine:zgc "), out);
    }

    /**
     * -preset=block_cache: the block mix, scans and a timed run, with the scan kind reported;
     * a flag given on the command line wins over the preset.
     */
    @Test
    void theBlockCachePresetRunsScansOfMixedBlocksForItsDuration() {
        Object[] r = RunMain.run("bench", "-preset=block_cache",
                "-cache_type=fixed_hyper_clock_cache",
                "-cache_size=16777216", "-threads=2", "-duration=0.5", "-seed=9",
                "-jit_warmup_ops=0", "-json");
        assertEquals(0, r[0], "stderr:\n" + r[2]);
        String report = (String) r[2];
        assertTrue(report.contains("Value bytes         : mix of 4096, 8192, 16384 (mean 9557)"),
                report);
        assertTrue(report.contains("Scan percentage     : 5% (scans of 4096 keys)"), report);
        assertTrue(report.contains("Duration            : 0.5 s"), report);
        assertTrue(report.contains("Resident ratio      : 0.333333"), report);
        assertTrue(report.contains("Pinned ratio        : 0\n"), report);
        BenchResult result = BenchResult.fromJson(((String) r[1]).strip());
        assertTrue(result.elapsedSecs() >= 0.5 && result.elapsedSecs() < 5,
                "timed by -duration: " + result.elapsedSecs());
        assertEquals(List.of("lookup_insert", "scan"),
                result.latency().stream().map(OpLatency::op).toList());
        long scans = result.latency().get(1).count();
        long all = result.allOps().count();
        assertTrue(scans > all * 0.03 && scans < all * 0.07, scans + " scans of " + all);
        assertEquals("4096", result.flags().get("file_keys"));
        assertTrue(!result.partial());
    }

    /**
     * Population goes on past inserts an admission policy turns away (they are not found
     * after), where it used to stop the run as if the cache had lost an accepted insert.
     */
    @Test
    void populationGoesOnPastInsertsAdmissionRefuses() {
        Object[] r = RunMain.run("bench", "-preset=block_cache", "-admission=tinylfu",
                "-cache_type=auto_hyper_clock_cache", "-cache_size=16777216", "-threads=1",
                "-duration=0.2", "-seed=2", "-jit_warmup_ops=0");
        assertEquals(0, r[0], "stdout:\n" + r[1] + "\nstderr:\n" + r[2]);
        assertTrue(((String) r[1]).contains("Admission           : tinylfu"), (String) r[1]);
    }

    @Test
    void aFlagGivenOnTheCommandLineOverridesThePreset() {
        Object[] r = RunMain.run("bench", "-preset=block_cache", "-cache_type=lru_cache",
                "-cache_size=8388608", "-threads=1", "-value_bytes=4096", "-skew=0",
                "-duration=0.2", "-jit_warmup_ops=0", "-lookup_percent=100",
                "-lookup_insert_percent=0", "-insert_percent=0", "-blind_insert_percent=0",
                "-erase_percent=0");
        assertEquals(0, r[0], "stderr:\n" + r[2]);
        String report = (String) r[1];
        assertTrue(report.contains("Value bytes         : 4096\n"), report);
        assertTrue(report.contains("Skew degree         : 0\n"), report);
        assertTrue(report.contains("Lookup percentage   : 100%"), report);
        assertTrue(!report.contains("Scan percentage"), report);
    }

    @Test
    void aMixAndAFixedSizeAreNotBothGiven() {
        Object[] r = RunMain.run("bench", "-value_bytes=4096", "-value_bytes_mix=4096,8192");
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-value_bytes and -value_bytes_mix: give one"),
                (String) r[2]);
        Object[] bad = RunMain.run("bench", "-value_bytes_mix=4096,0");
        assertEquals(2, bad[0]);
        assertTrue(((String) bad[2]).contains("-value_bytes_mix: every size must be in [1, "),
                (String) bad[2]);
        Object[] preset = RunMain.run("bench", "-preset=no_such");
        assertEquals(2, preset[0]);
        assertTrue(((String) preset[2]).contains("-preset must be one of none, block_cache"),
                (String) preset[2]);
    }
}
