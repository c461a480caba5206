package dev.clockwork.cli.bench;

import dev.clockwork.cli.workload.JvmBill;
import dev.clockwork.cli.workload.ProcessStats;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * {@code bench -compare}'s summary: one row per entry run on the same workload, with its
 * throughput as a ratio to the first entry's, then the tail and the JVM's bill of each: the
 * latency percentiles over all operations, the collectors' pauses, the heap and RSS at the
 * end, and the CPU time per operation.
 */
final class CompareTable {
    private CompareTable() {
    }

    /**
     * @param labels each result's {@code -compare} entry ({@code caffeine:zgc}), same order
     */
    static void print(List<BenchResult> results, List<String> labels, PrintWriter out) {
        if (results.isEmpty()) {
            return;
        }
        long base = results.get(0).parallelOpsPerSec();
        out.println();
        out.println("Comparison (same flags and seed; ratio = rough parallel ops/sec over "
                + labels.get(0) + "'s):");
        out.printf(Locale.ROOT, "%-26s %12s %7s %9s %10s %10s%n", "entry", "ops/sec", "ratio",
                "Hit ratio", "Entries", "Native MiB");
        for (int i = 0; i < results.size(); i++) {
            BenchResult r = results.get(i);
            out.printf(Locale.ROOT, "%-26s %12d %6.2fx %9.4f %10d %10s%n", label(r, labels.get(i)),
                    r.parallelOpsPerSec(), base == 0 ? 0.0 : (double) r.parallelOpsPerSec() / base,
                    r.hitRatio(), r.entries(), ProcessStats.mib(r.nativeBytes()));
        }
        out.println();
        out.println("Latency over all operations (us), the JVM's bill of the timed run, and the"
                + " longest platform stall (us; Hiccups):");
        out.printf(Locale.ROOT, "%-26s %7s %7s %8s %8s %9s %7s %9s %9s %9s %9s %8s %10s%n",
                "entry", "P50", "P99", "P99.9", "P99.99", "Max", "Pauses", "Pause ms", "Max ms",
                "Heap MiB", "RSS MiB", "CPU/op", "Stall max");
        for (int i = 0; i < results.size(); i++) {
            BenchResult r = results.get(i);
            OpLatency l = r.allOps();
            JvmBill.Bill b = r.bill();
            out.printf(Locale.ROOT, "%-26s %7s %7s %8s %8s %9s %7s %9s %9s %9s %9s %8s %10s%n",
                    label(r, labels.get(i)), us(l == null ? -1 : l.p50()),
                    us(l == null ? -1 : l.p99()), us(l == null ? -1 : l.p999()),
                    us(l == null ? -1 : l.p9999()), us(l == null ? -1 : l.max()),
                    b == null ? "-" : String.valueOf(b.pauses()),
                    b == null ? "-" : String.valueOf(b.pauseMillis()),
                    b == null ? "-" : b.pauses() == 0 ? "-" : String.valueOf(b.maxPauseMillis()),
                    b == null ? "-" : ProcessStats.mib(b.heapUsedBytes()),
                    r.rssBytes() < 0 ? "-" : ProcessStats.mib(r.rssBytes()),
                    b == null ? "-" : String.format(Locale.ROOT, "%.0f ns",
                            b.cpuNanosPerOp(Math.round(r.parallelOpsPerSec() * r.elapsedSecs()))),
                    r.stalls() == null ? "-" : us(r.stalls().maxNanos()));
        }
        if (results.stream().anyMatch(BenchResult::partial)) {
            out.println("(partial: stopped early; its figures cover the operations it did)");
        }
        out.flush();
    }

    private static String label(BenchResult r, String label) {
        return label + (r.partial() ? " (partial)" : "");
    }

    /** Nanoseconds as microseconds, one decimal below 100; "-" when unknown. */
    private static String us(long nanos) {
        if (nanos < 0) {
            return "-";
        }
        double us = nanos / 1000.0;
        return us < 100 ? String.format(Locale.ROOT, "%.1f", us)
                : String.format(Locale.ROOT, "%.0f", us);
    }
}
