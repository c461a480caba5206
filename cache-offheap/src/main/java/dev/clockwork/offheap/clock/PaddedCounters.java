package dev.clockwork.offheap.clock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Contended counters, each on a cache line of its own, in one {@code long[]}: counter {@code i}
 * is element {@code (i + 1) * 8}, so at least 56 bytes of the array lie between any two counters
 * and between a counter and either end of the array (its header, and whatever object follows
 * it). An array rather than padding fields, because the JVM keeps an array's elements in order
 * but lays out a class's fields as it likes, and rather than padding superclasses, so that the
 * owner is one final class whose counters cost one final-field load.
 *
 * <p>Updates are relaxed in spirit (RocksDB uses relaxed atomics for them); Java has no relaxed
 * read-modify-write, so the cheapest available modes are used and the counters carry no ordering
 * duties.
 */
final class PaddedCounters {
    /** Longs per 64-byte cache line. */
    private static final int LINE_LONGS = 8;
    private static final VarHandle ELEMENT =
            MethodHandles.arrayElementVarHandle(long[].class).withInvokeExactBehavior();

    private PaddedCounters() {
    }

    /** An array of {@code count} padded counters, all 0. */
    static long[] allocate(int count) {
        return new long[(count + 2) * LINE_LONGS];
    }

    /** The array index of counter number {@code counter}. */
    static int index(int counter) {
        return (counter + 1) * LINE_LONGS;
    }

    /**
     * Volatile, though release would do: HotSpot compiles {@code getAndAdd} to one
     * {@code lock xadd} and {@code getAndAddRelease} to a CAS retry loop.
     */
    static long getAndAdd(long[] counters, int index, long delta) {
        return (long) ELEMENT.getAndAdd(counters, index, delta);
    }

    /** Opaque: a recent value, never torn; nothing ordered around it. */
    static long getOpaque(long[] counters, int index) {
        return (long) ELEMENT.getOpaque(counters, index);
    }

    /** A plain weak CAS: the caller retries, and orders nothing by it. */
    static boolean weakCompareAndSetPlain(long[] counters, int index, long expected, long update) {
        return ELEMENT.weakCompareAndSetPlain(counters, index, expected, update);
    }
}
