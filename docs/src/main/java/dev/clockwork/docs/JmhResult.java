package dev.clockwork.docs;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.TreeMap;

/**
 * One element of a JMH {@code -rf json} result file, reduced to what the charts show: which
 * benchmark with which parameters and threads, the primary score and its error, and the secondary
 * metrics the docs quote (hit/miss counters, allocated bytes per operation, resident entries).
 */
record JmhResult(String source, String benchmark, String mode, int threads,
        Map<String, String> params, double score, double error, String unit,
        double hits, double misses, double allocBytesPerOp, double residentEntries) {

    /** JMH's GC profiler prefixes its metrics with a middle dot, older files do not. */
    private static final String ALLOC_NORM = "gc.alloc.rate.norm";

    /** True when a parsed value looks like one element of a JMH result array. */
    static boolean looksLikeOne(JsonNode element) {
        Obj obj = Obj.of(element);
        return obj != null && obj.string("benchmark") != null && obj.has("primaryMetric");
    }

    static JmhResult from(Obj o, String source) {
        Obj primary = o.object("primaryMetric");
        Obj secondary = o.object("secondaryMetrics");
        return new JmhResult(source, o.string("benchmark"), String.valueOf(o.string("mode")),
                (int) o.integer("threads", 1), o.strings("params"),
                primary.number("score"), primary.number("scoreError"),
                String.valueOf(primary.string("scoreUnit")),
                secondary.object("hits").number("score"),
                secondary.object("misses").number("score"),
                secondaryScore(secondary, ALLOC_NORM),
                // an EVENTS counter: JMH's score sums the iterations, so take their mean
                secondary.object("residentEntries").meanOfNumbers("rawData"));
    }

    private static double secondaryScore(Obj secondary, String name) {
        for (String key : secondary.keys()) {
            if (key.replace("\u00b7", "").equals(name)) {
                return secondary.object(key).number("score");
            }
        }
        return Double.NaN;
    }

    /** The benchmark class's simple name: {@code PeerHitBenchmark}. */
    String className() {
        String owner = benchmark.substring(0, Math.max(0, benchmark.lastIndexOf('.')));
        return owner.substring(owner.lastIndexOf('.') + 1);
    }

    /**
     * The method name without its thread-count part: {@code hit_2t} and {@code hit_1t} give {@code
     * hit}.
     */
    String baseMethod() {
        String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        return method.replaceAll("_\\d+t(?=_|$)", "");
    }

    /** What makes two results the same measurement (the last file holding it wins). */
    String identity() {
        return benchmark + " " + mode + " " + new TreeMap<>(params) + " threads=" + threads;
    }

    /** hits / (hits + misses), or NaN when the benchmark does not count them. */
    double hitRatio() {
        double total = hits + misses;
        return total > 0 ? hits / total : Double.NaN;
    }
}
