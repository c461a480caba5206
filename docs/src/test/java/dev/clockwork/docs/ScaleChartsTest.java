package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScaleChartsTest {

    private static final double MIB = 1024.0 * 1024.0;

    @TempDir
    Path tmp;

    @Test
    void latencyPerCapacityAndThreadsThroughputPerThreadsAndOneTablePerFile() throws Exception {
        Rendered r = Rendered.render(Rendered.fixture("scale"), tmp.resolve("out"));

        assertEquals(List.of("scale-latency-16MiB-1t.png", "scale-latency-16MiB-2t.png",
                "scale-latency-32MiB-1t.png", "scale-throughput-1t.png",
                "scale-throughput-2t.png"), r.pngs());
        assertEquals(List.of(), r.notes());
        r.assertImages();
        // scale.jsonl's charts and table, then the sizes table (last, as it refines the first)
        assertTrue(r.tables().contains("\n### scale-runs\n"), r.tables());
        assertTrue(r.tables().indexOf("\n### scale-throughput-2t.png\n")
                < r.tables().indexOf("\n### scale-runs\n"), r.tables());
        assertTrue(r.tables().indexOf("\n### scale-runs\n")
                < r.tables().indexOf("\n### scale-sizes-runs\n"), r.tables());
        assertTrue(r.tables().contains("scale: latency, all operations, 16 MiB, 1 thread, in µs"),
                r.tables());
        assertTrue(r.tables().contains("| capacity | threads | entry | ops/s | vs best Caffeine"
                + " | hit ratio | P50 µs | P99 µs | P99.9 µs | P99.99 µs | Max µs"
                + " | GC pauses (n / ms / max ms) | GC cycles | heap at end MiB | live heap MiB"
                + " | RSS MiB | CPU µs/op |\n"), r.tables());
    }

    @Test
    void rowsCarryTheRatioToTheBestCaffeineOfTheirGroup() throws Exception {
        Rendered r = Rendered.render(Rendered.fixture("scale"), tmp.resolve("out"));
        List<Obj> runs = lines("scale.jsonl");

        // 16 MiB, 1 thread: Clockwork auto against the faster of Caffeine under G1 and ZGC
        Obj auto = find(runs, "auto_hyper_clock_cache", 1, 16);
        double best = Math.max(find(runs, "caffeine", "G1", 1, 16).number(OPS),
                find(runs, "caffeine", "ZGC", 1, 16).number(OPS));
        assertTrue(r.tables().contains(row("16 MiB", "1", "Clockwork auto", auto, best)),
                r.tables());

        // 32 MiB, 1 thread: the slower Caffeine is a ratio below one
        Obj zgc = find(runs, "caffeine", "ZGC", 1, 32);
        Obj g1 = find(runs, "caffeine", "G1", 1, 32);
        best = Math.max(zgc.number(OPS), g1.number(OPS));
        assertTrue(r.tables().contains(row("32 MiB", "1", "Caffeine (ZGC)", zgc, best)),
                r.tables());
        assertTrue(r.tables().contains(row("32 MiB", "1", "Caffeine (G1)", g1, best)),
                r.tables());
    }

    @Test
    void theSizesTableGroupsByValueSizeAndMarksPartialRuns() throws Exception {
        Rendered r = Rendered.render(Rendered.fixture("scale"), tmp.resolve("out"));
        List<Obj> runs = lines("scale-sizes.jsonl");
        Obj fixed = runs.get(0);
        double best = Math.max(runs.get(1).number(OPS), runs.get(2).number(OPS));

        String section = r.tables().substring(r.tables().indexOf("### scale-sizes-runs"));
        assertTrue(section.contains("| capacity | values | threads | entry |"), section);
        String expected = row("16 MiB", "1024 B", "2", "Clockwork fixed (partial)", fixed, best);
        assertTrue(section.contains(expected), expected + " in\n" + section);
        // the 1024 B group (first in the file) comes before the mix
        assertTrue(section.indexOf("| 1024 B |") < section.indexOf("| 4096,8192,16384 B |"),
                section);
    }

    @Test
    void absentFilesRenderNothing() throws Exception {
        Path results = Files.createDirectories(tmp.resolve("sizes-only"));
        Files.copy(Rendered.fixture("scale").resolve("scale-sizes.jsonl"),
                results.resolve("scale-sizes.jsonl"));
        Rendered r = Rendered.render(results, tmp.resolve("out"));

        assertEquals(List.of(), r.pngs());
        assertTrue(r.body().startsWith("### scale-sizes-runs\n"), r.body());
        assertTrue(!r.tables().contains("### scale-runs"), r.tables());
    }

    @Test
    void collectorNames() {
        assertEquals("G1", ScaleEntries.collector(
                "G1 Young Generation, G1 Concurrent GC, G1 Old Generation"));
        assertEquals("ZGC", ScaleEntries.collector(
                "ZGC Minor Cycles, ZGC Minor Pauses, ZGC Major Cycles, ZGC Major Pauses"));
        assertEquals("Parallel", ScaleEntries.collector("PS MarkSweep, PS Scavenge"));
        assertEquals("Shenandoah", ScaleEntries.collector("Shenandoah Pauses, Shenandoah Cycles"));
    }

    /** A Clockwork run with an admission policy is its own entry; a peer's policy is its own. */
    @Test
    void anAdmissionPolicyNamesTheEntry() {
        String line = "{\"cache_type\":\"%s\",\"threads\":2,\"rough_parallel_ops_per_sec\":1,"
                + "\"lookup_hit_ratio\":0.5,\"flags\":{\"cache_size\":1073741824,"
                + "\"admission\":\"tinylfu\"},\"jvm\":{\"collector\":\"G1 Young Generation\"},"
                + "\"latency_all_ns\":{}}";
        assertEquals("Clockwork auto + tinylfu", ScaleEntries.name(ScaleRun.from(
                Obj.of(Json.parse(line.formatted("auto_hyper_clock_cache"))))));
        assertEquals("Caffeine (G1)", ScaleEntries.name(ScaleRun.from(
                Obj.of(Json.parse(line.formatted("caffeine"))))));
    }

    private static final String OPS = "rough_parallel_ops_per_sec";

    /** The table row the fixture's numbers should give (capacity, [values,] threads first). */
    private static String row(String capacity, String threads, String entry, Obj run,
            double best) {
        return "| " + capacity + " | " + threads + " | " + cells(entry, run, best);
    }

    private static String row(String capacity, String values, String threads, String entry,
            Obj run, double best) {
        return "| " + capacity + " | " + values + " | " + threads + " | " + cells(entry, run, best);
    }

    private static String cells(String entry, Obj run, double best) {
        Obj lat = run.object("latency_all_ns");
        Obj jvm = run.object("jvm");
        return entry + " | " + f(run.number(OPS), 0) + " | " + f(run.number(OPS) / best, 2)
                + " | " + f(run.number("lookup_hit_ratio"), 4)
                + " | " + f(lat.number("p50") / 1000, 2) + " | " + f(lat.number("p99") / 1000, 2)
                + " | " + f(lat.number("p99_9") / 1000, 2)
                + " | " + f(lat.number("p99_99") / 1000, 2)
                + " | " + f(lat.number("max") / 1000, 2)
                + " | " + jvm.integer("gc_pauses", 0) + " / " + f(jvm.number("gc_pause_ms"), 1)
                + " / " + f(jvm.number("gc_max_pause_ms"), 1)
                + " | " + jvm.integer("gc_cycles", 0)
                + " | " + f(jvm.number("heap_used_at_end_bytes") / MIB, 1)
                + " | " + f(run.number("heap_used_bytes") / MIB, 1)
                + " | " + f(run.number("rss_bytes") / MIB, 1)
                + " | " + f(jvm.number("cpu_ns_per_op") / 1000, 2) + " |\n";
    }

    private static String f(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static List<Obj> lines(String name) throws IOException {
        return Files.readAllLines(Rendered.fixture("scale").resolve(name), StandardCharsets.UTF_8)
                .stream().filter(l -> !l.isBlank()).map(l -> Obj.of(Json.parse(l))).toList();
    }

    private static Obj find(List<Obj> runs, String type, int threads, long mib) {
        return find(runs, type, "", threads, mib);
    }

    /** The fixture line of a cache type (and collector) at a thread count and capacity. */
    private static Obj find(List<Obj> runs, String type, String collector, int threads,
            long mib) {
        List<Obj> found = runs.stream()
                .filter(o -> type.equals(o.string("cache_type")))
                .filter(o -> o.object("jvm").string("collector").startsWith(collector))
                .filter(o -> o.integer("threads", 0) == threads)
                .filter(o -> o.object("flags").integer("cache_size", 0) == mib * 1024 * 1024)
                .toList();
        assertEquals(1, found.size(), type + " " + collector + " " + threads + "t " + mib + " MiB");
        return found.get(0);
    }
}
