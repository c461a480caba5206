package dev.clockwork.docs;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One {@code clockwork bench -json} line: a single run of one cache type, with its throughput,
 * memory figures, flags (all values as text; optional, older lines have none) and latency
 * percentiles per operation kind.
 */
record BenchRun(String cacheType, int threads, double opsPerSec, double hitRatio, long entries,
        long nativeBytes, long maxRssBytes, Map<String, String> flags,
        Map<String, Latency> latency) {

    static final String TOOL = "clockwork bench";

    /** Percentiles of one operation kind, in nanoseconds. */
    record Latency(long count, double p50, double p99, double p999, double max) {

        static Latency from(Obj o) {
            return new Latency(o.integer("count", 0), o.number("p50"), o.number("p99"),
                    o.number("p99_9"), o.number("max"));
        }
    }

    static BenchRun from(Obj o) {
        Map<String, Latency> latency = new LinkedHashMap<>();
        Obj kinds = o.object("latency_ns");
        for (String kind : kinds.keys()) {
            latency.put(kind, Latency.from(kinds.object(kind)));
        }
        return new BenchRun(String.valueOf(o.string("cache_type")), (int) o.integer("threads", 1),
                o.number("rough_parallel_ops_per_sec"), o.number("lookup_hit_ratio"),
                o.integer("entries", -1), o.integer("native_bytes", -1),
                o.integer("max_rss_bytes", -1), o.strings("flags"), latency);
    }

    /** A flag's value, or the empty string when the line does not carry it. */
    String flag(String name) {
        String value = flags.get(name);
        return value == null ? "" : value;
    }
}
