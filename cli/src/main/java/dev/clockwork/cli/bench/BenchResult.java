package dev.clockwork.cli.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.clockwork.cli.common.Json;
import dev.clockwork.cli.workload.Hiccups;
import dev.clockwork.cli.workload.JvmBill;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * @param partial the run was stopped early (SIGTERM, Ctrl-C): the figures cover the operations
 *     done, fewer than threads x ops_per_thread
 * @param allOps latency over every operation of the run (its op name is {@link OpLatency#ALL}),
 *     or null without {@code -histograms} or when read from a line that had none
 * @param bill what the JVM spent during the timed phase (collections, pauses, heap, CPU), or
 *     null when read from a line that had none
 * @param stalls the platform's stalls seen by a sleeping thread during the timed phase, or null
 *     when read from a line that had none
 * @param rssBytes the process's resident set at the end of the timed phase (VmRSS), or -1
 */
record BenchResult(String cacheType, long threads, long opsPerThread, double elapsedSecs,
                   long parallelOpsPerSec, long threadOpsPerSec, double hitRatio, long entries,
                   long nativeBytes, long maxRssBytes, long heapUsedBytes,
                   List<OpLatency> latency, Map<String, String> flags, TableStats table,
                   OpLatency gatherStats, boolean partial, OpLatency allOps,
                   JvmBill.Bill bill, Hiccups.Seen stalls, long rssBytes) {

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
                null, null, false, null, null, null, -1);
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
        /** The figures the cache has; those it does not have (-1) are left out. */
        ObjectNode toJson() {
            ObjectNode node = Json.object();
            if (slots >= 0) {
                node.put("occupancy", occupancy).put("slots", slots);
                Json.putRounded(node, "load_factor",
                        slots == 0 ? 0.0 : (double) occupancy / slots);
            }
            if (evictionEffortExceeded >= 0) {
                node.put("eviction_effort_exceeded", evictionEffortExceeded);
            }
            if (pinnedCount >= 0) {
                node.put("pinned_count", pinnedCount);
            }
            return node;
        }

        static TableStats fromJson(JsonNode node) {
            return new TableStats(optionalLong(node, "occupancy"), optionalLong(node, "slots"),
                    optionalLong(node, "eviction_effort_exceeded"),
                    optionalLong(node, "pinned_count"));
        }

        private static long optionalLong(JsonNode node, String key) {
            JsonNode value = node.get(key);
            return value != null && value.isNumber() ? value.asLong() : -1;
        }
    }

    /**
     * One line of JSON; {@link #fromJson} reads it back. The fields of the first version come
     * first and unchanged; {@code flags} (numbers and booleans as JSON numbers and booleans),
     * {@code table}, {@code gather_stats_us} and {@code partial} follow.
     */
    String toJson() {
        ObjectNode node = Json.object()
                .put("tool", "clockwork bench")
                .put("cache_type", cacheType)
                .put("threads", threads)
                .put("ops_per_thread", opsPerThread);
        Json.putRounded(node, "elapsed_s", elapsedSecs)
                .put("rough_parallel_ops_per_sec", parallelOpsPerSec)
                .put("thread_ops_per_sec", threadOpsPerSec);
        Json.putRounded(node, "lookup_hit_ratio", hitRatio)
                .put("entries", entries)
                .put("native_bytes", nativeBytes)
                .put("max_rss_bytes", maxRssBytes)
                .put("heap_used_bytes", heapUsedBytes);
        ObjectNode latencyNode = node.putObject("latency_ns");
        latency.forEach(l -> latencyNode.set(l.op(), l.toJson()));
        if (!flags.isEmpty()) {
            ObjectNode flagsNode = node.putObject("flags");
            flags.forEach((name, value) -> flagsNode.set(name, Json.flagValue(value)));
        }
        if (table != null) {
            node.set("table", table.toJson());
        }
        if (gatherStats != null) {
            node.set(GATHER_STATS, gatherStats.toJson());
        }
        node.put("partial", partial);
        if (allOps != null) {
            node.set("latency_all_ns", allOps.toJson());
        }
        if (bill != null) {
            node.set("jvm", billJson(bill, parallelOpsPerSec * elapsedSecs));
        }
        if (stalls != null) {
            node.putObject("stalls").put("p99_9_ns", stalls.p999Nanos())
                    .put("max_ns", stalls.maxNanos()).put("steal_ms", stalls.stealMillis());
        }
        node.put("rss_bytes", rssBytes);
        return Json.line(node);
    }

    /**
     * Reads what {@link #toJson} wrote: the first version's fields are required; the later ones
     * ({@code flags}, {@code table}, {@code gather_stats_us}, {@code partial}) are read when
     * present, and other fields are ignored, so that lines of older and newer versions both
     * read. Flag values read as their text, whether the line has them as strings or as numbers.
     *
     * @throws IllegalArgumentException if the line is not JSON or lacks a required field
     */
    static BenchResult fromJson(String line) {
        JsonNode node = Json.read(line);
        List<OpLatency> latency = new ArrayList<>();
        node.path("latency_ns").properties()
                .forEach(e -> latency.add(OpLatency.fromJson(e.getKey(), e.getValue())));
        Map<String, String> flags = new LinkedHashMap<>();
        node.path("flags").properties().forEach(e -> flags.put(e.getKey(), e.getValue().asText()));
        JsonNode table = node.get("table");
        JsonNode gather = node.get(GATHER_STATS);
        JsonNode all = node.get("latency_all_ns");
        JsonNode jvm = node.get("jvm");
        JsonNode stalls = node.get("stalls");
        return new BenchResult(required(node, "cache_type").asText(),
                required(node, "threads").asLong(), required(node, "ops_per_thread").asLong(),
                required(node, "elapsed_s").asDouble(),
                required(node, "rough_parallel_ops_per_sec").asLong(),
                required(node, "thread_ops_per_sec").asLong(),
                required(node, "lookup_hit_ratio").asDouble(), required(node, "entries").asLong(),
                required(node, "native_bytes").asLong(), required(node, "max_rss_bytes").asLong(),
                required(node, "heap_used_bytes").asLong(), List.copyOf(latency), flags,
                table == null || !table.isObject() ? null : TableStats.fromJson(table),
                gather == null || !gather.isObject() ? null
                        : OpLatency.fromJson(GATHER_STATS, gather),
                node.path("partial").asBoolean(false),
                all == null || !all.isObject() ? null : OpLatency.fromJson(OpLatency.ALL, all),
                jvm == null || !jvm.isObject() ? null : billFromJson(jvm),
                stalls == null || !stalls.isObject() ? null
                        : new Hiccups.Seen(stalls.path("p99_9_ns").asLong(),
                                stalls.path("max_ns").asLong(), stalls.path("steal_ms").asLong(-1)),
                node.path("rss_bytes").asLong(-1));
    }

    private static ObjectNode billJson(JvmBill.Bill b, double ops) {
        ObjectNode node = Json.object()
                .put("collector", b.collector())
                .put("gc_pauses", b.pauses())
                .put("gc_pause_ms", b.pauseMillis())
                .put("gc_max_pause_ms", b.maxPauseMillis())
                .put("gc_cycles", b.cycles())
                .put("gc_cycle_ms", b.cycleMillis())
                .put("heap_after_last_gc_bytes", b.heapAfterLastGcBytes())
                .put("heap_used_at_end_bytes", b.heapUsedBytes())
                .put("max_heap_bytes", b.maxHeapBytes())
                .put("cpu_ns", b.cpuNanos());
        Json.putRounded(node, "cpu_ns_per_op", b.cpuNanosPerOp(Math.round(ops)));
        return node;
    }

    private static JvmBill.Bill billFromJson(JsonNode n) {
        return new JvmBill.Bill(n.path("collector").asText(), n.path("gc_pauses").asLong(),
                n.path("gc_pause_ms").asLong(), n.path("gc_max_pause_ms").asLong(),
                n.path("gc_cycles").asLong(), n.path("gc_cycle_ms").asLong(),
                n.path("heap_after_last_gc_bytes").asLong(-1),
                n.path("heap_used_at_end_bytes").asLong(), n.path("max_heap_bytes").asLong(),
                n.path("cpu_ns").asLong(-1));
    }

    private static JsonNode required(JsonNode node, String key) {
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("no field " + key + " in " + node);
        }
        return value;
    }
}
