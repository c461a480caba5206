package dev.clockwork.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The headline figures of one {@code bench} run: what {@code -json} prints and what
 * {@code -compare} tabulates.
 *
 * @param cacheType the {@code -cache_type} the run used
 * @param threads worker threads
 * @param opsPerThread operations per thread
 * @param elapsedSecs wall time of the timed part
 * @param parallelOpsPerSec cache_bench's "Rough parallel ops/sec": all ops over the wall time
 * @param threadOpsPerSec cache_bench's "Thread ops/sec": all ops over the summed thread times
 * @param hitRatio lookups that hit, of all lookups
 * @param entries entries in the cache at the end of the run
 * @param nativeBytes native bytes held at the end of the run (values, tables, slabs)
 * @param maxRssBytes the process's peak resident set so far (VmHWM), or -1 where unknown
 * @param heapUsedBytes Java heap in use after a GC, at the end of the run
 * @param latency per operation kind that ran (empty without {@code -histograms})
 */
record BenchResult(String cacheType, long threads, long opsPerThread, double elapsedSecs,
                   long parallelOpsPerSec, long threadOpsPerSec, double hitRatio, long entries,
                   long nativeBytes, long maxRssBytes, long heapUsedBytes,
                   List<OpLatency> latency) {

    /** One line of flat JSON; {@link #fromJson} reads it back. */
    String toJson() {
        return String.format(Locale.ROOT, "{\"tool\":\"clockwork bench\",\"cache_type\":\"%s\","
                        + "\"threads\":%d,\"ops_per_thread\":%d,\"elapsed_s\":%.6f,"
                        + "\"rough_parallel_ops_per_sec\":%d,\"thread_ops_per_sec\":%d,"
                        + "\"lookup_hit_ratio\":%.6f,\"entries\":%d,\"native_bytes\":%d,"
                        + "\"max_rss_bytes\":%d,\"heap_used_bytes\":%d,\"latency_ns\":{%s}}",
                cacheType, threads, opsPerThread, elapsedSecs, parallelOpsPerSec,
                threadOpsPerSec, hitRatio, entries, nativeBytes, maxRssBytes, heapUsedBytes,
                latency.stream().map(OpLatency::toJson).collect(Collectors.joining(",")));
    }

    /** Reads what {@link #toJson} wrote (only that: a flat object of strings and numbers). */
    static BenchResult fromJson(String json) {
        return new BenchResult(text(json, "cache_type"), (long) number(json, "threads"),
                (long) number(json, "ops_per_thread"), number(json, "elapsed_s"),
                (long) number(json, "rough_parallel_ops_per_sec"),
                (long) number(json, "thread_ops_per_sec"), number(json, "lookup_hit_ratio"),
                (long) number(json, "entries"), (long) number(json, "native_bytes"),
                (long) number(json, "max_rss_bytes"), (long) number(json, "heap_used_bytes"),
                latency(json));
    }

    private static List<OpLatency> latency(String json) {
        List<OpLatency> list = new ArrayList<>();
        Matcher m = Pattern.compile("\"([a-z_]+)\":\\{\"count\":(\\d+),\"p50\":(\\d+),"
                + "\"p99\":(\\d+),\"p99_9\":(\\d+),\"max\":(\\d+)\\}").matcher(json);
        while (m.find()) {
            list.add(new OpLatency(m.group(1), Long.parseLong(m.group(2)),
                    Long.parseLong(m.group(3)), Long.parseLong(m.group(4)),
                    Long.parseLong(m.group(5)), Long.parseLong(m.group(6))));
        }
        return list;
    }

    private static String text(String json, String key) {
        return field(json, key, "\"([^\"]*)\"");
    }

    private static double number(String json, String key) {
        return Double.parseDouble(field(json, key, "(-?[0-9.eE+-]+)"));
    }

    private static String field(String json, String key, String value) {
        Matcher m = Pattern.compile("\"" + key + "\":" + value).matcher(json);
        if (!m.find()) {
            throw new IllegalArgumentException("no \"" + key + "\" in " + json);
        }
        return m.group(1);
    }
}
