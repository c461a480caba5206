package dev.clockwork.offheap.clock;

import dev.clockwork.offheap.entry.ChargeWord;
import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.entry.ValueHeader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Layout of one HyperClock slot: 64 bytes, one cache line, 64-byte aligned. Bytes 8..47 are the
 * {@link ValueHeader} every record kind shares; the meta word and the index's words are the
 * clock's own.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      Meta word (see ClockMeta)               | 0
 *  |                                                              |
 *  +--------------------------------------------------------------+
 *  |                 Hashed key, first half (h0)                  | 8
 *  |                                                              |
 *  +--------------------------------------------------------------+
 *  |                 Hashed key, second half (h1)                 | 16
 *  |                                                              |
 *  +--------------------------------------------------------------+
 *  |                 Value address (ValueSlabs)                   | 24
 *  |                                                              |
 *  +--------------------------------------------------------------+
 *  | Kind |          Charge (what counts against capacity)        | 32
 *  |      |                  (see ChargeWord)                     |
 *  +--------------------------------------------------------------+
 *  |                 Value length                                 | 40
 *  +--------------------------------------------------------------+
 *  |                 Stamp (see EntryStamp)                       | 44
 *  +--------------------------------------------------------------+
 *  |   Fixed table: reach of this home     | Auto: chain head     | 48
 *  |   (atomic, see Reach)                 |   (see ChainPointer)   |
 *  +--------------------------------------------------------------+
 *  |                 Auto table: next in this entry's chain       | 56
 *  |                 (see ChainPointer)                           |
 *  +--------------------------------------------------------------+
 * </pre>
 *
 * <p>The Auto table's two words are independent of each other: the head belongs to the
 * <em>home</em> this slot's index stands for (the chain of entries whose hash maps here), the next
 * pointer to the <em>entry</em> stored in the slot, which may be on any chain. Keeping the head in
 * the same line as an entry makes the common lookup, an entry stored at its own home, one cache
 * miss.
 *
 * <p>The stamp is odd exactly while the slot holds an entry and moves on when an entry is written
 * and when it is freed, so a handle that carries it ({@link ClockHandle}) can tell its own entry
 * from a later one in the same slot, another slot's, or none ({@link EntryStamp}). The value path
 * reads it for free: it shares an 8-byte word with the value length, and reading that word again
 * after the value address tells whether the entry was freed in between (see
 * {@code ShardedCache.value}).
 *
 * <p>The value address is non-zero exactly while the slot owns a value, whatever the meta word
 * says: it is the first field an insert writes and is zeroed before the value is freed, after the
 * stamp has moved on. That is what lets {@code close()} free every value a racing call left half
 * inserted or half evicted.
 *
 * <p>Who writes what. The meta word changes only atomically, by {@link ClockProtocol}'s
 * transitions. The entry's fields (bytes 8..47) are written only by the thread that owns the slot
 * in the "under construction" state, and published by the release store of the meta word;
 * readers read them after an acquire of the meta word (a reference, or an acquire load checked
 * by the stamp afterwards), so the plain reads below suffice. The index's words (bytes 48..63)
 * are not the slot owner's: the Fixed table's reach word is changed by the CAS of any inserter
 * or freer of an entry homed at the slot, and the Auto table's chain head by the CAS of any
 * inserter linking an entry at this home, or under the chain's lock; an entry's next pointer is
 * written by its inserter before the linking CAS, then only under a chain lock.
 */
public final class SlotLayout {
    /** {@code (MemorySegment, long offset)} handles, exact: a wrong type throws, not boxes. */
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();

    public static final long SLOT_BYTES = 64;
    public static final int SLOT_SHIFT = 6;

    static final long META_OFFSET = 0;
    static final long KEY0_OFFSET = ValueHeader.KEY0_OFFSET;
    static final long KEY1_OFFSET = ValueHeader.KEY1_OFFSET;
    static final long VALUE_ADDRESS_OFFSET = ValueHeader.VALUE_ADDRESS_OFFSET;
    static final long CHARGE_OFFSET = ValueHeader.CHARGE_OFFSET;
    static final long VALUE_LENGTH_OFFSET = ValueHeader.VALUE_LENGTH_OFFSET;
    static final long STAMP_OFFSET = ValueHeader.STAMP_OFFSET;
    static final long REACH_OFFSET = 48;
    static final long HEAD_OFFSET = 48;
    static final long NEXT_OFFSET = 56;

    private SlotLayout() {
    }

    /** Byte offset of slot {@code index} within a table. */
    public static long slotOffset(long index) {
        return index << SLOT_SHIFT;
    }

    static long key0Offset(long slot) {
        return slot + KEY0_OFFSET;
    }

    static long key1Offset(long slot) {
        return slot + KEY1_OFFSET;
    }

    static long valueAddressOffset(long slot) {
        return slot + VALUE_ADDRESS_OFFSET;
    }

    static long chargeOffset(long slot) {
        return slot + CHARGE_OFFSET;
    }

    static long valueLengthOffset(long slot) {
        return slot + VALUE_LENGTH_OFFSET;
    }

    static long stampOffset(long slot) {
        return slot + STAMP_OFFSET;
    }

    static long reachOffset(long slot) {
        return slot + REACH_OFFSET;
    }

    static long headOffset(long slot) {
        return slot + HEAD_OFFSET;
    }

    static long nextOffset(long slot) {
        return slot + NEXT_OFFSET;
    }

    // ---------------------------------------------------------------- plain reads of the entry

    public static long key0(MemorySegment slots, long slot) {
        return (long) LONG.get(slots, key0Offset(slot));
    }

    public static long key1(MemorySegment slots, long slot) {
        return (long) LONG.get(slots, key1Offset(slot));
    }

    /** The entry's charge, without its kind. */
    public static long charge(MemorySegment slots, long slot) {
        return ChargeWord.charge(chargeWord(slots, slot));
    }

    /** The entry's charge word: charge and kind ({@link ChargeWord}). */
    public static long chargeWord(MemorySegment slots, long slot) {
        return (long) LONG.get(slots, chargeOffset(slot));
    }

    public static long valueAddress(MemorySegment slots, long slot) {
        return (long) LONG.get(slots, valueAddressOffset(slot));
    }

    public static int valueLength(MemorySegment slots, long slot) {
        return (int) INT.get(slots, valueLengthOffset(slot));
    }

    /**
     * The slot's stamp, plain: written only by the slot's owner and published by the meta word's
     * release store, so a reader holding a reference sees it stable. Readers without one read it
     * after an acquire of the meta word, which makes it that word's entry's stamp or a later one's.
     */
    public static int stamp(MemorySegment slots, long slot) {
        return (int) INT.get(slots, stampOffset(slot));
    }
}
