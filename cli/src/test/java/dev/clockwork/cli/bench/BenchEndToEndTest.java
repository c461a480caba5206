package dev.clockwork.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.Main;
import dev.clockwork.cli.RunMain;
import dev.clockwork.cli.caches.ClockworkTarget;
import dev.clockwork.cli.common.Json;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.cli.workload.Hiccups;
import dev.clockwork.cli.workload.JvmBill;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A tiny real run against the real cache. */
class BenchEndToEndTest {

    @Test
    void tinyRun() {
        Object[] r = RunMain.run("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-seed=1",
                "-cache_type=fixed_hyper_clock_cache");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Population complete ("), out);
        assertTrue(out.contains("Cache impl name     : FixedHyperClockCache"), out);
        assertTrue(out.contains("Rough parallel ops/sec = "), out);
        assertTrue(out.contains("Thread ops/sec = "), out);
        assertTrue(out.contains("Lookup hit ratio: "), out);
        assertTrue(out.contains("Final load factor: "), out);
        assertTrue(out.contains("Final pinned count: "), out);
        assertTrue(out.contains("Operation latency (ns):"), out);
        assertTrue(out.contains("Percentiles: P50: "), out);
        assertTrue(out.contains("Max RSS: "), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        // the table diagnostics are part of the report: stdout, as in -compare
        assertTrue(out.matches("(?s).*Slot occupancy stats: Overall \\d+% \\(\\d+/\\d+\\),"
                + " Min/Max/Window = \\d+%/\\d+%/\\d+, MaxRun\\{Pos/Neg\\} = \\d+/\\d+\n.*"), out);
        assertTrue(out.contains("Eviction effort exceeded: "), out);
        assertEquals("", r[2], "stderr is for progress only");
    }

    /**
     * -compare runs the same workload on each type in turn, each in a child JVM whose report is
     * copied through, and ends with one table whose first row is the 1.00x base.
     */
    @Test
    void compareRunsEveryTypeAndTabulatesRatios() {
        Object[] r = RunMain.run("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0",
                "-compare=lru_cache,fixed_hyper_clock_cache,auto_hyper_clock_cache");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        String[] types = {"lru_cache", "fixed_hyper_clock_cache", "auto_hyper_clock_cache"};
        String[] impls = {"LruCache", "FixedHyperClockCache", "AutoHyperClockCache"};
        int from = 0;
        for (int i = 0; i < types.length; i++) {
            int header = out.indexOf("=== -cache_type=" + types[i] + " (a JVM of its own: -Xmx512m)"
                    + " ===", from);
            assertTrue(header >= from, "no run of " + types[i] + " after the previous one:\n"
                    + out);
            int impl = out.indexOf("Cache impl name     : " + impls[i], header);
            int headline = out.indexOf("Rough parallel ops/sec = ", header);
            assertTrue(impl > header && headline > impl, "run of " + types[i] + ":\n" + out);
            from = headline;
        }
        int table = out.indexOf("Comparison (same flags and seed; ratio = rough parallel ops/sec"
                + " over lru_cache's):", from);
        assertTrue(table > 0, out);
        String[] rows = out.substring(table).split("\n");
        assertTrue(rows[1].startsWith("entry"), rows[1]);
        for (int i = 0; i < types.length; i++) {
            assertTrue(rows[2 + i].matches(types[i] + " +\\d+ +\\d+\\.\\d\\dx +0\\.\\d{4}"
                    + " +\\d+ +[0-9.]+"), rows[2 + i]);
        }
        assertTrue(rows[2].contains(" 1.00x "), rows[2]);
        assertEquals(3, out.split("Native memory after close: 0 bytes", -1).length - 1, out);
        // each child's diagnostics come with its report, as in a run alone
        assertEquals(2, out.split("Slot occupancy stats: ", -1).length - 1, out);
        assertTrue(out.contains("Pool usage: high "), out);
        assertEquals("", r[2], "stderr is for progress only");
    }

    /** -compare: the children's progress lines go to stderr, their reports to stdout. */
    @Test
    void compareKeepsTheChildrensProgressOnStderr() {
        Object[] r = RunMain.run("bench", "-cache_size=4194304", "-threads=2",
                "-ops_per_thread=300000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0",
                "-progress_interval=0.02", "-compare=lru_cache");
        String out = (String) r[1];
        String err = (String) r[2];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + err);
        assertTrue(err.contains("progress: "), err);
        assertTrue(!out.contains("progress: "), out);
        assertTrue(out.contains("Pool usage: high ") && !err.contains("Pool usage"), out);
    }

    /** The warm-up's progress lines say they are the warm-up's. */
    @Test
    void warmupProgressLinesAreLabelled() {
        Object[] r = RunMain.run("bench", "-cache_size=4194304", "-threads=2",
                "-ops_per_thread=1000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=600000",
                "-progress_interval=0.02", "-cache_type=auto_hyper_clock_cache");
        String err = (String) r[2];
        assertEquals(0, r[0], "stderr:\n" + err);
        assertTrue(err.matches("(?s).*warm-up: \\d+% \\(\\d+ of 600000 ops\\), \\d+ ops/sec"
                + " over the last \\d+\\.\\d s\n.*"), err);
    }

    /**
     * -json: standard output is one JSON line with the run's figures; the report goes to stderr.
     */
    @Test
    void jsonPrintsOneLineOfFiguresAndTheReportOnStderr() {
        Object[] r = RunMain.run("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0",
                "-cache_type=lru_cache", "-json");
        String out = (String) r[1];
        String err = (String) r[2];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + err);
        String[] lines = out.strip().split("\n");
        assertEquals(1, lines.length, out);
        BenchResult result = BenchResult.fromJson(lines[0]);
        assertEquals("lru_cache", result.cacheType());
        assertEquals(2, result.threads());
        assertEquals(2000, result.opsPerThread());
        assertTrue(result.parallelOpsPerSec() > 0 && result.threadOpsPerSec() > 0, out);
        assertTrue(result.hitRatio() >= 0 && result.hitRatio() <= 1, out);
        assertTrue(result.entries() > 0 && result.nativeBytes() > 0, out);
        assertTrue(result.heapUsedBytes() > 0, out);
        assertEquals(result, BenchResult.fromJson(result.toJson()));
        List<String> ops = result.latency().stream().map(OpLatency::op).toList();
        assertTrue(ops.containsAll(List.of("lookup_insert", "insert", "blind_insert", "lookup",
                "erase")), ops.toString());
        long timed = 0;
        for (OpLatency l : result.latency()) {
            assertTrue(l.count() > 0 && l.p50() <= l.p99() && l.p99() <= l.p999()
                    && l.p999() <= l.max(), l.toString());
            timed += l.count();
        }
        assertEquals(2 * 2000, timed, "every op is timed under exactly one kind");
        assertTrue(err.contains("Latency by operation (ns; Clockwork):"), err);
        assertTrue(err.contains("Rough parallel ops/sec = " + result.parallelOpsPerSec()), err);
        assertTrue(err.contains("Native memory after close: 0 bytes"), err);
        // flags and table (LRU: no slots, no effort cap; the pinned count only)
        assertEquals("256", result.flags().get("value_bytes"));
        assertEquals("1", result.flags().get("seed"));
        assertEquals("lru_cache", result.flags().get("cache_type"));
        assertEquals(-1, result.table().slots());
        assertEquals(-1, result.table().evictionEffortExceeded());
        assertTrue(err.contains("Final pinned count: " + result.table().pinnedCount() + "\n"),
                err);
        assertTrue(!lines[0].contains("\"slots\"") && !lines[0].contains("gather_stats_us"),
                lines[0]);
    }

    /**
     * -json on a HyperClock cache with -gather_stats: every flag with its value, the table
     * figures the report prints, the walks' latency; all read back equal.
     */
    @Test
    void jsonCarriesFlagsTableAndGatherStats() {
        Object[] r = RunMain.run("bench", "-cache_size=4194304", "-threads=2",
                "-ops_per_thread=20000", "-value_bytes=512", "-seed=5", "-jit_warmup_ops=0",
                "-cache_type=fixed_hyper_clock_cache", "-eviction_effort_cap=7",
                "-pinned_ratio=0.1", "-resident_ratio=0.5", "-skew=3", "-gather_stats",
                "-gather_stats_sleep_ms=0", "-gather_stats_entries_per_lock=32", "-json");
        String out = (String) r[1];
        String err = (String) r[2];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + err);
        String line = out.strip();
        BenchResult result = BenchResult.fromJson(line);
        var flags = result.flags();
        assertEquals("512", flags.get("value_bytes"));
        assertEquals("7", flags.get("eviction_effort_cap"));
        assertEquals("0.1", flags.get("pinned_ratio"));
        assertEquals("4194304", flags.get("cache_size"));
        assertEquals("0.5", flags.get("resident_ratio"));
        assertEquals("3", flags.get("skew"));
        assertEquals("true", flags.get("gather_stats"));
        assertEquals("0", flags.get("gather_stats_sleep_ms"));
        assertEquals("32", flags.get("gather_stats_entries_per_lock"));
        assertEquals("fixed_hyper_clock_cache", flags.get("cache_type"));
        assertTrue(flags.size() >= 36, "every flag: " + flags);
        // in the line itself, numbers and booleans are JSON numbers and booleans
        var typed = Json.read(line).get("flags");
        assertTrue(typed.get("value_bytes").isIntegralNumber(), typed.toString());
        assertTrue(typed.get("num_shard_bits").isIntegralNumber(), typed.toString());
        assertTrue(typed.get("pinned_ratio").isDouble(), typed.toString());
        assertTrue(typed.get("gather_stats").isBoolean() && typed.get("json").isBoolean(),
                typed.toString());
        assertTrue(typed.get("cache_type").isTextual(), typed.toString());
        BenchResult.TableStats table = result.table();
        assertTrue(err.contains("Final load factor: ") && err.contains(" (" + table.occupancy()
                + " / " + table.slots() + ")\n"), err);
        assertTrue(table.slots() > 0 && table.evictionEffortExceeded() >= 0, line);
        assertTrue(err.contains("Final pinned count: " + table.pinnedCount() + "\n"), err);
        assertTrue(line.contains("\"load_factor\":"), line);
        OpLatency walks = result.gatherStats();
        assertEquals(BenchResult.GATHER_STATS, walks.op());
        assertTrue(walks.count() > 0 && walks.p50() <= walks.p99() && walks.p99() <= walks.p999()
                && walks.p999() <= walks.max(), walks.toString());
        assertTrue(err.contains("Gather stats latency (us):\nCount: " + walks.count() + " "),
                err);
        assertEquals(result, BenchResult.fromJson(result.toJson()));
        // The latency table is unchanged by the walks' entry.
        assertTrue(result.latency().stream()
                .noneMatch(l -> l.op().equals(BenchResult.GATHER_STATS)));
        // The first fields are those of the first version, in their order.
        assertTrue(line.startsWith("{\"tool\":\"clockwork bench\",\"cache_type\":"
                + "\"fixed_hyper_clock_cache\",\"threads\":2,\"ops_per_thread\":20000,"
                + "\"elapsed_s\":"), line);
    }

    /** Lines of the first version (no flags, table or walks) and unknown fields still read. */
    @Test
    void fromJsonIsTolerant() {
        String old = "{\"tool\":\"clockwork bench\",\"cache_type\":\"lru_cache\",\"threads\":2,"
                + "\"ops_per_thread\":10,\"elapsed_s\":0.5,\"rough_parallel_ops_per_sec\":40,"
                + "\"thread_ops_per_sec\":20,\"lookup_hit_ratio\":0.5,\"entries\":3,"
                + "\"native_bytes\":100,\"max_rss_bytes\":-1,\"heap_used_bytes\":9,"
                + "\"latency_ns\":{\"lookup\":{\"count\":5,\"p50\":1,\"p99\":2,\"p99_9\":3,"
                + "\"max\":4}},\"future_field\":{\"x\":\"y\"}}";
        BenchResult r = BenchResult.fromJson(old);
        assertEquals("lru_cache", r.cacheType());
        assertEquals(List.of(new OpLatency("lookup", 5, 1, 2, 3, 0, 4)), r.latency());
        assertEquals(null, r.allOps());
        assertEquals(null, r.bill());
        assertEquals(Map.of(), r.flags());
        assertEquals(null, r.table());
        assertEquals(null, r.gatherStats());
        // A value needing escapes survives the round trip.
        BenchResult odd = new BenchResult("lru_cache", 1, 1, 1, 1, 1, 0, 0, 0, -1, 0, List.of(),
                Map.of("weird", "a\"b\\c,d:{e}"), new BenchResult.TableStats(-1, -1, -1, 4),
                null, true, new OpLatency(OpLatency.ALL, 9, 1, 2, 3, 4, 5),
                new JvmBill.Bill("G1 Young Generation", 3, 40, 20, 0,
                        0, 1 << 20, 2 << 20, 1 << 30, 123_456),
                new Hiccups.Seen(1_000, 2_000, 30), 7 << 20);
        assertEquals(odd, BenchResult.fromJson(odd.toJson()));
    }

    /**
     * -gather_stats: the header says so, the walks' latency follows the other histograms, and
     * the last walk's findings end the report (table occupancy only where there is a table).
     */
    @ParameterizedTest
    @ValueSource(strings = {"fixed_hyper_clock_cache", "auto_hyper_clock_cache", "lru_cache"})
    void gatherStatsReportsWalksAndTheLastOne(String type) {
        Object[] r = RunMain.run("bench", "-cache_type=" + type, "-cache_size=4194304",
                "-threads=2", "-ops_per_thread=20000", "-value_bytes=512", "-seed=2",
                "-jit_warmup_ops=0", "-gather_stats", "-gather_stats_sleep_ms=0",
                "-gather_stats_entries_per_lock=16", "-verify_values");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Gather stats        : enabled (0ms, 16/lock)\n"), out);
        int histogram = out.indexOf("Operation latency (ns):");
        int walks = out.indexOf("\nGather stats latency (us):\nCount: ");
        int last = out.indexOf("\nMost recent cache entry stats:\nNumber of entries: ");
        assertTrue(histogram > 0 && walks > histogram && last > walks, out);
        assertTrue(out.matches("(?s).*\nNumber of entries: [1-9]\\d*\n.*"), out);
        assertEquals(!type.equals("lru_cache"),
                out.matches("(?s).*\nTable occupancy: \\d+ / \\d+ = [0-9.]+%\n.*"), out);
        // every charge is value_bytes = 512 bytes, every key 16 bytes
        assertTrue(out.matches("(?s).*\nTotal charge: [0-9.]+ [KMG]B\nAverage key size: 16\n"
                + "Average charge: 0\\.50 KB\n.*"), out);
        assertTrue(out.contains("Value verification failures: 0"), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        Object[] off = RunMain.run("bench", "-cache_type=" + type,
                "-cache_size=1048576", "-threads=2", "-ops_per_thread=1000", "-value_bytes=256",
                "-seed=2", "-jit_warmup_ops=0");
        assertTrue(((String) off[1]).contains("Gather stats        : disabled\n"), (String) off[1]);
        assertTrue(!((String) off[1]).contains("Most recent cache entry stats"), (String) off[1]);
    }

    /**
     * -early_exit ends the process (exit code 0) as soon as a worker is done: the header is
     * printed, no report and no JSON line. Run in a child JVM, since it halts its JVM.
     */
    @Test
    void earlyExitEndsTheProcessAfterTheHeader() throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.addAll(List.of("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=5000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0",
                "-early_exit", "-json"));
        Process child = new ProcessBuilder(command).start();
        child.getOutputStream().close();
        var stderr = new CompletableFuture<String>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                stderr.complete(new String(child.getErrorStream().readAllBytes(),
                        StandardCharsets.UTF_8));
            } catch (IOException e) {
                stderr.completeExceptionally(e);
            }
        });
        String stdout = new String(child.getInputStream().readAllBytes(),
                StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child hangs");
        String err = stderr.get(60, TimeUnit.SECONDS);
        assertEquals(0, child.exitValue(), "stdout:\n" + stdout + "\nstderr:\n" + err);
        assertEquals("", stdout.strip(), "no JSON line after an early exit");
        assertTrue(err.contains("Population complete (") && err.contains("Cache impl name     : "),
                err);
        assertTrue(!err.contains("Complete in") && !err.contains("Native memory after close"),
                err);
    }

    /** A run longer than -progress_interval prints progress lines on stderr while it runs. */
    @Test
    void progressLinesDuringTheRun() {
        Object[] r = RunMain.run("bench", "-cache_size=4194304", "-threads=2",
                "-ops_per_thread=300000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0",
                "-cache_type=auto_hyper_clock_cache", "-progress_interval=0.02");
        String err = (String) r[2];
        assertEquals(0, r[0], "stderr:\n" + err);
        assertTrue(err.matches("(?s).*progress: \\d+% \\(\\d+ of 600000 ops\\), \\d+ ops/sec over"
                + " the last \\d+\\.\\d s\n.*"), err);
        Object[] quiet = RunMain.run("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0",
                "-progress_interval=0");
        assertEquals(0, quiet[0]);
        assertTrue(!((String) quiet[2]).contains("progress: "), (String) quiet[2]);
    }

    @Test
    void compareRefusesAnUnknownTypeNamingTheFlag() {
        Object[] r = RunMain.run("bench", "-compare=lru_cache,no_such_cache");
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-compare: unknown cache_type 'no_such_cache'"),
                (String) r[2]);
    }

    @Test
    void defaultTypeIsAutoAndReportsItsChains() {
        Object[] r = RunMain.run("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Cache impl name     : AutoHyperClockCache"), out);
        assertTrue(out.contains("Final load factor: "), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        assertTrue(out.matches("(?s).*Head occupancy \\d+% \\(\\d+/\\d+\\), entries at home"
                + " \\d+% \\(\\d+/\\d+\\), longest chain \\d+, yield count \\d+,"
                + " lookup restarts \\d+\n.*"), out);
        assertTrue(out.contains("Table reservation: "), out);
    }

    @Test
    void lruRunReportsItsPools() {
        Object[] r = RunMain.run("bench", "-cache_type=lru_cache",
                "-cache_size=1048576", "-threads=2", "-ops_per_thread=4000", "-value_bytes=256",
                "-seed=1", "-jit_warmup_ops=0", "-high_pri_pool_ratio=0.3",
                "-low_pri_pool_ratio=0.3", "-verify_values");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Cache impl name     : LruCache"), out);
        assertTrue(out.contains("High pri pool ratio : 0.3"), out);
        assertTrue(out.contains("Low pri pool ratio  : 0.3"), out);
        assertTrue(out.contains("Value verification failures: 0"), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        assertTrue(out.matches("(?s).*Pool usage: high [0-9.]+ MiB, low [0-9.]+ MiB, bottom"
                + " [0-9.]+ MiB, pinned [0-9.]+ MiB\n.*"), out);
        assertTrue(out.matches("(?s).*Entries: \\d+, index and records: [0-9.]+ MiB"
                + " \\([0-9.]+ bytes per entry\\)\n.*"), out);
        assertTrue(!out.contains("Slot occupancy stats"), out);
    }

    @Test
    void leanWithoutPopulationOrHistograms() {
        Object[] r = RunMain.run("bench", "-cache_size=1048576", "-threads=3",
                "-ops_per_thread=1000", "-value_bytes=1000", "-lean", "-populate_cache=0",
                "-histograms=false", "-pinned_ratio=0", "-noreport_problems");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.startsWith("Using seed = " + (ProcessHandle.current().pid() & 0xFFFFFFFFL)),
                out);
        assertTrue(!out.contains("Population complete"), out);
        assertTrue(!out.contains("Operation latency"), out);
        assertTrue(out.contains("Final pinned count: 0"), out);
        assertTrue(!out.contains("Slot occupancy stats"), out);
        assertTrue(out.contains("Rough parallel ops/sec = "), out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"fixed_hyper_clock_cache", "auto_hyper_clock_cache", "lru_cache"})
    void degenerateKeysWithVerifiedValues(String type) {
        Object[] r = RunMain.run("bench", "-cache_type=" + type, "-cache_size=8000000",
                "-threads=4", "-populate_cache=0", "-ops_per_thread=20000",
                "-degenerate_hash_bits=6", "-num_shard_bits=0", "-verify_values",
                "-jit_warmup_ops=0");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Value verification failures: 0\n"), out);
        assertTrue(out.contains("Degenerate hash bits: 6"), out);
        assertTrue(out.contains("Lookup hit ratio: "), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
    }

    @Test
    void verificationFailuresAreReportedWithExitCode3() {
        BenchOptions o = BenchFlagsTest.parse("-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-verify_values", "-histograms=0",
                "-noreport_problems");
        long seed = 11;
        Cache real = CacheFactory.create(o.cacheSettings(seed));
        AtomicLong copies = new AtomicLong();
        // a cache whose every 50th value read comes back with one byte flipped
        Cache corrupting = (Cache) Proxy.newProxyInstance(Cache.class.getClassLoader(),
                new Class<?>[] {Cache.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("copyValue") && args[1] instanceof MemorySegment dst
                            && copies.incrementAndGet() % 50 == 0) {
                        long at = (Long) args[2] + 100;
                        dst.set(ValueLayout.JAVA_BYTE, at,
                                (byte) (dst.get(ValueLayout.JAVA_BYTE, at) ^ 1));
                    }
                    return result;
                });
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new BenchRun(o, seed, new ClockworkTarget(
                o.cache.cacheType, corrupting), RunStop.manual(), new PrintWriter(out, true),
                new PrintWriter(err, true)).execute();
        assertEquals(3, code, out + "\n" + err);
        long failures = copies.get() / 50;
        assertTrue(failures > 0);
        assertTrue(out.toString().contains("Value verification failures: " + failures + "\n"),
                out.toString());
        assertTrue(err.toString().contains(failures + " values failed verification"),
                err.toString());
    }

    /**
     * Values smaller than the Auto table's default minimum average charge (450): the table is
     * sized for them, so population fills the capacity (charge per entry: the value and its
     * slot at the table's 0.6 load, about 64 + 107 bytes) instead of running out of slots at
     * about 557 bytes of capacity per entry.
     */
    @Test
    void autoTableHoldsWhatTheCapacityAllowsForSmallValues() {
        Object[] r = RunMain.run("bench", "-cache_type=auto_hyper_clock_cache",
                "-cache_size=4194304", "-value_bytes=64", "-threads=1", "-ops_per_thread=1000",
                "-seed=1", "-jit_warmup_ops=0", "-pinned_ratio=0", "-histograms=0");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        Matcher m = Pattern.compile(
                "Population complete \\((\\d+) entries, ([0-9.]+) average charge\\)").matcher(out);
        assertTrue(m.find(), out);
        double perEntry = Double.parseDouble(m.group(2));
        assertTrue(perEntry < 200, "capacity per entry " + perEntry + ":\n" + out);
        // -value_bytes_estimate=450 asks for cache_bench's sizing: the table runs out first
        r = RunMain.run("bench", "-cache_type=auto_hyper_clock_cache", "-cache_size=4194304",
                "-value_bytes=64", "-value_bytes_estimate=450", "-threads=1",
                "-ops_per_thread=1000", "-seed=1", "-jit_warmup_ops=0", "-pinned_ratio=0",
                "-histograms=0");
        m = Pattern.compile("Population complete \\(\\d+ entries, ([0-9.]+)"
                + " average charge\\)").matcher((String) r[1]);
        assertTrue(m.find(), (String) r[1]);
        assertTrue(Double.parseDouble(m.group(1)) > 500, (String) r[1]);
    }

    @Test
    void autoMinimumAverageChargeFollowsSmallValuesOnly() {
        assertEquals(64, CacheFactory.autoMinAvgEntryCharge(
                BenchFlagsTest.parse("-value_bytes=64").cacheSettings(1)));
        assertEquals(0, CacheFactory.autoMinAvgEntryCharge(BenchFlagsTest.parse().cacheSettings(1)),
                "8 KiB values: the default, 450");
        assertEquals(128, CacheFactory.autoMinAvgEntryCharge(BenchFlagsTest.parse(
                "-value_bytes=64", "-value_bytes_estimate=128").cacheSettings(1)),
                        "as cache_bench");
    }

    @Test
    void noVerificationLineWithoutTheFlag() {
        Object[] r = RunMain.run("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=1000", "-value_bytes=256", "-seed=3", "-jit_warmup_ops=0",
                "-degenerate_hash_bits=3");
        assertEquals(0, r[0], (String) r[2]);
        assertTrue(!((String) r[1]).contains("Value verification"), (String) r[1]);
    }
}
