package dev.clockwork.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.clockwork.cli.common.Json;
import dev.clockwork.cli.workload.LatencyStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Latency of one kind of bench operation, as reported: count and percentiles in nanoseconds.
 *
 * @param op the operation's name ({@link #NAMES})
 * @param p999 the 99.9th percentile
 * @param p9999 the 99.99th percentile
 */
record OpLatency(String op, long count, long p50, long p99, long p999, long p9999, long max) {
    /** Operation kinds, in cache_bench's op-selection order; the index is the kind. */
    static final String[] NAMES = {"lookup_insert", "insert", "blind_insert", "lookup", "erase",
        "scan", "no_op"};
    static final int LOOKUP_INSERT = 0;
    static final int INSERT = 1;
    static final int BLIND_INSERT = 2;
    static final int LOOKUP = 3;
    static final int ERASE = 4;
    /** A step of a one-off scan ({@code -scan_percent}): lookup, insert on a miss. */
    static final int SCAN = 5;
    static final int NO_OP = 6;
    /** The name of the figures over every operation of the run. */
    static final String ALL = "all";

    /**
     * Percentiles from the histogram, which reports a bucket's highest equivalent value (3
     * significant digits), so they are capped at the exact maximum.
     */
    static OpLatency of(String op, LatencyStats stats) {
        long max = stats.max();
        return new OpLatency(op, stats.count(), Math.min((long) stats.percentile(50), max),
                Math.min((long) stats.percentile(99), max),
                Math.min((long) stats.percentile(99.9), max),
                Math.min((long) stats.percentile(99.99), max), max);
    }

    /** The per-kind stats of all workers merged, kinds that never ran left out. */
    static List<OpLatency> merged(List<LatencyStats[]> perWorker) {
        List<OpLatency> list = new ArrayList<>();
        for (int kind = 0; kind < NAMES.length; kind++) {
            LatencyStats all = new LatencyStats();
            for (LatencyStats[] byKind : perWorker) {
                all.add(byKind[kind]);
            }
            if (all.count() > 0) {
                list.add(of(NAMES[kind], all));
            }
        }
        return list;
    }

    /** The table the report prints under cache_bench's combined histogram. */
    static String table(List<OpLatency> list) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-14s %12s %10s %10s %10s %10s %12s%n",
                "operation", "count", "P50", "P99", "P99.9", "P99.99", "Max"));
        for (OpLatency l : list) {
            sb.append(String.format(Locale.ROOT, "%-14s %12d %10d %10d %10d %10d %12d%n",
                    l.op(), l.count(), l.p50(), l.p99(), l.p999(), l.p9999(), l.max()));
        }
        return sb.toString();
    }

    /** Count and percentiles; the operation's name is the key the caller puts it under. */
    ObjectNode toJson() {
        return Json.object().put("count", count).put("p50", p50).put("p99", p99)
                .put("p99_9", p999).put("p99_99", p9999).put("max", max);
    }

    /** Reads what {@link #toJson} wrote; a missing figure reads as 0. */
    static OpLatency fromJson(String op, JsonNode node) {
        return new OpLatency(op, node.path("count").asLong(), node.path("p50").asLong(),
                node.path("p99").asLong(), node.path("p99_9").asLong(),
                node.path("p99_99").asLong(), node.path("max").asLong());
    }
}
