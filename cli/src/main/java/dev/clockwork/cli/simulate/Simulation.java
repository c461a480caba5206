package dev.clockwork.cli.simulate;

import java.util.List;

/**
 * Runs every (capacity, policy) of a trace, in that order, one replay at a time on the calling
 * thread, and hands each result to the report as it is made.
 */
public final class Simulation {
    private final PolicyRegistry registry;
    private final List<String> policies;
    private final SimReport report;
    private final Progress progress;

    /** @param policies names registered in {@code registry} */
    public Simulation(PolicyRegistry registry, List<String> policies, SimReport report,
                      Progress progress) {
        this.registry = registry;
        this.policies = List.copyOf(policies);
        this.report = report;
        this.progress = progress;
    }

    /** Replays {@code trace} at each capacity through each policy. */
    public void run(Trace trace, List<Long> capacities, boolean bytes) {
        report.traceStarted(trace);
        for (long capacity : capacities) {
            for (String policy : policies) {
                report.row(Replay.run(trace, capacity, bytes, policy, registry.factory(policy),
                        progress));
            }
        }
        report.traceDone();
    }
}
