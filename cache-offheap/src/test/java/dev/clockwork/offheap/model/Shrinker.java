package dev.clockwork.offheap.model;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Minimises a failing op sequence by delta debugging (Zeller's ddmin, complements only): remove
 * chunks of halving size while the rest still fails, down to single ops, so the result is
 * 1-minimal (removing any one op makes it pass) unless the run budget ends first; then shortens
 * value lengths to the minimum where that still fails.
 */
final class Shrinker {
    private final Predicate<List<Op>> fails;
    private final int maxRuns;
    private int runs;

    Shrinker(Predicate<List<Op>> fails, int maxRuns) {
        this.fails = fails;
        this.maxRuns = maxRuns;
    }

    int runs() {
        return runs;
    }

    private boolean test(List<Op> ops) {
        runs++;
        return fails.test(ops);
    }

    List<Op> shrink(List<Op> failing) {
        List<Op> ops = new ArrayList<>(failing);
        int granularity = 2;
        while (ops.size() >= 2 && runs < maxRuns) {
            int chunk = (ops.size() + granularity - 1) / granularity;
            boolean reduced = false;
            for (int start = 0; start < ops.size() && runs < maxRuns; start += chunk) {
                List<Op> candidate = new ArrayList<>(ops.subList(0, start));
                candidate.addAll(ops.subList(Math.min(ops.size(), start + chunk), ops.size()));
                if (test(candidate)) {
                    ops = candidate;
                    granularity = Math.max(granularity - 1, 2);
                    reduced = true;
                    break;
                }
            }
            if (!reduced) {
                if (granularity >= ops.size()) {
                    break;
                }
                granularity = Math.min(ops.size(), granularity * 2);
            }
        }
        for (int i = 0; i < ops.size() && runs < maxRuns; i++) {
            Op o = ops.get(i);
            if (o.length() > Values.HEADER) {
                List<Op> candidate = new ArrayList<>(ops);
                candidate.set(i, new Op(o.kind(), o.key(), o.charge(), Values.HEADER, o.priority(),
                        o.pick(), o.flag(), o.capacity()));
                if (test(candidate)) {
                    ops = candidate;
                }
            }
        }
        return ops;
    }
}
