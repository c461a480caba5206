package dev.clockwork.offheap.lru;

import static dev.clockwork.offheap.lru.LruList.INT;
import static dev.clockwork.offheap.lru.LruList.RAW;
import static dev.clockwork.offheap.lru.LruList.hashNext;
import static dev.clockwork.offheap.lru.LruList.key0;
import static dev.clockwork.offheap.lru.LruList.key1;
import static dev.clockwork.offheap.lru.LruRecordLayout.HASH_NEXT_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_CACHE;
import static dev.clockwork.offheap.lru.LruRecordLayout.REFS_AND_FLAGS_OFFSET;

import dev.clockwork.offheap.entry.RecordSlab;
import dev.clockwork.offheap.memory.NativeAllocator;
import java.lang.foreign.MemorySegment;

/**
 * An LRU shard's hash index: chained buckets of 4-byte record indexes, in native memory, from a
 * hashed key to the record of its entry (RocksDB's LRU handle table). The chains run through the
 * records' hash-next fields. Guarded by the shard's lock, like everything of the shard.
 *
 * <pre>
 *   buckets: | idx | 0 | idx | ... |      2^bucketBits of them, 0 = empty
 *              |         `--> record.hashNext --> record.hashNext --> 0
 *              `--> record.hashNext --> 0
 * </pre>
 * Invariant: every entry in the cache is on exactly one chain, the one of its key's {@code h1},
 * and has {@code IN_CACHE} set; entries out of the cache (erased while pinned) are on none and
 * have it clear. That flag is the index's: set before {@link #insert}, cleared by
 * {@link #remove}. At most one entry per key. The array doubles at load factor 1.
 *
 * <p>The whole index, as RocksDB's {@code LRUHandleTable}: the shard asks it for a key's entry,
 * hands it new entries (getting back the one of the same key they replace) and takes entries out
 * of it; it never looks into the chains or the bucket array.
 */
final class LruHashIndex {
    private static final int MIN_BUCKET_BITS = 4;

    private final RecordSlab slab;
    /** Bucket array: 4-byte record indexes, 0 = empty. */
    private long buckets;
    private int bucketBits;
    private long entryCount;

    /** @throws OutOfMemoryError if the first bucket array cannot be allocated */
    LruHashIndex(RecordSlab slab) {
        this.slab = slab;
        this.buckets = allocateBuckets(MIN_BUCKET_BITS);
        this.bucketBits = MIN_BUCKET_BITS;
    }

    private static long allocateBuckets(int bits) {
        long bytes = 4L << bits;
        long address = NativeAllocator.allocate(bytes);
        MemorySegment.ofAddress(address).reinterpret(bytes).fill((byte) 0);
        return address;
    }

    private long bucketOf(long h1) {
        return buckets + ((h1 & ((1L << bucketBits) - 1)) << 2);
    }

    /** The record index of the key's entry, or 0 if it is not in the index. */
    int find(long h0, long h1) {
        return RAW.get(INT, findLink(h0, h1));
    }

    /**
     * The address of the link (a bucket, or an entry's hash-next field) holding the index of the
     * key's entry, or holding 0 at the end of the key's chain if it is absent.
     */
    private long findLink(long h0, long h1) {
        long link = bucketOf(h1);
        for (int i = RAW.get(INT, link); i != 0; i = RAW.get(INT, link)) {
            long e = slab.address(i);
            if (key1(e) == h1 && key0(e) == h0) {
                return link;
            }
            link = e + HASH_NEXT_OFFSET;
        }
        return link;
    }

    /**
     * Links the entry at record {@code e}, index {@code index}, in place of its key's entry if
     * there is one, else at the head of its chain. Returns the entry it replaced, taken out of
     * the index ({@code IN_CACHE} cleared), or 0.
     */
    long insert(long e, int index) {
        assert (flags(e) & IN_CACHE) != 0 : "an entry enters the index marked IN_CACHE";
        long link = findLink(key0(e), key1(e));
        int old = RAW.get(INT, link);
        if (old != 0) {
            long replaced = slab.address(old);
            RAW.set(INT, e + HASH_NEXT_OFFSET, hashNext(replaced));
            RAW.set(INT, link, index);
            clearInCache(replaced);
            return replaced;
        }
        pushOnChain(e, index);
        if (++entryCount > (1L << bucketBits)) {
            resize(bucketBits + 1);
        }
        return 0;
    }

    private static int flags(long e) {
        return RAW.get(INT, e + REFS_AND_FLAGS_OFFSET);
    }

    private static void clearInCache(long e) {
        RAW.set(INT, e + REFS_AND_FLAGS_OFFSET, flags(e) & ~IN_CACHE);
    }

    private void pushOnChain(long e, int index) {
        long bucket = bucketOf(key1(e));
        RAW.set(INT, e + HASH_NEXT_OFFSET, RAW.get(INT, bucket));
        RAW.set(INT, bucket, index);
    }

    /** Takes an entry out of the index (it must be there) and clears its {@code IN_CACHE}. */
    void remove(long e) {
        assert (flags(e) & IN_CACHE) != 0 : "removing an entry not in the index";
        long link = findLink(key0(e), key1(e));
        assert RAW.get(INT, link) == slab.indexOf(e) : "the key's entry is another";
        RAW.set(INT, link, hashNext(e));
        clearInCache(e);
        entryCount--;
        assert entryCount >= 0 : entryCount;
    }

    /**
     * Doubles the bucket array (at load factor 1, as RocksDB's LRU handle table). If native memory
     * runs out, the table stays as it is, only more loaded: the entry being inserted is already
     * linked, so failing the insert here would leave it half done.
     */
    private void resize(int bits) {
        long old = buckets;
        int oldBits = bucketBits;
        try {
            buckets = allocateBuckets(bits);
        } catch (OutOfMemoryError e) {
            return;
        }
        bucketBits = bits;
        for (long b = 0; b < (1L << oldBits); b++) {
            int i = RAW.get(INT, old + (b << 2));
            while (i != 0) {
                long e = slab.address(i);
                int following = hashNext(e);
                pushOnChain(e, i); // onto the new array
                i = following;
            }
        }
        NativeAllocator.free(old, 4L << oldBits);
    }

    long entryCount() {
        return entryCount;
    }

    /** Native bytes of the bucket array. */
    long bytes() {
        return 4L << bucketBits;
    }

    /** Frees the bucket array; for close, once. */
    void free() {
        NativeAllocator.free(buckets, 4L << bucketBits);
    }
}
