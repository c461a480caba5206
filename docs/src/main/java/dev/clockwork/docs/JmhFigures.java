package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.knowm.xchart.CategoryChart;

/**
 * Charts for JMH results: one grouped bar chart per benchmark method (its {@code _1t}/{@code _2t}
 * variants together) and value size, caches along the x axis and one bar colour per thread count,
 * so the 1- and 2-thread scores of each cache stand side by side.
 */
final class JmhFigures {

    private JmhFigures() {
    }

    static List<Figure> build(List<JmhResult> results) {
        Map<String, List<JmhResult>> groups = new LinkedHashMap<>();
        for (JmhResult r : results) {
            groups.computeIfAbsent(fileName(r) + " " + r.unit(), k -> new ArrayList<>()).add(r);
        }
        return groups.values().stream()
                .map(JmhFigures::figure)
                .sorted(Comparator.comparing(Figure::fileName))
                .toList();
    }

    static String fileName(JmhResult r) {
        String valueBytes = r.params().get("valueBytes");
        String name = "jmh-" + r.className() + "-" + r.baseMethod()
                + (valueBytes == null ? "" : "-" + valueBytes + "B")
                + ("thrpt".equals(r.mode()) ? "" : "-" + r.mode());
        return name.replaceAll("[^A-Za-z0-9._-]", "-") + ".png";
    }

    private static Figure figure(List<JmhResult> group) {
        JmhGroup g = new JmhGroup(group);
        CategoryChart chart = Style.bars(g.title(), g.categoryHeader(), g.unitLabel());
        List<Double> all = new ArrayList<>();
        for (int threads : g.threads()) {
            List<Double> ys = new ArrayList<>();
            for (String category : g.categories()) {
                JmhResult r = g.find(category, threads);
                ys.add(r == null ? null : g.scaled(r.score()));
            }
            all.addAll(ys);
            chart.addSeries(threads == 1 ? "1 thread" : threads + " threads",
                    List.copyOf(g.categories()), ys);
        }
        Style.logYIfWide(chart.getStyler(), all);
        Style.fitLabels(chart, g.categories());
        Style.fitLegend(chart);
        return new Figure(fileName(group.get(0)), g.title(), g.sources(), table(g), chart);
    }

    private static Table table(JmhGroup g) {
        boolean hits = g.results().stream().anyMatch(r -> !Double.isNaN(r.hitRatio()));
        boolean alloc = g.results().stream().anyMatch(r -> !Double.isNaN(r.allocBytesPerOp()));
        boolean resident = g.results().stream().anyMatch(r -> !Double.isNaN(r.residentEntries()));
        List<String> headers = new ArrayList<>(
                List.of(g.categoryHeader(), "threads", "score (" + g.unitLabel() + ")", "± error"));
        if (hits) {
            headers.add("hit ratio");
        }
        if (alloc) {
            headers.add("alloc B/op");
        }
        if (resident) {
            headers.add("resident entries");
        }
        Table table = new Table(headers.toArray(String[]::new));
        for (String category : g.categories()) {
            for (int threads : g.threads()) {
                JmhResult r = g.find(category, threads);
                if (r != null) {
                    table.row(row(g, category, r, hits, alloc, resident));
                }
            }
        }
        return table;
    }

    private static String[] row(JmhGroup g, String category, JmhResult r, boolean hits,
            boolean alloc, boolean resident) {
        List<String> cells = new ArrayList<>(List.of(category, Integer.toString(r.threads()),
                Fmt.fixed(g.scaled(r.score()), 2), Fmt.fixed(g.scaled(r.error()), 2)));
        if (hits) {
            cells.add(Fmt.fixed(r.hitRatio(), 4));
        }
        if (alloc) {
            cells.add(Fmt.fixed(r.allocBytesPerOp(), 2));
        }
        if (resident) {
            cells.add(Fmt.fixed(r.residentEntries(), 0));
        }
        return cells.toArray(String[]::new);
    }

    /**
     * One chart's worth of results and the naming decisions for it: which param names the
     * categories, which other params vary (and so join the label), the unit and its scale.
     */
    private record JmhGroup(List<JmhResult> results, String categoryKey, List<String> varying) {

        JmhGroup(List<JmhResult> results) {
            this(results, categoryKey(results), varying(results, categoryKey(results)));
        }

        private static String categoryKey(List<JmhResult> results) {
            for (String key : List.of("cache", "table")) {
                if (results.stream().anyMatch(r -> r.params().containsKey(key))) {
                    return key;
                }
            }
            return null;
        }

        private static List<String> varying(List<JmhResult> results, String categoryKey) {
            List<String> keys = new ArrayList<>(
                    Varying.keys(results.stream().map(JmhResult::params).toList()));
            keys.remove(categoryKey);
            keys.remove("valueBytes");
            return keys;
        }

        /** The category value, or the method when there is none (the title names the method). */
        String label(JmhResult r) {
            String base = categoryKey == null ? null : r.params().get(categoryKey);
            if (base == null && categoryKey == null && !varying.isEmpty()) {
                return Varying.label("", r.params(), varying).strip();
            }
            return Varying.label(base == null ? r.baseMethod() : base, r.params(), varying);
        }

        Set<String> categories() {
            Set<String> out = new LinkedHashSet<>();
            results.forEach(r -> out.add(label(r)));
            return out;
        }

        Set<Integer> threads() {
            Set<Integer> out = new TreeSet<>();
            results.forEach(r -> out.add(r.threads()));
            return out;
        }

        JmhResult find(String category, int threads) {
            return results.stream()
                    .filter(r -> r.threads() == threads && label(r).equals(category))
                    .reduce((first, second) -> second)
                    .orElse(null);
        }

        String categoryHeader() {
            if (categoryKey != null) {
                return categoryKey;
            }
            return varying.isEmpty() ? "benchmark" : "params";
        }

        boolean perSecond() {
            return "ops/s".equals(results.get(0).unit());
        }

        String unitLabel() {
            return perSecond() ? "M ops/s" : results.get(0).unit();
        }

        double scaled(double value) {
            return perSecond() ? value / 1e6 : value;
        }

        String title() {
            JmhResult first = results.get(0);
            String valueBytes = first.params().get("valueBytes");
            return first.className() + "." + first.baseMethod()
                    + (valueBytes == null ? "" : ", " + valueBytes + " B values")
                    + ": " + measure(first.mode()).replace("%u", unitLabel());
        }

        private static String measure(String mode) {
            return switch (mode) {
                case "thrpt" -> "throughput in %u (higher is better)";
                case "avgt" -> "average time in %u (lower is better)";
                case "sample" -> "sampled time in %u (lower is better)";
                case "ss" -> "single-shot time in %u (lower is better)";
                default -> mode + " in %u";
            };
        }

        List<String> sources() {
            return List.copyOf(new TreeSet<>(results.stream().map(JmhResult::source).toList()));
        }
    }
}
