package dev.clockwork.cli.simulate;

/**
 * One replay's outcome.
 *
 * @param trace the trace's name
 * @param capacity in entries, or bytes when {@code bytes}
 * @param policy the policy's registered name
 * @param accesses the measured accesses (all of them, but for the pollution scenario)
 * @param hits hits among the measured accesses
 * @param threads the threads that replayed the trace through the policy
 * @param admissionRejects the cache's {@code admissionRejects} after the replay, or
 *     {@link #NOT_EXPOSED} for a policy that does not count them (all but the Clockwork types)
 * @param singleThread with {@code threads > 1}, the same policy's single-threaded result on the
 *     same trace and capacity; else null
 */
public record SimResult(String trace, long capacity, boolean bytes, String policy,
                        long accesses, long hits, int threads, long admissionRejects,
                        SimResult singleThread) {

    /** {@link #admissionRejects} of a policy that does not count admission rejects. */
    public static final long NOT_EXPOSED = -1;

    /** A single-threaded result of a policy that does not count admission rejects. */
    public SimResult(String trace, long capacity, boolean bytes, String policy, long accesses,
                     long hits) {
        this(trace, capacity, bytes, policy, accesses, hits, 1, NOT_EXPOSED, null);
    }

    /** hits / accesses; 0 for no accesses. */
    public double hitRatio() {
        return accesses == 0 ? 0.0 : (double) hits / accesses;
    }

    /** This result with {@code single}, the same replay on one thread, beside it. */
    public SimResult besideSingleThread(SimResult single) {
        return new SimResult(trace, capacity, bytes, policy, accesses, hits, threads,
                admissionRejects, single);
    }
}
