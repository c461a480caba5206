package dev.clockwork.offheap.lru;
import dev.clockwork.offheap.entry.EntryStamp;

/**
 * An LRU cache handle: an {@link EntryStamp} handle whose location names a slab record and its
 * shard; the kind bit is always clear.
 *
 * <pre>
 *   63   62 ............... 32   31   30 ............................... 0
 *  | 0 | check (31 bits)       | 0  | record index | shard (shardBits)    |
 * </pre>
 *
 * <p>The shard sits in the low bits, so a cache of {@code 2^shardBits} shards names up to
 * {@code 2^(31 - shardBits)} records per shard. Records are numbered from 1 (index 0 is a slab
 * chunk's header), so no location is 0 and no handle {@code MISS} (0). A handle is checked
 * against the stamp of the record its location names (see {@link EntryStamp} for what that
 * accepts).
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

    /** The record index: below 2^31, as the location is 31 bits. */
    public static int index(long handle, int shardBits) {
        return (int) (EntryStamp.location(handle) >>> shardBits);
    }
}
