package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Names the entries of a scale comparison, in one place: an entry is a cache type, and for the
 * on-heap Caffeine also the collector it ran under (its numbers depend on it; the off-heap caches'
 * hardly do). Names are readable ({@code Clockwork auto}, {@code Caffeine (ZGC)}); a cache type
 * not listed here shows as it is spelled in the results.
 */
final class ScaleEntries {

    static final String CAFFEINE = "caffeine";

    private static final Map<String, String> NAMES = Map.of(
            "auto_hyper_clock_cache", "Clockwork auto",
            "fixed_hyper_clock_cache", "Clockwork fixed",
            "lru_cache", "Clockwork LRU",
            CAFFEINE, "Caffeine",
            "ohc_linked", "OHC linked",
            "ohc_chunked", "OHC chunked");

    private ScaleEntries() {
    }

    /**
     * The entry's display name; a Clockwork run with an admission policy names it
     * ({@code Clockwork auto + tinylfu}); a partial run (stopped early) says so.
     */
    static String name(ScaleRun run) {
        String name = NAMES.getOrDefault(run.cacheType(), run.cacheType());
        if (!isCaffeine(run) && !run.cacheType().startsWith("ohc")
                && !"none".equals(run.admission())) {
            name += " + " + run.admission();
        }
        if (isCaffeine(run)) {
            String gc = collector(run.collector());
            name += gc.isEmpty() ? "" : " (" + gc + ")";
        }
        return run.partial() ? name + " (partial)" : name;
    }

    static boolean isCaffeine(ScaleRun run) {
        return CAFFEINE.equals(run.cacheType());
    }

    /**
     * The collector's short name from the JVM's list of its collector beans: {@code G1},
     * {@code ZGC}, {@code Parallel}, else the first word of the list.
     */
    static String collector(String beans) {
        String s = beans.strip();
        if (s.startsWith("G1")) {
            return "G1";
        }
        if (s.contains("ZGC")) {
            return "ZGC";
        }
        if (s.startsWith("PS ") || s.contains("Parallel")) {
            return "Parallel";
        }
        return s.isEmpty() ? "" : s.split("[\\s,]+")[0];
    }

    /** The distinct entry names in order of first appearance: the series order (and colours). */
    static List<String> inOrder(List<ScaleRun> runs) {
        LinkedHashSet<String> names = new LinkedHashSet<>();
        runs.forEach(r -> names.add(name(r)));
        return new ArrayList<>(names);
    }
}
