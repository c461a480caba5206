package dev.clockwork.offheap.clock;

/**
 * The Auto table's chain words (a slot's head and next, see {@link SlotLayout}): a slot index
 * decorated with the chain's hash shift and two flags, in one {@code long} so that it is read and
 * written atomically.
 *
 * <pre>
 *   63                                                    8   7   6   5       0
 *  +-------------------------------------------------------+---+---+---------+
 *  |                 slot index (next entry, or home)      | L | E |  shift  |
 *  +-------------------------------------------------------+---+---+---------+
 * </pre>
 *
 * <ul>
 *   <li><b>shift</b>: how many low bits of {@code h1} pick the home of the chain this word belongs
 *       to, when the word was written. Growth raises a chain's shift by one as it splits it;
 *       a lookup compares the shifts it meets with the one it expects to notice a split in
 *       progress (see {@link AutoClockTable}).
 *   <li><b>E</b> (end): the chain ends here; the index is then the chain's home, so that a lookup
 *       that wandered onto another chain (its current entry was freed and reused) notices it at
 *       the end instead of reporting a false miss.
 *   <li><b>L</b> (locked): heads only: one thread is rewriting the chain (removing entries or
 *       splitting it). Inserts wait for it; lookups ignore it.
 * </ul>
 *
 * The all-zero word marks a head that is not yet part of the table.
 */
final class ChainPointer {
    static final long SHIFT_MASK = 0x3F;
    static final long END = 1L << 6;
    static final long LOCKED = 1L << 7;
    static final int INDEX_SHIFT = 8;
    static final long UNUSED = 0;

    private ChainPointer() {
    }

    /** A pointer to the entry in slot {@code index} on a chain of the given shift. */
    static long to(long index, int shift) {
        return (index << INDEX_SHIFT) | shift;
    }

    /** The end of the chain whose home is {@code home}. */
    static long end(long home, int shift) {
        return (home << INDEX_SHIFT) | END | shift;
    }

    static long index(long word) {
        return word >>> INDEX_SHIFT;
    }

    static int shift(long word) {
        return (int) (word & SHIFT_MASK);
    }

    static boolean isEnd(long word) {
        return (word & END) != 0;
    }

    static boolean isLocked(long word) {
        return (word & LOCKED) != 0;
    }

    /** The same word with the shift raised by one (the index and end flag kept). */
    static long upgraded(long word) {
        return word + 1;
    }
}
