package dev.clockwork.offheap.clock;

import dev.clockwork.offheap.entry.EntryStamp;

/**
 * What a lookup or an insert returns for an entry it holds a reference on: the slot and the
 * entry's stamp in one {@code long}, {@code (stamp >>> 1) << 32 | slot index}, never negative (a
 * live stamp's low bit is 1 and is left out), or {@link #NONE}.
 *
 * <p>The stamp is taken together with the reference, so a handle made from it names that entry
 * even if a misused release takes the reference away at once and the slot is reused: never the
 * entry that took the slot after it.
 */
public final class FoundEntry {
    /** No entry: nothing was found, or nothing stored. */
    public static final long NONE = -1;

    private FoundEntry() {
    }

    static long of(long slot, int stamp) {
        assert EntryStamp.isLive(stamp) : "only a live entry is found";
        return ((long) (stamp >>> 1) << 32) | (slot >>> SlotLayout.SLOT_SHIFT);
    }

    /** The slot's byte offset in its table. */
    public static long slot(long found) {
        return (found & 0xFFFF_FFFFL) << SlotLayout.SLOT_SHIFT;
    }

    public static int stamp(long found) {
        return ((int) (found >>> 32) << 1) | 1;
    }
}
