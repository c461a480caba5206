package dev.clockwork.offheap.events;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * At most {@code perSecond} permits in each second of a clock, and a count of the occurrences
 * refused one, which the next permitted event takes along ({@link #takeSuppressed}): an event
 * that could fire hundreds of thousands of times a second is recorded at a bounded rate, and
 * what was left out is still counted.
 *
 * <p>Structure: one {@code AtomicLong} holds the current second (counted from this limit's
 * creation) in its high bits and the permits it has given in its low {@value #COUNT_BITS}; a
 * permit is one compare-and-set on it. Once a second's permits are spent, a refusal only reads
 * that word and adds one to a {@code LongAdder}, so threads refused at once do not contend on
 * one cache line. Seconds are fixed (aligned to the creation time), not sliding: any span of one
 * second holds at most twice {@code perSecond} permits, each fixed second at most
 * {@code perSecond}. A thread that read the clock before another started the next second takes
 * its permit from the newer second, so no second gives more than its share.
 *
 * <p>Trade-off: the clock is read on every occurrence ({@code System.nanoTime}, a few tens of
 * nanoseconds); it is asked only while a recording enables the event, never otherwise.
 */
final class EventRateLimit {
    static final int COUNT_BITS = 20;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final int perSecond;
    private final LongSupplier nanoClock;
    private final long origin;
    /** (second << COUNT_BITS) | permits given in that second. */
    private final AtomicLong state = new AtomicLong();
    private final LongAdder suppressed = new LongAdder();

    /**
     * @param perSecond permits a second, in [1, 2^{@value #COUNT_BITS})
     * @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime})
     */
    EventRateLimit(int perSecond, LongSupplier nanoClock) {
        if (perSecond < 1 || perSecond > COUNT_MASK) {
            throw new IllegalArgumentException("perSecond must be in [1, " + COUNT_MASK
                    + "], was " + perSecond);
        }
        this.perSecond = perSecond;
        this.nanoClock = nanoClock;
        this.origin = nanoClock.getAsLong();
    }

    /** The permits each second gives. */
    int perSecond() {
        return perSecond;
    }

    /**
     * Whether this occurrence may be recorded; if not, it is counted as suppressed.
     *
     * @return true for one of the second's first {@code perSecond} occurrences
     */
    boolean tryAcquire() {
        long second = (nanoClock.getAsLong() - origin) / NANOS_PER_SECOND;
        for (;;) {
            long s = state.get();
            long current = s >>> COUNT_BITS;
            long next;
            if (current >= second) { // this second, or a newer one a faster thread started
                if ((s & COUNT_MASK) >= perSecond) {
                    suppressed.increment();
                    return false;
                }
                next = s + 1;
            } else {
                next = (second << COUNT_BITS) | 1;
            }
            if (state.compareAndSet(s, next)) {
                return true;
            }
        }
    }

    /** The occurrences refused since the last call, which this call resets to zero. */
    long takeSuppressed() {
        return suppressed.sumThenReset();
    }
}
