package dev.clockwork.offheap.clock;

/**
 * Single steps of the clock protocol and white-box access to a table, for tests that put
 * another operation between two steps or read what a cache does not show. The two halves of a
 * lookup's momentary reference on a slot, apart, so that a test can put an erase between them:
 * the reference a lookup adds to its home slot before it compares the key
 * ({@link ClockProtocol#tryReference}), and the give-back of a lookup that found another key or
 * an erased entry there ({@link ClockProtocol#undo}). In a real race the erase lands in the few
 * nanoseconds between the two; here it lands there every time. Used through {@code ClockProbe}
 * and by the cache tests; not part of the library.
 */
public final class ClockSteps {
    /** Past this release count a release clears the counters' top bits (see ClockMeta). */
    public static final long OVERFLOW_THRESHOLD = ClockMeta.OVERFLOW_THRESHOLD;
    /** Bits of each of the meta word's two counters. */
    public static final int COUNTER_BITS = ClockMeta.COUNTER_BITS;
    /** What a release adds to a meta word. */
    public static final long RELEASE_ONE = ClockMeta.RELEASE_ONE;

    private ClockSteps() {
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

    public static boolean isEmpty(long meta) {
        return ClockMeta.isEmpty(meta);
    }

    /** The same word with both counters set to {@code count}. */
    public static long withCounters(long meta, long count) {
        return ClockMeta.withCounters(meta, count);
    }

    /** Whether an Auto chain word has its lock bit set. */
    public static boolean isLocked(long chainWord) {
        return ChainPointer.isLocked(chainWord);
    }

    /** The slot's meta word (opaque). */
    public static long meta(ClockProtocol table, long slot) {
        return table.getMetaOpaque(slot);
    }

    /** A CAS of the slot's meta word; returns the word found. */
    public static long compareAndExchangeMeta(ClockProtocol table, long slot, long expected,
                                              long update) {
        return table.compareAndExchangeMeta(slot, expected, update);
    }

    /** A lookup's reference add on {@code slot}; returns the stamp of the entry it went to. */
    public static int addReference(ClockProtocol table, long slot) {
        return table.stampOf(slot, table.getAndAddMeta(slot, ClockMeta.ACQUIRE_ONE));
    }

    /**
     * The give-back of a reference {@link #addReference} took, as a lookup that missed makes it.
     */
    public static void giveBack(ClockProtocol table, long slot, int stamp) {
        table.undo(slot, stamp, 1);
    }

    /**
     * Takes one reference off the slot's word without anything else: what the give-back did
     * before it freed an erased entry it left unreferenced. Returns whether the word was still
     * {@code expected}.
     */
    public static boolean dropReferenceOnly(ClockProtocol table, long slot, long expected) {
        return table.compareAndExchangeMeta(slot, expected, expected - ClockMeta.ACQUIRE_ONE)
                == expected;
    }

    /** The first step of a release: its count's drop alone (an add); returns the word before. */
    public static long releaseCountOnly(ClockProtocol table, long slot) {
        return table.getAndAddMeta(slot, ClockMeta.RELEASE_ONE);
    }

    /** The second step of a release that may free the entry (see {@link #releaseCountOnly}). */
    public static boolean freeIfUnreferenced(ClockProtocol table, long slot, long old,
                                             long current, int stamp) {
        return table.freeIfUnreferenced(slot, old, current, stamp);
    }

    /** Gives an Auto table's published length the value {@code info}. */
    public static void setLengthInfo(AutoClockTable table, long info) {
        table.chains.lengthInfo = info;
    }

    /** Sets an Auto table's published length to {@code update} if it is {@code expected}. */
    public static boolean compareAndSetLengthInfo(AutoClockTable table, long expected,
                                                  long update) {
        synchronized (table) {
            if (table.chains.lengthInfo != expected) {
                return false;
            }
            table.chains.lengthInfo = update;
            return true;
        }
    }

    /** Grows an Auto table by one home; returns it (see {@link LinearHashChains#grow}). */
    public static long grow(AutoClockTable table) {
        return table.chains.grow();
    }

    /** Sets the lock bit of an Auto chain's head, as an eraser holds it; the head's word. */
    public static long lockChain(AutoClockTable table, long home) {
        return table.chains.lock(home);
    }

    /** Lets go of a chain {@link #lockChain} locked. */
    public static void unlockChain(AutoClockTable table, long home) {
        table.chains.unlock(home);
    }

    /**
     * Checks a quiescent fixed table's reach words against its entries: for every home, the
     * count of entries homed there (found by walking each entry's probe path from its home to its
     * slot) and a reach at least as far as the farthest of them. The description of the first
     * mismatch, or null.
     */
    public static String reachMismatch(FixedClockTable table) {
        long n = table.slotCount;
        long mask = n - 1;
        long[] homed = new long[(int) n];
        long[] farthest = new long[(int) n];
        for (long index = 0; index < n; index++) {
            long slot = index << SlotLayout.SLOT_SHIFT;
            if (!ClockMeta.isVisible(meta(table, slot))) {
                continue;
            }
            long h0 = SlotLayout.key0(table.slots, slot);
            long home = SlotLayout.key1(table.slots, slot) & mask;
            long distance = 0;
            for (long at = home; at != index; at = (at + (h0 | 1)) & mask) {
                if (++distance > n) {
                    return "slot " + index + " is not on its key's probe path";
                }
            }
            homed[(int) home]++;
            farthest[(int) home] = Math.max(farthest[(int) home], distance);
        }
        for (long home = 0; home < n; home++) {
            long word = (long) SlotLayout.LONG.getVolatile(table.slots,
                    SlotLayout.reachOffset(home << SlotLayout.SLOT_SHIFT));
            if (Reach.count(word) != homed[(int) home]
                    || Reach.farthest(word) < farthest[(int) home]) {
                return "home " + home + ": reach counts " + Reach.count(word) + " entries to "
                        + Reach.farthest(word) + " steps; the table holds " + homed[(int) home]
                        + ", the farthest " + farthest[(int) home] + " steps away";
            }
        }
        return null;
    }
}
