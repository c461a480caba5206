package dev.clockwork.offheap;

import static dev.clockwork.offheap.LruEntryLayout.CHARGE_OFFSET;
import static dev.clockwork.offheap.LruEntryLayout.ENTRY_BYTES;
import static dev.clockwork.offheap.LruEntryLayout.HAS_HIT;
import static dev.clockwork.offheap.LruEntryLayout.HASH_NEXT_OFFSET;
import static dev.clockwork.offheap.LruEntryLayout.IN_CACHE;
import static dev.clockwork.offheap.LruEntryLayout.IN_HIGH_POOL;
import static dev.clockwork.offheap.LruEntryLayout.IN_LOW_POOL;
import static dev.clockwork.offheap.LruEntryLayout.KEY0_OFFSET;
import static dev.clockwork.offheap.LruEntryLayout.KEY1_OFFSET;
import static dev.clockwork.offheap.LruEntryLayout.LRU_NEXT_OFFSET;
import static dev.clockwork.offheap.LruEntryLayout.LRU_PREV_OFFSET;
import static dev.clockwork.offheap.LruEntryLayout.ONE_REF;
import static dev.clockwork.offheap.LruEntryLayout.PRIORITY_MASK;
import static dev.clockwork.offheap.LruEntryLayout.PRIORITY_SHIFT;
import static dev.clockwork.offheap.LruEntryLayout.REFS_AND_FLAGS_OFFSET;
import static dev.clockwork.offheap.LruEntryLayout.VALUE_ADDRESS_OFFSET;
import static dev.clockwork.offheap.LruEntryLayout.VALUE_LENGTH_OFFSET;

import dev.clockwork.cache.Priority;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One shard of the LRU cache: a hash index and one LRU list of unreferenced entries, split into
 * three pools, all in native memory and guarded by the shard's monitor. (Work in progress for
 * issue 4: the list and pool rules; the Cache wrapper comes next.)
 *
 * <p>The list runs oldest to newest along {@code next}, from {@code head.next} (evicted first) to
 * {@code head.prev} (newest), and is split into [bottom][low][high]: {@link #bottomNewest} is the
 * newest entry of the bottom pool and {@link #lowNewest} the newest of the low pool (each the
 * cursor below it, or the head, when its pool is empty). Entries on the list have no references;
 * a lookup takes an entry off the list, and its last release puts it back where its priority and
 * hit flag say: HIGH or hit to the newest end of the high pool (if that pool has capacity), else
 * HIGH, LOW or hit to the newest end of the low pool (if it has capacity), else to the newest end
 * of the bottom pool. A pool over its share of capacity passes its oldest entries down.
 */
final class LruShard {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final int MIN_BUCKET_BITS = 4;

    private final MemorySegment mem;
    /** A dummy entry: the list's ends meet here. */
    private final long head;
    /**
     * A dummy entry heading a second list, of erased entries still referenced (they use the LRU
     * links, which a referenced entry does not need), so that close can free them.
     */
    private final long detached;
    private long lowNewest;
    private long bottomNewest;

    private long buckets;
    private int bucketBits;
    private long entryCount;

    private long capacity;
    private boolean strict;
    private final double highRatio;
    private final double lowRatio;
    private long highPoolCapacity;
    private long lowPoolCapacity;
    /** Charge of every entry in the hash table or still referenced. */
    private long usage;
    /** Charge of the entries on the list (unreferenced). */
    private long listUsage;
    private long highPoolUsage;
    private long lowPoolUsage;

    LruShard(MemorySegment mem, long capacity, boolean strict, double highRatio, double lowRatio) {
        this.mem = mem;
        this.highRatio = highRatio;
        this.lowRatio = lowRatio;
        this.strict = strict;
        this.head = NativeMemory.allocate(ENTRY_BYTES);
        setPrev(head, head);
        setNext(head, head);
        this.detached = NativeMemory.allocate(ENTRY_BYTES);
        setPrev(detached, detached);
        setNext(detached, detached);
        this.lowNewest = head;
        this.bottomNewest = head;
        this.bucketBits = MIN_BUCKET_BITS;
        this.buckets = allocateBuckets(bucketBits);
        setCapacity(capacity);
    }

    private long allocateBuckets(int bits) {
        long bytes = 8L << bits;
        long address = NativeMemory.allocate(bytes);
        MemorySegment.ofAddress(address).reinterpret(bytes).fill((byte) 0);
        return address;
    }

    // ---------------------------------------------------------------- fields

    private long prev(long e) {
        return mem.get(LONG, e + LRU_PREV_OFFSET);
    }

    private void setPrev(long e, long p) {
        mem.set(LONG, e + LRU_PREV_OFFSET, p);
    }

    private long next(long e) {
        return mem.get(LONG, e + LRU_NEXT_OFFSET);
    }

    private void setNext(long e, long n) {
        mem.set(LONG, e + LRU_NEXT_OFFSET, n);
    }

    private int refsAndFlags(long e) {
        return mem.get(INT, e + REFS_AND_FLAGS_OFFSET);
    }

    private void setRefsAndFlags(long e, int v) {
        mem.set(INT, e + REFS_AND_FLAGS_OFFSET, v);
    }

    private boolean hasFlag(long e, int flag) {
        return (refsAndFlags(e) & flag) != 0;
    }

    private void setFlag(long e, int flag, boolean on) {
        int v = refsAndFlags(e);
        setRefsAndFlags(e, on ? v | flag : v & ~flag);
    }

    private int refs(long e) {
        return refsAndFlags(e) >>> LruEntryLayout.FLAG_BITS;
    }

    long charge(long e) {
        return mem.get(LONG, e + CHARGE_OFFSET);
    }

    private Priority priority(long e) {
        return Priority.values()[(refsAndFlags(e) & PRIORITY_MASK) >>> PRIORITY_SHIFT];
    }

    // ---------------------------------------------------------------- the list and its pools

    /** Takes an entry off the list, keeping the pool cursors and usages right. */
    private void listRemove(long e) {
        if (lowNewest == e) {
            lowNewest = prev(e);
        }
        if (bottomNewest == e) {
            bottomNewest = prev(e);
        }
        setNext(prev(e), next(e));
        setPrev(next(e), prev(e));
        long charge = charge(e);
        listUsage -= charge;
        if (hasFlag(e, IN_HIGH_POOL)) {
            highPoolUsage -= charge;
        } else if (hasFlag(e, IN_LOW_POOL)) {
            lowPoolUsage -= charge;
        }
        setFlag(e, IN_HIGH_POOL | IN_LOW_POOL, false);
    }

    private void linkAfter(long at, long e) {
        long n = next(at);
        setPrev(e, at);
        setNext(e, n);
        setNext(at, e);
        setPrev(n, e);
    }

    /** Puts an unreferenced entry on the list where its priority and hit flag place it. */
    private void listInsert(long e) {
        long charge = charge(e);
        listUsage += charge;
        Priority priority = priority(e);
        boolean hit = hasFlag(e, HAS_HIT);
        if (highPoolCapacity > 0 && (priority == Priority.HIGH || hit)) {
            linkAfter(prev(head), e); // the newest end
            setFlag(e, IN_HIGH_POOL, true);
            highPoolUsage += charge;
            maintainPoolSizes();
        } else if (lowPoolCapacity > 0 && (priority != Priority.BOTTOM || hit)) {
            linkAfter(lowNewest, e);
            setFlag(e, IN_LOW_POOL, true);
            lowPoolUsage += charge;
            maintainPoolSizes();
            lowNewest = e;
        } else {
            linkAfter(bottomNewest, e);
            if (bottomNewest == lowNewest) {
                lowNewest = e; // the low pool is empty: its cursor sits on the bottom's newest
            }
            bottomNewest = e;
        }
    }

    /** Moves the oldest entries of an over-full pool to the pool below. */
    private void maintainPoolSizes() {
        while (highPoolUsage > highPoolCapacity) {
            lowNewest = next(lowNewest); // the high pool's oldest becomes the low pool's newest
            setFlag(lowNewest, IN_HIGH_POOL, false);
            setFlag(lowNewest, IN_LOW_POOL, true);
            long charge = charge(lowNewest);
            highPoolUsage -= charge;
            lowPoolUsage += charge;
        }
        while (lowPoolUsage > lowPoolCapacity) {
            bottomNewest = next(bottomNewest);
            setFlag(bottomNewest, IN_LOW_POOL, false);
            lowPoolUsage -= charge(bottomNewest);
        }
    }

    // ---------------------------------------------------------------- the hash index

    private long bucketOf(long h1) {
        return buckets + ((h1 & ((1L << bucketBits) - 1)) << 3);
    }

    /** The address of the link (a bucket or a hashNext field) that points at the key's entry. */
    private long findLink(long h0, long h1) {
        long link = bucketOf(h1);
        for (long e = mem.get(LONG, link); e != 0; e = mem.get(LONG, link)) {
            if (key1(e) == h1 && key0(e) == h0) {
                return link;
            }
            link = e + HASH_NEXT_OFFSET;
        }
        return link; // points at 0: where the key would be appended
    }

    private void hashInsert(long e) {
        long bucket = bucketOf(key1(e));
        mem.set(LONG, e + HASH_NEXT_OFFSET, mem.get(LONG, bucket));
        mem.set(LONG, bucket, e);
        if (++entryCount > (1L << bucketBits)) {
            resize(bucketBits + 1);
        }
    }

    /** Doubles the bucket array (load factor 1, as RocksDB's LRU handle table). */
    private void resize(int bits) {
        long old = buckets;
        int oldBits = bucketBits;
        buckets = allocateBuckets(bits);
        bucketBits = bits;
        for (long b = 0; b < (1L << oldBits); b++) {
            long e = mem.get(LONG, old + (b << 3));
            while (e != 0) {
                long following = hashNext(e);
                long bucket = bucketOf(key1(e));
                mem.set(LONG, e + HASH_NEXT_OFFSET, mem.get(LONG, bucket));
                mem.set(LONG, bucket, e);
                e = following;
            }
        }
        NativeMemory.free(old, 8L << oldBits);
    }

    // ---------------------------------------------------------------- operations

    /** Finds the key and takes a reference; returns the entry, or 0. */
    synchronized long lookup(long h0, long h1) {
        long e = mem.get(LONG, findLink(h0, h1));
        if (e == 0) {
            return 0;
        }
        if (refs(e) == 0) {
            listRemove(e);
        }
        setRefsAndFlags(e, (refsAndFlags(e) + ONE_REF) | HAS_HIT);
        return e;
    }

    /**
     * Drops a reference. The last one puts the entry back on the list, or frees it if it was
     * erased, if asked to, or if the shard is over capacity.
     *
     * @return whether the entry was freed
     */
    synchronized boolean release(long e, boolean eraseIfLastRef) {
        int v = refsAndFlags(e);
        if ((v >>> LruEntryLayout.FLAG_BITS) == 0) {
            throw new IllegalStateException("handle is not pinned (released twice, or stale)");
        }
        v -= ONE_REF;
        setRefsAndFlags(e, v);
        if ((v >>> LruEntryLayout.FLAG_BITS) != 0) {
            return false;
        }
        if ((v & IN_CACHE) == 0) {
            unlink(e); // erased while referenced: off the detached list
        } else if (eraseIfLastRef || usage > capacity) {
            hashRemove(e);
        } else {
            listInsert(e);
            return false;
        }
        free(e);
        return true;
    }

    private void hashRemove(long e) {
        long link = findLink(key0(e), key1(e));
        // With racing duplicate inserts ruled out by the lock, the key's entry is e.
        mem.set(LONG, link, hashNext(e));
        setFlag(e, IN_CACHE, false);
        entryCount--;
    }

    private void free(long e) {
        usage -= charge(e);
        NativeMemory.free(valueAddress(e), valueLength(e));
        NativeMemory.free(e, ENTRY_BYTES);
    }

    /** Evicts the oldest unreferenced entries until {@code charge} more fits, or none is left. */
    private void evictFor(long charge) {
        while (usage + charge > capacity && next(head) != head) {
            long e = next(head);
            listRemove(e);
            hashRemove(e);
            free(e);
        }
    }

    /**
     * Inserts an entry (value already copied to {@code valueAddress}) replacing any entry of the
     * key. Returns the new entry (referenced if {@code keepRef}), 0 if it was dropped "as if
     * inserted and evicted at once" (nothing kept), or -1 if a strict limit refused it; in both
     * of those cases the caller frees the value.
     */
    synchronized long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                             Priority priority, boolean keepRef) {
        evictFor(charge);
        if (usage + charge > capacity && (strict || !keepRef)) {
            return strict && keepRef ? -1 : 0;
        }
        long e = NativeMemory.allocate(ENTRY_BYTES);
        mem.set(LONG, e + KEY0_OFFSET, h0);
        mem.set(LONG, e + KEY1_OFFSET, h1);
        mem.set(LONG, e + VALUE_ADDRESS_OFFSET, valueAddress);
        mem.set(LONG, e + CHARGE_OFFSET, charge);
        mem.set(INT, e + VALUE_LENGTH_OFFSET, valueLength);
        setRefsAndFlags(e, IN_CACHE | (priority.ordinal() << PRIORITY_SHIFT)
                | (keepRef ? ONE_REF : 0));
        long old = mem.get(LONG, findLink(h0, h1));
        if (old != 0) {
            eraseEntry(old);
        }
        usage += charge;
        hashInsert(e);
        if (!keepRef) {
            listInsert(e);
        }
        return e;
    }

    /** Removes the key; returns whether it was present. */
    synchronized boolean erase(long h0, long h1) {
        long e = mem.get(LONG, findLink(h0, h1));
        if (e == 0) {
            return false;
        }
        eraseEntry(e);
        return true;
    }

    /** Takes an entry out of the index; frees it now if unreferenced, else at its last release. */
    private void eraseEntry(long e) {
        hashRemove(e);
        if (refs(e) == 0) {
            listRemove(e);
            free(e);
        } else {
            linkAfter(detached, e);
        }
    }

    private void unlink(long e) {
        setNext(prev(e), next(e));
        setPrev(next(e), prev(e));
    }

    /** Frees every entry and the shard's own memory; for close, when no thread can be inside. */
    synchronized void freeAll() {
        for (long b = 0; b < (1L << bucketBits); b++) {
            long e = mem.get(LONG, buckets + (b << 3));
            while (e != 0) {
                long following = hashNext(e);
                free(e);
                e = following;
            }
        }
        for (long e = next(detached); e != detached; ) {
            long following = next(e);
            free(e);
            e = following;
        }
        NativeMemory.free(buckets, 8L << bucketBits);
        NativeMemory.free(head, ENTRY_BYTES);
        NativeMemory.free(detached, ENTRY_BYTES);
    }

    // ---------------------------------------------------------------- capacity

    synchronized void setCapacity(long capacity) {
        this.capacity = capacity;
        this.highPoolCapacity = (long) (capacity * highRatio);
        this.lowPoolCapacity = (long) (capacity * lowRatio);
        maintainPoolSizes();
        evictFor(0);
    }

    synchronized void setStrict(boolean strict) {
        this.strict = strict;
    }

    synchronized long usage() {
        return usage;
    }

    synchronized long pinnedUsage() {
        return usage - listUsage;
    }

    synchronized long highPoolUsage() {
        return highPoolUsage;
    }

    synchronized long lowPoolUsage() {
        return lowPoolUsage;
    }

    /** The list from oldest to newest, for tests: entry addresses. */
    synchronized long[] listOrder() {
        int n = 0;
        for (long e = next(head); e != head; e = next(e)) {
            n++;
        }
        long[] order = new long[n];
        int i = 0;
        for (long e = next(head); e != head; e = next(e)) {
            order[i++] = e;
        }
        return order;
    }

    long key0(long e) {
        return mem.get(LONG, e + KEY0_OFFSET);
    }

    long key1(long e) {
        return mem.get(LONG, e + KEY1_OFFSET);
    }

    long valueAddress(long e) {
        return mem.get(LONG, e + VALUE_ADDRESS_OFFSET);
    }

    int valueLength(long e) {
        return mem.get(INT, e + VALUE_LENGTH_OFFSET);
    }

    long hashNext(long e) {
        return mem.get(LONG, e + HASH_NEXT_OFFSET);
    }
}
