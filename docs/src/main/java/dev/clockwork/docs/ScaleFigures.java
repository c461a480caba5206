package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The scale family: for {@code scale.jsonl}, the latency percentiles of every entry per capacity
 * and thread count (the tail is where a collector shows), throughput against capacity per thread
 * count, and the {@link ScaleTable}; for {@code scale-sizes.jsonl}, the table only. An entry keeps
 * its colour in every chart, so it can be followed from one to the next.
 */
final class ScaleFigures {

    private static final List<String> PERCENTILES = List.of("P50", "P99", "P99.9", "P99.99", "Max");

    private ScaleFigures() {
    }

    static List<Figure> build(List<ScaleFile> files) {
        List<Figure> out = new ArrayList<>();
        // the charts of scale.jsonl first, then the sizes table that refines it
        List<ScaleFile> ordered = files.stream()
                .sorted(Comparator.comparing(ScaleFile::bySize)).toList();
        for (ScaleFile file : ordered) {
            if (!file.bySize()) {
                ScaleTable.groups(file).values().forEach(group -> out.add(latency(file, group)));
                threads(file).forEach((threads, runs) -> out.add(throughput(file, threads, runs)));
            }
            out.add(ScaleTable.build(file));
        }
        return out;
    }

    /** One (capacity, threads) group: a line per run over the percentiles, log µs. */
    private static Figure latency(ScaleFile file, List<ScaleRun> group) {
        ScaleRun first = group.get(0);
        String title = file.stem() + ": latency, all operations, " + first.capacity(" ") + ", "
                + threads(first.threads()) + ", in µs (log scale, lower is better)";
        CategoryChart chart = Style.categoryLines(title, "percentile", "µs");
        Table table = new Table("entry", "P50 µs", "P99 µs", "P99.9 µs", "P99.99 µs", "Max µs");
        List<String> entries = ScaleEntries.inOrder(file.runs());
        List<String> names = distinct(group);
        List<Double> all = new ArrayList<>();
        for (int i = 0; i < group.size(); i++) {
            List<Double> ys = Arrays.stream(group.get(i).latency().inOrder())
                    .mapToObj(ns -> ns > 0 ? ns / 1000.0 : null).toList();
            all.addAll(ys);
            List<String> cells = new ArrayList<>(List.of(names.get(i)));
            Arrays.stream(group.get(i).latency().inOrder())
                    .forEach(ns -> cells.add(Fmt.micros(ns)));
            table.row(cells.toArray(String[]::new));
            if (ys.stream().allMatch(Objects::isNull)) {
                continue;
            }
            CategorySeries series = chart.addSeries(names.get(i), PERCENTILES, ys);
            series.setMarker(SeriesMarkers.CIRCLE);
            colour(series, entries.indexOf(ScaleEntries.name(group.get(i))));
        }
        Style.logY(chart.getStyler(), all);
        Style.fitLegend(chart);
        String name = "scale-latency-" + first.capacity("") + "-" + first.threads() + "t.png";
        return new Figure(name, title, List.of(file.source()), table, chart);
    }

    /** One thread count: a line per entry, throughput against capacity. */
    private static Figure throughput(ScaleFile file, int threads, List<ScaleRun> runs) {
        String title = file.stem() + ": throughput, " + threads(threads)
                + ", in M ops/s (higher is better)";
        XYChart chart = Style.lines(title, "capacity GiB", "M ops/s");
        Table table = new Table("entry", "capacity", "M ops/s");
        List<String> entries = ScaleEntries.inOrder(file.runs());
        for (String entry : entries) {
            List<ScaleRun> points = runs.stream().filter(r -> ScaleEntries.name(r).equals(entry))
                    .filter(r -> !Double.isNaN(r.opsPerSec()))
                    .sorted((a, b) -> Long.compare(a.cacheSize(), b.cacheSize())).toList();
            if (points.isEmpty()) {
                continue;
            }
            XYSeries series = chart.addSeries(entry,
                    points.stream().mapToDouble(ScaleRun::capacityGib).toArray(),
                    points.stream().mapToDouble(r -> r.opsPerSec() / 1e6).toArray());
            series.setMarker(SeriesMarkers.CIRCLE);
            colour(series, entries.indexOf(entry));
            points.forEach(r -> table.row(entry, r.capacity(" "), Fmt.fixed(r.opsPerSec() / 1e6,
                    3)));
        }
        Style.fitLegend(chart);
        return new Figure("scale-throughput-" + threads + "t.png", title,
                List.of(file.source()), table, chart);
    }

    /** The runs by thread count, ascending; file order within. */
    private static Map<Integer, List<ScaleRun>> threads(ScaleFile file) {
        Map<Integer, List<ScaleRun>> out = new TreeMap<>();
        file.runs().forEach(r -> out.computeIfAbsent(r.threads(), k -> new ArrayList<>()).add(r));
        return out;
    }

    private static String threads(int n) {
        return n + (n == 1 ? " thread" : " threads");
    }

    /** The entry names of a group, a repeated one (a rerun) with {@code #2}, {@code #3}. */
    private static List<String> distinct(List<ScaleRun> group) {
        Map<String, Integer> seen = new HashMap<>();
        return group.stream().map(ScaleEntries::name).map(n -> {
            int k = seen.merge(n, 1, Integer::sum);
            return k == 1 ? n : n + " #" + k;
        }).toList();
    }

    private static void colour(CategorySeries series, int entry) {
        series.setLineColor(Style.color(entry));
        series.setMarkerColor(Style.color(entry));
    }

    private static void colour(XYSeries series, int entry) {
        series.setLineColor(Style.color(entry));
        series.setMarkerColor(Style.color(entry));
    }
}
