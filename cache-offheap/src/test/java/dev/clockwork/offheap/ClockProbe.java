package dev.clockwork.offheap;
import dev.clockwork.offheap.clock.ClockMeta;
import dev.clockwork.offheap.clock.ClockShard;

/**
 * White-box access to HyperClock meta words for the stress tests (cache-stress), shipped in this
 * module's test-jar so that it can use the caches' package-private handle decoding. Reads and
 * writes a slot's meta word through
 * a handle's slot, without the handle checks (a test may keep a released handle to name a slot).
 * Not part of the library.
 */
public final class ClockProbe {
    /** Past this release count a release clears the counters' top bits (see ClockMeta). */
    public static final long OVERFLOW_THRESHOLD = ClockMeta.OVERFLOW_THRESHOLD;
    /** The bit that near-overflow correction clears from both counters. */
    public static final long COUNTER_TOP = 1L << (ClockMeta.COUNTER_BITS - 1);

    private ClockProbe() {
    }

    private static ClockShard table(HyperClockCache cache, long handle) {
        return cache.tableOf(handle);
    }

    private static long slot(HyperClockCache cache, long handle) {
        return cache.slotOf(handle);
    }

    /** The meta word of the slot a table handle names. */
    public static long meta(HyperClockCache cache, long handle) {
        return table(cache, handle).metaOpaque(slot(cache, handle));
    }

    public static long releaseCount(long meta) {
        return ClockMeta.releaseCount(meta);
    }

    public static long refCount(long meta) {
        return ClockMeta.refCount(meta);
    }

    public static boolean isVisible(long meta) {
        return ClockMeta.isVisible(meta);
    }

    /**
     * Sets both counters of an unreferenced visible entry to {@code count} (as a clock update
     * does, but to any value); returns whether the word was still {@code expected}.
     */
    public static boolean setCounters(HyperClockCache cache, long handle, long expected,
                                      long count) {
        return table(cache, handle).compareAndExchangeMeta(slot(cache, handle), expected,
                ClockMeta.withCounters(expected, count)) == expected;
    }
}
