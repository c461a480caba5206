package dev.clockwork.offheap.clock;

/**
 * The reach word a {@link FixedClockTable} keeps in each slot for the keys whose probe path
 * starts there (their <em>home</em>): how many such entries live, and how far along the path
 * the farthest of them may be. A lookup probes no further than that.
 *
 * <pre>
 *   63                            32 31                             0
 *  +--------------------------------+--------------------------------+
 *  |  entries homed here (count)    |  farthest: probe steps, 0 = home |
 *  +--------------------------------+--------------------------------+
 * </pre>
 *
 * <p>Invariant: for every entry in the table, from just before it is published until it is
 * freed, its home's count includes it and its home's farthest is at least the entry's distance
 * from home. An insert adds its entry with one CAS; a free takes it away with another, and the
 * last homed entry to leave resets the word to 0. The farthest never shrinks while any homed
 * entry lives (the word does not say which entry set it), so it is an upper bound, exact when the
 * home last emptied; entries churn through a home often enough (about 0.84 of them per slot at
 * the occupancy limit) that it empties often.
 */
final class Reach {
    private static final long COUNT_ONE = 1L << 32;
    private static final long FARTHEST_MASK = COUNT_ONE - 1;

    private Reach() {
    }

    /** Entries homed at this slot. */
    static long count(long word) {
        return word >>> 32;
    }

    /** Probe steps from home to the farthest homed entry, at most. */
    static long farthest(long word) {
        return word & FARTHEST_MASK;
    }

    /** The word with one more homed entry, {@code distance} steps from home. */
    static long withEntry(long word, long distance) {
        assert distance >= 0 && distance <= FARTHEST_MASK && count(word) < FARTHEST_MASK
                : "a table has fewer than 2^32 slots";
        return (word & ~FARTHEST_MASK) + COUNT_ONE | Math.max(farthest(word), distance);
    }

    /** The word with one homed entry fewer: 0 once none is left. */
    static long withoutEntry(long word) {
        long remaining = word - COUNT_ONE;
        return count(remaining) == 0 ? 0 : remaining;
    }
}
