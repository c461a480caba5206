package dev.clockwork.offheap.clock;

import dev.clockwork.offheap.entry.EntryStamp;

/**
 * A HyperClock cache handle: an {@link EntryStamp} handle whose location names a table slot and
 * its shard, with the kind bit set, or, without it, a standalone record.
 *
 * <pre>
 *                     63   62 ............... 32   31   30 ......................... 0
 *  table entry:      | 0 | check (31 bits)       | 1  | slot index | shard (shardBits) |
 *  standalone entry: | 0 | check (31 bits)       | 0  | standalone record index         |
 * </pre>
 *
 * <p>The shard sits in the low bits so that the slot index is the location shifted right, and
 * every table of a cache with {@code 2^shardBits} shards has room for
 * {@code 2^(31 - shardBits)} slots in a handle (builders keep tables within it). The kind bit
 * marks table entries, not standalone ones, because slot 0 of shard 0 has location 0: with the
 * bit, no table handle is {@code MISS} (0), whatever its check; standalone records are numbered
 * from 1. Table and standalone records are checked the same way: by the check against the stamp
 * of the slot the location names (see {@link EntryStamp} for what that accepts).
 */
public final class ClockHandle {
    private ClockHandle() {
    }

    public static long table(int shard, int shardBits, long slotIndex, int stamp) {
        return EntryStamp.handle(EntryStamp.KIND, (slotIndex << shardBits) | shard, stamp);
    }

    static long standalone(long recordIndex, int stamp) {
        return EntryStamp.handle(0, recordIndex, stamp);
    }

    public static boolean isStandalone(long handle) {
        return !EntryStamp.isKind(handle);
    }

    public static int shard(long handle, int shardBits) {
        return (int) (EntryStamp.location(handle) & ((1L << shardBits) - 1));
    }

    public static long slotIndex(long handle, int shardBits) {
        return EntryStamp.location(handle) >>> shardBits;
    }

    static long standaloneIndex(long handle) {
        return EntryStamp.location(handle);
    }

    // Misuse of a handle; built out of line, to keep the hot methods small enough to inline.

    static IllegalStateException notPinned() {
        return new IllegalStateException("handle is not pinned (released already, or stale)");
    }

    static IllegalStateException stale() {
        return new IllegalStateException("handle is stale: its entry was freed");
    }

    static IllegalStateException tooManyRefs() {
        return new IllegalStateException("entry already holds " + ClockMeta.MAX_REFS
                + " references");
    }
}
