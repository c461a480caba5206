package dev.clockwork.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * @param flags every bench flag's name (without the dash) and value, as given or defaulted
 *     (empty when read from a line that had none)
 * @param table the table figures of the report, or null when read from a line that had none
 * @param gatherStats the {@code -gather_stats} walks' durations in microseconds (its op name is
 *     {@link #GATHER_STATS}), or null without {@code -gather_stats}
 */
record BenchResult(String cacheType, long threads, long opsPerThread, double elapsedSecs,
                   long parallelOpsPerSec, long threadOpsPerSec, double hitRatio, long entries,
                   long nativeBytes, long maxRssBytes, long heapUsedBytes,
                   List<OpLatency> latency, Map<String, String> flags, TableStats table,
                   OpLatency gatherStats) {

    /** The JSON key, and {@link OpLatency#op()}, of {@link #gatherStats}. */
    static final String GATHER_STATS = "gather_stats_us";

    BenchResult {
        flags = flags == null ? Map.of() : flags;
    }

    /** The figures of the first version of the line: no flags, table or gather statistics. */
    BenchResult(String cacheType, long threads, long opsPerThread, double elapsedSecs,
                long parallelOpsPerSec, long threadOpsPerSec, double hitRatio, long entries,
                long nativeBytes, long maxRssBytes, long heapUsedBytes,
                List<OpLatency> latency) {
        this(cacheType, threads, opsPerThread, elapsedSecs, parallelOpsPerSec, threadOpsPerSec,
                hitRatio, entries, nativeBytes, maxRssBytes, heapUsedBytes, latency, Map.of(),
                null, null);
    }

    /**
     * What the report prints about the cache's table at the end of the run; -1 for what a cache
     * type does not have (an LRU cache has no slot table and no eviction effort cap).
     *
     * @param occupancy entries in the table ("Final load factor"'s numerator)
     * @param slots slots of the table (its denominator)
     * @param evictionEffortExceeded eviction runs that gave up because of the effort cap
     * @param pinnedCount handles the workers held when they finished ("Final pinned count")
     */
    record TableStats(long occupancy, long slots, long evictionEffortExceeded, long pinnedCount) {
        String toJson() {
            List<String> fields = new ArrayList<>();
            if (slots >= 0) {
                fields.add("\"occupancy\":" + occupancy);
                fields.add("\"slots\":" + slots);
                fields.add(String.format(Locale.ROOT, "\"load_factor\":%.6f",
                        slots == 0 ? 0.0 : (double) occupancy / slots));
            }
            if (evictionEffortExceeded >= 0) {
                fields.add("\"eviction_effort_exceeded\":" + evictionEffortExceeded);
            }
            if (pinnedCount >= 0) {
                fields.add("\"pinned_count\":" + pinnedCount);
            }
            return "{" + String.join(",", fields) + "}";
        }

        static TableStats fromJson(String object) {
            return new TableStats(optionalLong(object, "occupancy"), optionalLong(object, "slots"),
                    optionalLong(object, "eviction_effort_exceeded"),
                    optionalLong(object, "pinned_count"));
        }
    }

    /**
     * One line of JSON; {@link #fromJson} reads it back. The fields of the first version come
     * first and unchanged; {@code flags}, {@code table} and {@code gather_stats_us} follow.
     */
    String toJson() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "{\"tool\":\"clockwork bench\",\"cache_type\":\"%s\","
                        + "\"threads\":%d,\"ops_per_thread\":%d,\"elapsed_s\":%.6f,"
                        + "\"rough_parallel_ops_per_sec\":%d,\"thread_ops_per_sec\":%d,"
                        + "\"lookup_hit_ratio\":%.6f,\"entries\":%d,\"native_bytes\":%d,"
                        + "\"max_rss_bytes\":%d,\"heap_used_bytes\":%d,\"latency_ns\":{%s}",
                cacheType, threads, opsPerThread, elapsedSecs, parallelOpsPerSec,
                threadOpsPerSec, hitRatio, entries, nativeBytes, maxRssBytes, heapUsedBytes,
                latency.stream().map(OpLatency::toJson).collect(Collectors.joining(","))));
        if (!flags.isEmpty()) {
            sb.append(",\"flags\":{").append(flags.entrySet().stream()
                    .map(e -> quote(e.getKey()) + ":" + quote(e.getValue()))
                    .collect(Collectors.joining(","))).append('}');
        }
        if (table != null) {
            sb.append(",\"table\":").append(table.toJson());
        }
        if (gatherStats != null) {
            sb.append(',').append(gatherStats.toJson());
        }
        return sb.append('}').toString();
    }

    /**
     * Reads what {@link #toJson} wrote: the first version's fields are required; the later ones
     * ({@code flags}, {@code table}, {@code gather_stats_us}) are read when present, and other
     * fields are ignored, so that lines of older and newer versions both read.
     */
    static BenchResult fromJson(String json) {
        String latencyObject = object(json, "latency_ns");
        String flagsObject = object(json, "flags");
        String tableObject = object(json, "table");
        String gather = object(json, GATHER_STATS);
        return new BenchResult(text(json, "cache_type"), (long) number(json, "threads"),
                (long) number(json, "ops_per_thread"), number(json, "elapsed_s"),
                (long) number(json, "rough_parallel_ops_per_sec"),
                (long) number(json, "thread_ops_per_sec"), number(json, "lookup_hit_ratio"),
                (long) number(json, "entries"), (long) number(json, "native_bytes"),
                (long) number(json, "max_rss_bytes"), (long) number(json, "heap_used_bytes"),
                latencyObject == null ? List.of() : latency(latencyObject),
                flagsObject == null ? Map.of() : strings(flagsObject),
                tableObject == null ? null : TableStats.fromJson(tableObject),
                gather == null ? null : latency("\"" + GATHER_STATS + "\":{" + gather + "}")
                        .stream().findFirst().orElse(null));
    }

    private static final Pattern LATENCY = Pattern.compile("\"([a-z_0-9]+)\":\\{\"count\":(\\d+),"
            + "\"p50\":(\\d+),\"p99\":(\\d+),\"p99_9\":(\\d+),\"max\":(\\d+)\\}");

    private static List<OpLatency> latency(String json) {
        List<OpLatency> list = new ArrayList<>();
        Matcher m = LATENCY.matcher(json);
        while (m.find()) {
            list.add(new OpLatency(m.group(1), Long.parseLong(m.group(2)),
                    Long.parseLong(m.group(3)), Long.parseLong(m.group(4)),
                    Long.parseLong(m.group(5)), Long.parseLong(m.group(6))));
        }
        return list;
    }

    private static final Pattern STRING_FIELD =
            Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\":\"((?:[^\"\\\\]|\\\\.)*)\"");

    private static Map<String, String> strings(String object) {
        Map<String, String> map = new LinkedHashMap<>();
        Matcher m = STRING_FIELD.matcher(object);
        while (m.find()) {
            map.put(unquote(m.group(1)), unquote(m.group(2)));
        }
        return map;
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    private static String unquote(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                if (n == 'u' && i + 4 < s.length()) {
                    sb.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    i += 4;
                } else {
                    sb.append(n);
                }
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /**
     * The inside of the object that {@code "key":} introduces, up to its matching brace (strings
     * and nested objects skipped over), or null if there is no such object.
     */
    private static String object(String json, String key) {
        int start = json.indexOf("\"" + key + "\":{");
        if (start < 0) {
            return null;
        }
        int from = start + key.length() + 4;
        int depth = 1;
        boolean inString = false;
        for (int i = from; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return json.substring(from, i);
            }
        }
        return null;
    }

    private static long optionalLong(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":(-?[0-9]+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
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
