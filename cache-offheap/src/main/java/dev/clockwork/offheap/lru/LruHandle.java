package dev.clockwork.offheap.lru;
import dev.clockwork.offheap.memory.EntryStamp;

/**
 * An LRU cache handle: an {@link EntryStamp} handle whose location names a slab record and its
 * shard.
 *
 * <pre>
 *   63  62   61 .......... 40   39 ................................... 0
 *  | 0 | 0 | check (22 bits)  | record index | shard (shardBits)        |
 * </pre>
 *
 * <p>The shard sits in the low bits, so a cache of {@code 2^shardBits} shards names up to
 * {@code 2^(40 - shardBits)} records per shard (and the slab's 31-bit index bounds it too). A
 * handle is checked against the stamp of the record its location names (see {@link EntryStamp}
 * for what that accepts).
 */
public final class LruHandle {
    private LruHandle() {
    }

    static long of(int shard, int shardBits, int index, int stamp) {
        return EntryStamp.handle(0, ((long) index << shardBits) | shard, stamp);
    }

    /** Whether a number has an LRU handle's shape (the rest is checked against the cache). */
    public static boolean isWellFormed(long handle) {
        return EntryStamp.isWellFormed(handle) && !EntryStamp.isKind(handle);
    }

    public static int shard(long handle, int shardBits) {
        return (int) (EntryStamp.location(handle) & ((1L << shardBits) - 1));
    }

    /** The record index, or -1 if it is beyond any slab's (31 bits). */
    public static int index(long handle, int shardBits) {
        long index = EntryStamp.location(handle) >>> shardBits;
        return index > Integer.MAX_VALUE ? -1 : (int) index;
    }
}
