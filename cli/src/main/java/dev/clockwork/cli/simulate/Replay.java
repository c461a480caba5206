package dev.clockwork.cli.simulate;

/**
 * Replays a trace through one policy, one access at a time, and counts the hits among the
 * measured accesses. Every access reaches the policy, measured or not (warm-up and polluting
 * accesses still shape the cache).
 */
public final class Replay {
    private Replay() {
    }

    /**
     * Makes a policy for {@code trace} at {@code capacity}, replays the trace through it and
     * closes it.
     */
    public static SimResult run(Trace trace, long capacity, boolean bytes, String policyName,
                                PolicyFactory factory, Progress progress) {
        try (SimPolicy policy = factory.create(trace, capacity, bytes)) {
            long hits = replay(trace, bytes, policy, progress,
                    trace.name() + " capacity " + capacity + " " + policyName);
            return new SimResult(trace.name(), capacity, bytes, policyName,
                    trace.measuredCount(), hits, 1, policy.admissionRejects(), null);
        }
    }

    /** The hits among measured accesses; sizes are the trace's with bytes, else 1. */
    static long replay(Trace trace, boolean bytes, SimPolicy policy, Progress progress,
                       String what) {
        int n = trace.length();
        long hits = 0;
        for (int i = 0; i < n; i++) {
            boolean hit = policy.access(trace.key(i), bytes ? trace.size(i) : 1);
            if (hit && trace.isMeasured(i)) {
                hits++;
            }
            if ((i & (Progress.CHECK_EVERY - 1)) == Progress.CHECK_EVERY - 1) {
                progress.maybeReport(what, i + 1L, n);
            }
        }
        return hits;
    }
}
