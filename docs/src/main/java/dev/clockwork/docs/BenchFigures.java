package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.knowm.xchart.CategoryChart;

/**
 * Charts for one {@code clockwork bench -json} file: throughput per run, tail latency per
 * operation kind and run, and (via {@link EffortCapFigures}) the eviction-effort-cap sweep when
 * the file is one.
 */
final class BenchFigures {

    /** The order {@code clockwork bench} reports its operation kinds in. */
    private static final List<String> KINDS =
            List.of("lookup_insert", "insert", "blind_insert", "lookup", "erase");

    private BenchFigures() {
    }

    static List<Figure> build(List<BenchFile> files) {
        List<Figure> out = new ArrayList<>();
        for (BenchFile file : files) {
            out.add(throughput(file));
            if (!kinds(file.runs()).isEmpty()) {
                out.add(latency(file));
            }
            out.addAll(EffortCapFigures.build(file));
        }
        return out;
    }

    /** Bars per cache type (and thread count), one colour per flag combination. */
    private static Figure throughput(BenchFile file) {
        List<RunLabels.Label> labels = RunLabels.of(file.runs());
        String title = file.stem() + ": throughput, all threads, in M ops/s (higher is better)";
        CategoryChart chart = Style.bars(title, "cache", "M ops/s");
        List<String> bases = labels.stream().map(RunLabels.Label::base).distinct().toList();
        List<String> variants = labels.stream().map(RunLabels.Label::variant).distinct().toList();
        for (String variant : variants) {
            List<Double> ys = new ArrayList<>();
            for (String base : bases) {
                int i = labels.indexOf(new RunLabels.Label(base, variant));
                ys.add(i < 0 ? null : file.runs().get(i).opsPerSec() / 1e6);
            }
            chart.addSeries(variant.isEmpty() ? "ops/s" : variant, bases, ys);
        }
        chart.getStyler().setLegendVisible(!(variants.size() == 1 && variants.get(0).isEmpty()));
        Style.logYIfWide(chart.getStyler(),
                file.runs().stream().map(r -> r.opsPerSec() / 1e6).toList());
        Style.fitLabels(chart, bases);
        Style.fitLegend(chart);
        return new Figure("bench-" + file.stem() + "-throughput.png", title,
                List.of(file.source()), throughputTable(file, labels), chart);
    }

    private static Table throughputTable(BenchFile file, List<RunLabels.Label> labels) {
        Table table = new Table("run", "threads", "M ops/s", "hit ratio", "entries", "native MiB",
                "max RSS MiB");
        for (int i = 0; i < labels.size(); i++) {
            BenchRun r = file.runs().get(i);
            table.row(labels.get(i).full(), Integer.toString(r.threads()), Fmt.mops(r.opsPerSec()),
                    Fmt.fixed(r.hitRatio(), 4), Fmt.count(r.entries()),
                    Fmt.mib(r.nativeBytes()), Fmt.mib(r.maxRssBytes()));
        }
        return table;
    }

    private static Figure latency(BenchFile file) {
        List<String> labels = RunLabels.full(file.runs());
        List<String> kinds = kinds(file.runs());
        String title = file.stem()
                + ": p99 latency per operation in µs (log scale, lower is better)";
        CategoryChart chart = Style.bars(title, "operation", "p99 µs");
        List<Double> all = new ArrayList<>();
        for (int i = 0; i < labels.size(); i++) {
            BenchRun run = file.runs().get(i);
            List<Double> ys = kinds.stream().map(k -> p99Micros(run, k)).toList();
            all.addAll(ys);
            chart.addSeries(labels.get(i), kinds, ys);
        }
        Style.logY(chart.getStyler(), all);
        Style.fitLegend(chart);
        return new Figure("bench-" + file.stem() + "-latency.png", title,
                List.of(file.source()), latencyTable(file, labels, kinds), chart);
    }

    private static Double p99Micros(BenchRun run, String kind) {
        BenchRun.Latency l = run.latency().get(kind);
        return l == null || !(l.p99() > 0) ? null : l.p99() / 1000.0;
    }

    private static Table latencyTable(BenchFile file, List<String> labels, List<String> kinds) {
        Table table = new Table("run", "operation", "count", "p50 µs", "p99 µs", "p99.9 µs",
                "max µs");
        for (int i = 0; i < labels.size(); i++) {
            for (String kind : kinds) {
                BenchRun.Latency l = file.runs().get(i).latency().get(kind);
                if (l != null) {
                    table.row(labels.get(i), kind, Long.toString(l.count()), Fmt.micros(l.p50()),
                            Fmt.micros(l.p99()), Fmt.micros(l.p999()), Fmt.micros(l.max()));
                }
            }
        }
        return table;
    }

    /** The known kinds in their usual order, then any others in order of appearance. */
    private static List<String> kinds(List<BenchRun> runs) {
        Set<String> present = new LinkedHashSet<>();
        runs.forEach(r -> present.addAll(r.latency().keySet()));
        Set<String> ordered = new LinkedHashSet<>(KINDS);
        ordered.retainAll(present);
        ordered.addAll(present);
        return List.copyOf(ordered);
    }
}
