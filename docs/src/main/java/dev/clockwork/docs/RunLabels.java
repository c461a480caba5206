package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Names the runs of one bench file: the cache type, plus the thread count and each flag only when
 * they differ between the file's runs (a sweep file then reads {@code lru_cache
 * eviction_effort_cap=30}). A label has two parts, so charts can put the cache along the axis and
 * the flag values in the legend; a repeated label gets {@code #2}, {@code #3} so every run shows.
 */
final class RunLabels {

    /** One run's name: what it runs ({@code base}) and how it differs ({@code variant}). */
    record Label(String base, String variant) {

        String full() {
            return variant.isEmpty() ? base : base + " " + variant;
        }
    }

    private RunLabels() {
    }

    /** One label per run, in run order, each distinct. */
    static List<Label> of(List<BenchRun> runs) {
        List<String> flags = varyingFlags(runs, null);
        boolean threadsVary = threadsVary(runs);
        Map<String, Integer> seen = new HashMap<>();
        List<Label> out = new ArrayList<>();
        for (BenchRun r : runs) {
            String base = base(r, threadsVary);
            String variant = Varying.label("", r.flags(), flags).strip();
            int n = seen.merge(base + " " + variant, 1, Integer::sum);
            out.add(new Label(base, n == 1 ? variant : (variant + " #" + n).strip()));
        }
        return out;
    }

    /** The full labels of {@link #of}. */
    static List<String> full(List<BenchRun> runs) {
        return of(runs).stream().map(Label::full).toList();
    }

    /** The name of a run leaving one flag out (the x axis of a sweep); not made distinct. */
    static String without(List<BenchRun> runs, String flag, BenchRun run) {
        return Varying.label(base(run, threadsVary(runs)), run.flags(), varyingFlags(runs, flag));
    }

    private static String base(BenchRun r, boolean threadsVary) {
        return r.cacheType() + (threadsVary ? " " + r.threads() + "t" : "");
    }

    private static boolean threadsVary(List<BenchRun> runs) {
        return runs.stream().map(BenchRun::threads).distinct().count() > 1;
    }

    private static List<String> varyingFlags(List<BenchRun> runs, String leftOut) {
        List<String> flags = new ArrayList<>(
                Varying.keys(runs.stream().map(BenchRun::flags).toList()));
        flags.removeAll(List.of("cache_type", "threads"));
        flags.remove(leftOut);
        return flags;
    }
}
