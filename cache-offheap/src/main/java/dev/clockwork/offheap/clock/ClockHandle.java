package dev.clockwork.offheap.clock;
import dev.clockwork.offheap.memory.EntryStamp;

/**
 * A HyperClock cache handle: an {@link EntryStamp} handle whose location names a table slot and
 * its shard, or, with the kind bit set, a standalone record.
 *
 * <pre>
 *                     63  62   61 .......... 40   39 ............................ 0
 *  table entry:      | 0 | 0 | check (22 bits)  | slot index | shard (shardBits)   |
 *  standalone entry: | 0 | 1 | check (22 bits)  | standalone record index          |
 * </pre>
 *
 * <p>The shard sits in the low bits so that the slot index is the location shifted right, and
 * every table of a cache with {@code 2^shardBits} shards has room for
 * {@code 2^(40 - shardBits)} slots in a handle (builders keep tables within it). Table and
 * standalone records are checked the same way: by the check against the stamp of the slot the
 * location names (see {@link EntryStamp} for what that accepts).
 */
public final class ClockHandle {
    private ClockHandle() {
    }

    public static long table(int shard, int shardBits, long slotIndex, int stamp) {
        return EntryStamp.handle(0, (slotIndex << shardBits) | shard, stamp);
    }

    static long standalone(long recordIndex, int stamp) {
        return EntryStamp.handle(EntryStamp.KIND, recordIndex, stamp);
    }

    public static boolean isStandalone(long handle) {
        return EntryStamp.isKind(handle);
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
}
