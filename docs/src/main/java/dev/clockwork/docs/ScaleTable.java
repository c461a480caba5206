package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The table of a scale file: one row per run, grouped by capacity (then value size, for the
 * sizes file) then threads, with throughput next to the best Caffeine of the same group (the
 * on-heap cache the off-heap ones are measured against, under its better collector) and the bill
 * each run left: tail latency, GC pauses and cycles, heap, RSS and CPU per operation.
 */
final class ScaleTable {

    private ScaleTable() {
    }

    static Figure build(ScaleFile file) {
        String title = file.stem() + ": every run, grouped by capacity"
                + (file.bySize() ? ", value size" : "") + " and threads";
        return Figure.tableOnly(file.stem() + "-runs", title, List.of(file.source()),
                table(file));
    }

    private static Table table(ScaleFile file) {
        List<String> headers = new ArrayList<>(List.of("capacity"));
        if (file.bySize()) {
            headers.add("values");
        }
        headers.addAll(List.of("threads", "entry", "ops/s", "vs best Caffeine", "hit ratio",
                "P50 µs", "P99 µs", "P99.9 µs", "P99.99 µs", "Max µs",
                "GC pauses (n / ms / max ms)", "GC cycles", "heap at end MiB", "live heap MiB",
                "RSS MiB", "CPU µs/op"));
        Table table = new Table(headers.toArray(String[]::new));
        for (List<ScaleRun> group : groups(file).values()) {
            double best = bestCaffeine(group);
            for (ScaleRun r : group) {
                List<String> cells = new ArrayList<>(List.of(r.capacity(" ")));
                if (file.bySize()) {
                    cells.add(r.valueSize());
                }
                cells.addAll(List.of(Integer.toString(r.threads()), ScaleEntries.name(r),
                        Fmt.fixed(r.opsPerSec(), 0), Fmt.fixed(r.opsPerSec() / best, 2),
                        Fmt.fixed(r.hitRatio(), 4)));
                for (double nanos : r.latency().inOrder()) {
                    cells.add(Fmt.micros(nanos));
                }
                ScaleRun.Jvm jvm = r.jvm();
                cells.addAll(List.of(pauses(jvm), Fmt.count(jvm.gcCycles()),
                        Fmt.mib(jvm.heapAtEndBytes()), Fmt.mib(r.liveHeapBytes()),
                        Fmt.mib(r.rssBytes()), Fmt.micros(jvm.cpuNsPerOp())));
                table.row(cells.toArray(String[]::new));
            }
        }
        return table;
    }

    /**
     * The runs by group, groups sorted by capacity, value size (in order of first appearance)
     * and threads; runs in file order within a group.
     */
    static Map<List<Object>, List<ScaleRun>> groups(ScaleFile file) {
        List<String> sizes = file.runs().stream().map(ScaleRun::valueSize).distinct().toList();
        Comparator<ScaleRun> order = Comparator.comparingLong(ScaleRun::cacheSize)
                .thenComparingInt(r -> file.bySize() ? sizes.indexOf(r.valueSize()) : 0)
                .thenComparingInt(ScaleRun::threads);
        Map<List<Object>, List<ScaleRun>> groups = new LinkedHashMap<>();
        file.runs().stream().sorted(order).forEach(r -> groups.computeIfAbsent(
                List.of(r.cacheSize(), file.bySize() ? r.valueSize() : "", r.threads()),
                k -> new ArrayList<>()).add(r));
        return groups;
    }

    /** The higher throughput of the group's Caffeine runs (any collector); NaN when none. */
    static double bestCaffeine(List<ScaleRun> group) {
        return group.stream().filter(ScaleEntries::isCaffeine).mapToDouble(ScaleRun::opsPerSec)
                .filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
    }

    private static String pauses(ScaleRun.Jvm jvm) {
        if (jvm.gcPauses() < 0) {
            return Fmt.NA;
        }
        return jvm.gcPauses() + " / " + Fmt.fixed(jvm.gcPauseMs(), 1) + " / "
                + Fmt.fixed(jvm.gcMaxPauseMs(), 1);
    }
}
