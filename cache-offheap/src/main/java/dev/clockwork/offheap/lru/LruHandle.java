package dev.clockwork.offheap.lru;

import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.entry.RecordSlab;

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
 *
 * <p>Also the checks a handle goes through, which need only the handle and the shard's slab: they
 * are the handle's concept, and apart from {@link LruShard} they leave the shard its entries.
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

    /**
     * The record of a handle, for reading its value without the lock, or an exception if the
     * index lies outside the slab; the caller then checks the stamp with {@link #checkStamp}, and
     * again after its read (the cache's value path). A correct caller holds a reference, so the
     * record cannot change. A handle whose record holds no entry, or another entry than the
     * handle's, is refused (see {@link EntryStamp}). One released too early, while its entry is
     * still cached, is not: its value is still the key's until the entry is freed; release and
     * ref, under the lock, refuse it. Only slab memory is read, never freed before close.
     */
    static long recordAddress(RecordSlab slab, long handle, int shardBits) {
        long e = slab.addressOf(index(handle, shardBits));
        if (e < 0) {
            throw noEntry(handle);
        }
        return e;
    }

    /** Refuses a handle that does not name the entry its record holds now. */
    public static void checkStamp(long handle, int stamp) {
        if (!EntryStamp.names(handle, stamp)) {
            throw noEntry(handle);
        }
    }

    // Exceptions are built out of line, to keep the hot methods small enough to inline.

    static IllegalStateException noEntry(long handle) {
        return new IllegalStateException("handle " + handle
                + " names no entry (released and its entry freed, or not from this cache)");
    }

    static IllegalStateException notPinned(long handle) {
        return new IllegalStateException("handle " + handle
                + " is not pinned (released twice, or its entry was freed)");
    }

    static IllegalStateException tooManyRefs() {
        return new IllegalStateException("entry already holds " + LruRecordLayout.MAX_REFS
                + " references");
    }
}
