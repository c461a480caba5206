package dev.clockwork.offheap.model;

import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of the situations the sequences reached (hits, evictions, refusals, standalone entries,
 * exact accounting checks, ...), printed after each test class so a run shows what it exercised.
 * Single-threaded, like the models.
 */
final class Coverage {
    private static final Map<String, Long> COUNTS = new TreeMap<>();

    private Coverage() {
    }

    static void count(String what) {
        COUNTS.merge(what, 1L, Long::sum);
    }

    static void count(String what, long n) {
        if (n != 0) {
            COUNTS.merge(what, n, Long::sum);
        }
    }

    /** The counts so far, as one line each, and resets them. */
    static String drain() {
        StringBuilder b = new StringBuilder();
        COUNTS.forEach((k, v) -> b.append(String.format("  %-44s %,d%n", k, v)));
        COUNTS.clear();
        return b.toString();
    }
}
