package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.XYChart;

/**
 * The eviction-effort-cap sweep: when the runs of a bench file differ in
 * {@code eviction_effort_cap}, throughput and max RSS against the cap, one line per cache type
 * (log x axis, as caps are swept by powers), to show where a higher cap stops paying.
 */
final class EffortCapFigures {

    static final String FLAG = "eviction_effort_cap";

    private EffortCapFigures() {
    }

    static List<Figure> build(BenchFile file) {
        List<BenchRun> runs = file.runs().stream()
                .filter(r -> !Double.isNaN(cap(r)))
                .sorted(Comparator.comparingDouble(EffortCapFigures::cap))
                .toList();
        if (runs.stream().map(EffortCapFigures::cap).distinct().count() < 2) {
            return List.of();
        }
        Map<String, List<BenchRun>> lines = new LinkedHashMap<>();
        Function<BenchRun, String> name = r -> RunLabels.without(file.runs(), FLAG, r);
        file.runs().stream().map(name).distinct().forEach(n -> lines.put(n, new ArrayList<>()));
        runs.forEach(r -> lines.get(name.apply(r)).add(r));
        return List.of(
                figure(file, lines, new Measure("-effort-cap.png", "throughput",
                        "M ops/s (higher is better)", "M ops/s", 2), r -> r.opsPerSec() / 1e6),
                figure(file, lines, new Measure("-effort-cap-rss.png", "max RSS",
                        "MiB (lower is better)", "max RSS MiB", 1),
                        r -> Fmt.toMib(r.maxRssBytes())));
    }

    /** What one sweep chart shows: file suffix, quantity, unit note, axis title, decimals. */
    private record Measure(String suffix, String what, String unit, String yTitle, int decimals) {
    }

    static double cap(BenchRun run) {
        try {
            return Double.parseDouble(run.flag(FLAG));
        } catch (NumberFormatException notSet) {
            return Double.NaN;
        }
    }

    private static Figure figure(BenchFile file, Map<String, List<BenchRun>> lines, Measure m,
            ToDoubleFunction<BenchRun> y) {
        String title = file.stem() + ": " + m.what() + " vs " + FLAG + ", in " + m.unit();
        XYChart chart = Style.lines(title, FLAG + " (log scale)", m.yTitle());
        Table table = new Table("series", FLAG, m.yTitle());
        lines.forEach((series, points) -> {
            List<BenchRun> drawn = points.stream()
                    .filter(r -> !Double.isNaN(y.applyAsDouble(r))).toList();
            if (!drawn.isEmpty()) {
                Style.addLine(chart, series,
                        drawn.stream().mapToDouble(EffortCapFigures::cap).toArray(),
                        drawn.stream().mapToDouble(y).toArray());
            }
            points.forEach(r -> table.row(series, r.flag(FLAG), Fmt.fixed(y.applyAsDouble(r),
                    m.decimals())));
        });
        boolean positive = lines.values().stream().flatMap(List::stream)
                .allMatch(r -> cap(r) > 0);
        chart.getStyler().setXAxisLogarithmic(positive);
        Style.fitLegend(chart);
        if (!positive) {
            chart.setXAxisTitle(FLAG);
        }
        return new Figure("bench-" + file.stem() + m.suffix(), title, List.of(file.source()), table,
                chart);
    }
}
