package dev.clockwork.cli.soak;

/** One sample of the run: what an interval line and the summary report. */
final class SoakSample {
    /** Since the start of the timed phase. */
    long nanos;
    long ops;
    long lookups;
    long hits;
    long failures;
    /** -1 when the OS does not say. */
    long rss;
    long nativeBytes;
    long heapUsed;
    long usage;
    long capacity;
    long entries;
}
