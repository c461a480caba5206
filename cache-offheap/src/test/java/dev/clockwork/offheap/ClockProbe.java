package dev.clockwork.offheap;

import dev.clockwork.offheap.clock.ClockProtocol;
import dev.clockwork.offheap.clock.ClockSteps;

/**
 * White-box access to HyperClock meta words for the stress tests (cache-stress), shipped in this
 * module's test-jar so that it can use the caches' package-private handle decoding. Reads and
 * writes a slot's meta word through
 * a handle's slot, without the handle checks (a test may keep a released handle to name a slot).
 * Not part of the library.
 */
public final class ClockProbe {
    /** Past this release count a release clears the counters' top bits (see ClockMeta). */
    public static final long OVERFLOW_THRESHOLD = ClockSteps.OVERFLOW_THRESHOLD;
    /** The bit that near-overflow correction clears from both counters. */
    public static final long COUNTER_TOP = 1L << (ClockSteps.COUNTER_BITS - 1);

    private ClockProbe() {
    }

    private static ClockProtocol table(HyperClockCache cache, long handle) {
        return cache.tableOf(handle);
    }

    private static long slot(HyperClockCache cache, long handle) {
        return cache.slotOf(handle);
    }

    /** The meta word of the slot a table handle names. */
    public static long meta(HyperClockCache cache, long handle) {
        return ClockSteps.meta(table(cache, handle), slot(cache, handle));
    }

    public static long releaseCount(long meta) {
        return ClockSteps.releaseCount(meta);
    }

    public static long refCount(long meta) {
        return ClockSteps.refCount(meta);
    }

    public static boolean isVisible(long meta) {
        return ClockSteps.isVisible(meta);
    }

    /**
     * Sets both counters of an unreferenced visible entry to {@code count} (as a clock update
     * does, but to any value); returns whether the word was still {@code expected}.
     */
    public static boolean setCounters(HyperClockCache cache, long handle, long expected,
                                      long count) {
        return ClockSteps.compareAndExchangeMeta(table(cache, handle), slot(cache, handle),
                expected, ClockSteps.withCounters(expected, count)) == expected;
    }

    /**
     * The first half of a lookup's momentary reference on the slot a table handle names (see
     * {@link ClockSteps}); returns the stamp to give it back with.
     */
    public static int addMomentaryReference(HyperClockCache cache, long handle) {
        return ClockSteps.addReference(table(cache, handle), slot(cache, handle));
    }

    /** The second half: the give-back of a lookup that found no entry of its key there. */
    public static void giveBackMomentaryReference(HyperClockCache cache, long handle, int stamp) {
        ClockSteps.giveBack(table(cache, handle), slot(cache, handle), stamp);
    }

    /**
     * Takes one reference off the slot's word and nothing more; whether it was {@code expected}.
     */
    public static boolean dropReferenceOnly(HyperClockCache cache, long handle, long expected) {
        return ClockSteps.dropReferenceOnly(table(cache, handle), slot(cache, handle), expected);
    }
}
