package dev.clockwork.cli.simulate;

import java.util.List;

/**
 * Runs every (capacity, policy) of a trace, in that order, one replay at a time, and hands each
 * result to the report as it is made. A replay runs on the calling thread, but with
 * {@code threads > 1} a concurrent policy ({@link PolicyFactory#concurrent}) is replayed twice:
 * on the calling thread, then from {@code threads} threads ({@link ConcurrentReplay}); the
 * result is the second, with the first beside it. A policy that is not concurrent is replayed
 * on the calling thread only, and its result says one thread.
 */
public final class Simulation {
    private final PolicyRegistry registry;
    private final List<String> policies;
    private final SimReport report;
    private final Progress progress;
    private final int threads;

    /** @param policies names registered in {@code registry} */
    public Simulation(PolicyRegistry registry, List<String> policies, SimReport report,
                      Progress progress) {
        this(registry, policies, report, progress, 1);
    }

    /**
     * @param policies names registered in {@code registry}
     * @param threads the threads a concurrent policy is replayed from, at least 1
     */
    public Simulation(PolicyRegistry registry, List<String> policies, SimReport report,
                      Progress progress, int threads) {
        this.registry = registry;
        this.policies = List.copyOf(policies);
        this.report = report;
        this.progress = progress;
        this.threads = threads;
    }

    /** Replays {@code trace} at each capacity through each policy. */
    public void run(Trace trace, List<Long> capacities, boolean bytes) {
        report.traceStarted(trace);
        for (long capacity : capacities) {
            for (String policy : policies) {
                PolicyFactory factory = registry.factory(policy);
                SimResult single = Replay.run(trace, capacity, bytes, policy, factory, progress);
                if (threads > 1 && factory.concurrent()) {
                    report.row(ConcurrentReplay.run(trace, capacity, bytes, policy, factory,
                            threads, progress).besideSingleThread(single));
                } else {
                    report.row(single);
                }
            }
        }
        report.traceDone();
    }
}
