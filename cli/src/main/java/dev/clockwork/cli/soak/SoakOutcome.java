package dev.clockwork.cli.soak;

/**
 * Everything a soak's summary judges and prints, gathered once the workers are joined and the
 * cache is closed.
 *
 * @param counts every worker's counters summed ({@link SoakCounters})
 * @param failure the first worker's failure, or null
 * @param last the final sample, taken after every worker released its handles
 * @param partial a signal stopped the run before -duration was up
 */
record SoakOutcome(long[] counts, Throwable failure, SoakMonitor monitor, SoakSample last,
                   LeakCheck leaks, RssCheck rss, boolean partial) {

    long checkFailures() {
        return SoakCounters.failures(counts);
    }

    /** The exit code: the first of the failures that applies, in {@link SoakRun}'s order. */
    int exitCode() {
        return failure != null ? SoakRun.EXIT_ERROR
                : checkFailures() > 0 ? SoakRun.EXIT_CHECK_FAILED
                : !leaks.leakFree() ? SoakRun.EXIT_LEAK
                : !rss.flat() ? SoakRun.EXIT_RSS_GROWTH
                : 0;
    }

    String result() {
        return exitCode() == 0 ? "PASS" : "FAIL";
    }

    /** Length of the timed phase in seconds. */
    double seconds() {
        return last.nanos / 1e9;
    }
}
