package dev.clockwork.docs;

/**
 * One line of a scale result file ({@code clockwork bench -json}): the run's shape (cache type,
 * collector, threads, capacity, value size), its throughput and hit ratio, latency over all
 * operations, and the JVM's and the process's bill (GC, heap, RSS, CPU). Scale runs compare
 * on-heap and off-heap caches at growing capacities, so the table needs more of each line than
 * {@link BenchRun} keeps.
 */
record ScaleRun(String cacheType, String collector, int threads, long cacheSize,
        String valueSize, double opsPerSec, double hitRatio, Latency latency, Jvm jvm,
        long rssBytes, long liveHeapBytes, boolean partial, String admission) {

    /** Latency over all operations, in nanoseconds. */
    record Latency(double p50, double p99, double p999, double p9999, double max) {

        static Latency from(Obj o) {
            return new Latency(o.number("p50"), o.number("p99"), o.number("p99_9"),
                    o.number("p99_99"), o.number("max"));
        }

        /** The percentiles in chart order: P50, P99, P99.9, P99.99, Max. */
        double[] inOrder() {
            return new double[] {p50, p99, p999, p9999, max};
        }
    }

    /** What the run cost the JVM: GC pauses and concurrent cycles, heap at the end, CPU per op. */
    record Jvm(long gcPauses, double gcPauseMs, double gcMaxPauseMs, long gcCycles,
            long heapAtEndBytes, double cpuNsPerOp) {

        static Jvm from(Obj o) {
            return new Jvm(o.integer("gc_pauses", -1), o.number("gc_pause_ms"),
                    o.number("gc_max_pause_ms"), o.integer("gc_cycles", -1),
                    o.integer("heap_used_at_end_bytes", -1), o.number("cpu_ns_per_op"));
        }
    }

    static ScaleRun from(Obj o) {
        Obj flags = o.object("flags");
        Obj jvm = o.object("jvm");
        String collector = jvm.string("collector");
        long cacheSize = flags.integer("cache_size", -1);
        return new ScaleRun(String.valueOf(o.string("cache_type")),
                collector == null ? "" : collector, (int) o.integer("threads", 1), cacheSize,
                valueSize(flags), o.number("rough_parallel_ops_per_sec"),
                o.number("lookup_hit_ratio"), Latency.from(o.object("latency_all_ns")),
                Jvm.from(jvm), o.integer("rss_bytes", -1), o.integer("heap_used_bytes", -1),
                "true".equals(o.string("partial")),
                flags.string("admission") == null ? "none" : flags.string("admission"));
    }

    /** The values written: the mix when there is one ({@code 4096,8192,16384 B}), else one size. */
    private static String valueSize(Obj flags) {
        String mix = flags.string("value_bytes_mix");
        if (mix != null && !mix.isBlank()) {
            return mix.strip() + " B";
        }
        String one = flags.string("value_bytes");
        return one == null ? Fmt.NA : one + " B";
    }

    /**
     * The capacity as people say it: whole GiB from 1 GiB up, else whole MiB; {@code unit} joins
     * number and unit (a space in text, nothing in a file name).
     */
    String capacity(String unit) {
        if (cacheSize < 0) {
            return Fmt.NA;
        }
        double mib = cacheSize / (1024.0 * 1024.0);
        return mib >= 1024 ? Math.round(mib / 1024) + unit + "GiB" : Math.round(mib) + unit + "MiB";
    }

    double capacityGib() {
        return cacheSize / (1024.0 * 1024.0 * 1024.0);
    }
}
