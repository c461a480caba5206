package dev.clockwork.cli.soak;

/**
 * The indexes of a soak worker's counters ({@link SoakWorker#counts}): plain longs written by
 * their worker only, summed by the main thread once the workers are joined.
 */
final class SoakCounters {
    private SoakCounters() {
    }

    static final int OPS = 0;
    static final int LOOKUPS = 1;
    static final int HITS = 2;
    static final int INSERT_PINNED = 3;
    static final int INSERT = 4;
    static final int REFUSED = 5;
    static final int ERASE = 6;
    static final int ERASE_FOUND = 7;
    static final int REF = 8;
    static final int RELEASE = 9;
    static final int RELEASE_ERASE = 10;
    static final int FREED = 11;
    static final int ARRAY_INSERT = 12;
    /** Reads by mode: this + {@link SoakValues#READ_COPY}, READ_VIEW, READ_ARRAY. */
    static final int READ_COPY = 13;
    static final int CHECKS = 16;
    /** Failed checks by kind: this + (the {@link SoakValues} result - 1). */
    static final int FAILURES = 17;
    static final int N_COUNTERS = 20;

    /** The failed checks of every kind. */
    static long failures(long[] counts) {
        return counts[FAILURES] + counts[FAILURES + 1] + counts[FAILURES + 2];
    }
}
