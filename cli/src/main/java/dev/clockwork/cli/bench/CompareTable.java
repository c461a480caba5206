package dev.clockwork.cli.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import dev.clockwork.cli.workload.ProcessStats;

/**
 * {@code bench -compare}'s summary: one row per cache type run on the same workload, with its
 * throughput as a ratio to the first type's.
 */
final class CompareTable {
    private CompareTable() {
    }

    static void print(List<BenchResult> results, PrintWriter out) {
        if (results.isEmpty()) {
            return;
        }
        long base = results.get(0).parallelOpsPerSec();
        out.println();
        out.println("Comparison (same flags and seed; ratio = rough parallel ops/sec over "
                + results.get(0).cacheType() + "'s):");
        out.printf(Locale.ROOT, "%-24s %22s %8s %15s %10s %10s %11s%n", "cache_type",
                "Rough parallel ops/sec", "ratio", "Thread ops/sec", "Hit ratio", "Entries",
                "Native MiB");
        for (BenchResult r : results) {
            String type = r.cacheType() + (r.partial() ? " (partial)" : "");
            out.printf(Locale.ROOT, "%-24s %22d %7.2fx %15d %10.4f %10d %11s%n", type,
                    r.parallelOpsPerSec(), base == 0 ? 0.0 : (double) r.parallelOpsPerSec() / base,
                    r.threadOpsPerSec(), r.hitRatio(), r.entries(),
                    ProcessStats.mib(r.nativeBytes()));
        }
        if (results.stream().anyMatch(BenchResult::partial)) {
            out.println("(partial: stopped early; its figures cover the operations it did)");
        }
        out.flush();
    }
}
