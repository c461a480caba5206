package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.knowm.xchart.CategoryChart;

/**
 * Memory per entry, one chart per value size: for each cache, the heap bytes and the native bytes
 * one resident entry costs, next to the payload (key + value) it stores, so the overhead is the
 * gap between the bars.
 */
final class MemoryFigures {

    private MemoryFigures() {
    }

    static List<Figure> build(List<MemoryRow> rows) {
        Map<Long, List<MemoryRow>> bySize = new TreeMap<>();
        rows.forEach(r -> bySize.computeIfAbsent(r.valueBytes(), k -> new ArrayList<>()).add(r));
        return bySize.entrySet().stream().map(e -> figure(e.getKey(), e.getValue())).toList();
    }

    private static Figure figure(long valueBytes, List<MemoryRow> rows) {
        String title = "Memory per resident entry, " + valueBytes
                + " B values, in bytes (lower is better)";
        CategoryChart chart = Style.bars(title, "cache", "bytes per entry");
        List<String> caches = rows.stream().map(MemoryRow::cache).toList();
        List<Double> heap = rows.stream().map(MemoryRow::heapPerEntry).toList();
        List<Double> nativePart = rows.stream().map(MemoryRow::nativePerEntry).toList();
        List<Double> payload = rows.stream().map(r -> (double) r.payloadBytes()).toList();
        chart.addSeries("heap", caches, nanToNull(heap));
        chart.addSeries("native (exact, else RSS growth)", caches, nanToNull(nativePart));
        chart.addSeries("payload (key + value)", caches, payload);
        List<Double> all = new ArrayList<>(heap);
        all.addAll(nativePart);
        all.addAll(payload);
        Style.logYIfWide(chart.getStyler(), all);
        Style.fitLabels(chart, caches);
        Style.fitLegend(chart);
        List<String> sources =
                List.copyOf(new TreeSet<>(rows.stream().map(MemoryRow::source).toList()));
        return new Figure("memory-per-entry-" + valueBytes + "B.png", title, sources, table(rows),
                chart);
    }

    private static Table table(List<MemoryRow> rows) {
        Table table = new Table("cache", "resident", "heap B/entry", "native B/entry",
                "all-in B/entry", "overhead B/entry");
        for (MemoryRow r : rows) {
            table.row(r.cache(), Long.toString(r.resident()), Fmt.fixed(r.heapPerEntry(), 1),
                    Fmt.fixed(r.nativePerEntry(), 1), Fmt.fixed(r.bytesPerEntry(), 1),
                    Fmt.fixed(r.overheadPerEntry(), 1));
        }
        return table;
    }

    private static List<Double> nanToNull(List<Double> values) {
        return values.stream().map(v -> Double.isNaN(v) ? null : v).toList();
    }
}
