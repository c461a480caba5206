package dev.clockwork.cli.simulate;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The default report: per trace, a line naming it and its size, then a table with a row per
 * capacity and a column per policy, hit ratios in percent. Under the policies' names a row
 * {@code threads} says how many threads replayed each column; a column replayed from several
 * has the same policy's single-threaded figure beside each ratio, in brackets ({@code 2 [1]}
 * over {@code 84.70 [84.77]}). Rows of a trace are held until {@link #traceDone}, then printed
 * together.
 */
public final class TableReport implements SimReport {
    private final PrintWriter out;
    private final List<String> policies = new ArrayList<>();
    /** capacity to (policy to result), in the order they came. */
    private final Map<Long, Map<String, SimResult>> rows = new LinkedHashMap<>();
    private boolean bytes;

    public TableReport(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void traceStarted(Trace trace) {
        policies.clear();
        rows.clear();
        String measured = trace.measuredCount() == trace.length() ? ""
                : String.format(Locale.ROOT, " (%,d measured)", trace.measuredCount());
        out.printf(Locale.ROOT, "%s: %,d accesses%s, %,d distinct keys; hit ratio, %%%n",
                trace.name(), trace.length(), measured, trace.distinctKeys());
        out.flush();
    }

    @Override
    public void row(SimResult r) {
        if (!policies.contains(r.policy())) {
            policies.add(r.policy());
        }
        bytes = r.bytes();
        rows.computeIfAbsent(r.capacity(), c -> new LinkedHashMap<>()).put(r.policy(), r);
    }

    @Override
    public void traceDone() {
        String first = bytes ? "capacity (bytes)" : "capacity (entries)";
        int firstWidth = first.length();
        StringBuilder header = new StringBuilder(String.format("%" + firstWidth + "s", first));
        for (String p : policies) {
            header.append("  ").append(String.format("%" + width(p) + "s", p));
        }
        out.println(header);
        StringBuilder threads = new StringBuilder(String.format("%" + firstWidth + "s",
                "threads"));
        for (String p : policies) {
            threads.append("  ").append(String.format("%" + width(p) + "s", threadsCell(p)));
        }
        out.println(threads);
        for (Map.Entry<Long, Map<String, SimResult>> row : rows.entrySet()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "%" + firstWidth + "d", row.getKey()));
            for (String p : policies) {
                SimResult r = row.getValue().get(p);
                String cell = r == null ? "-" : percent(r) + (r.singleThread() == null ? ""
                        : " [" + percent(r.singleThread()) + "]");
                line.append("  ").append(String.format("%" + width(p) + "s", cell));
            }
            out.println(line);
        }
        out.println();
        out.flush();
    }

    private static String percent(SimResult r) {
        return String.format(Locale.ROOT, "%.2f", 100.0 * r.hitRatio());
    }

    /** The threads of a policy's column: its results', with the single-threaded run's beside. */
    private String threadsCell(String policy) {
        for (Map<String, SimResult> row : rows.values()) {
            SimResult r = row.get(policy);
            if (r != null) {
                return r.threads() + (r.singleThread() == null ? "" : " [1]");
            }
        }
        return "-";
    }

    private int width(String policy) {
        boolean beside = rows.values().stream().map(row -> row.get(policy))
                .anyMatch(r -> r != null && r.singleThread() != null);
        return Math.max(policy.length(), beside ? "100.00 [100.00]".length() : "100.00".length());
    }
}
