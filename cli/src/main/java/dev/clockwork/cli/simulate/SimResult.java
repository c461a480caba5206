package dev.clockwork.cli.simulate;

/**
 * One replay's outcome.
 *
 * @param trace the trace's name
 * @param capacity in entries, or bytes when {@code bytes}
 * @param policy the policy's registered name
 * @param accesses the measured accesses (all of them, but for the pollution scenario)
 * @param hits hits among the measured accesses
 */
public record SimResult(String trace, long capacity, boolean bytes, String policy,
                        long accesses, long hits) {

    /** hits / accesses; 0 for no accesses. */
    public double hitRatio() {
        return accesses == 0 ? 0.0 : (double) hits / accesses;
    }
}
