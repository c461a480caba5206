package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.context.CallbackGuard;
import java.lang.foreign.MemorySegment;

/**
 * The writes that mean the same on every cache type: {@code put} (replace), {@code putIfAbsent}
 * and its pinned form, each run under its key's stripe ({@link KeyStripes}) so that two of them on
 * one key never interleave. Built on the index's own steps (a presence check, {@code eraseHashed},
 * the insert path of {@link ShardedCache}), so they hold for the fixed and Auto tables and the LRU
 * shards alike, whatever each type's plain insert does with a present key. Their inserts take a
 * handle and let it go ({@link #insertAndLetGo}), so that "refused" means the same on every type
 * too.
 *
 * <h2>put: erase, then insert, under the stripe</h2>
 * Erasing first is what makes the meaning uniform: a HyperClock table's insert keeps a present
 * entry (or stores a second copy), and an LRU insert dropped for lack of room keeps it too; after
 * the erase there is nothing to keep, so whatever the insert does, no lookup that starts after
 * the erase finds the old value. Erase makes a pinned entry unfindable at once and frees it on
 * its last release, so readers holding it keep reading whole old bytes. A lookup that overlaps
 * the put may find the old value, the new one, or nothing (between the two steps); one that
 * starts after put returns finds the new value unless it was refused or evicted since.
 *
 * <h2>putIfAbsent: check, then insert, under the stripe</h2>
 * Under the stripe no other striped write of the key can store it between the check and the
 * insert, so of racing {@code putIfAbsent} calls on an absent key exactly one stores. The check
 * takes no reference where the type reads without one (HyperClock: the table's unreferenced find,
 * which writes nothing); elsewhere it is a lookup and a release (LRU: a use of the entry, as a
 * hit, which the shard's own admission window records as it records hits). Neither counts as a
 * lookup in the stats.
 *
 * <h2>Arguments and failures</h2>
 * Every argument is checked before anything changes, so a bad argument leaves the key as it was.
 * What can fail after the erase (the admission policy throws, native memory runs out, the cache
 * closes, or the capacity is lowered below the charge meanwhile) reaches the caller with the key
 * erased: as after a refusal, the old value does not come back.
 */
final class KeyedPuts {
    private final ShardedCache cache;
    private final KeyStripes stripes = new KeyStripes();

    KeyedPuts(ShardedCache cache) {
        this.cache = cache;
    }

    /**
     * Stores the value under the key in place of any present entry; the array or the segment
     * holds the value (the other null), already checked by the caller.
     *
     * @return whether the value was stored (see {@link #insertAndLetGo})
     */
    boolean put(long key0, long key1, MemorySegment segment, byte[] array, int offset, int length,
                long charge, Placement placement) {
        long h0 = enter(key0, key1, charge, placement);
        long h1 = KeyHash.hash1FromHash0(h0, key1);
        synchronized (stripes.of(h0)) {
            CallbackGuard.enterStripe();
            try {
                cache.eraseHashed(h0, h1);
                return insertAndLetGo(key0, key1, segment, array, offset, length, charge,
                        placement);
            } finally {
                CallbackGuard.exitStripe();
            }
        }
    }

    /**
     * Stores the value only if the key is absent.
     *
     * @return whether this call stored it (see {@link #insertAndLetGo})
     */
    boolean putIfAbsent(long key0, long key1, MemorySegment segment, byte[] array, int offset,
                        int length, long charge, Placement placement) {
        long h0 = enter(key0, key1, charge, placement);
        long h1 = KeyHash.hash1FromHash0(h0, key1);
        synchronized (stripes.of(h0)) {
            CallbackGuard.enterStripe();
            try {
                return !present(h0, h1) && insertAndLetGo(key0, key1, segment, array, offset,
                        length, charge, placement);
            } finally {
                CallbackGuard.exitStripe();
            }
        }
    }

    /**
     * Pins the entry under the key: the present one, or else a copy of the value stored now.
     *
     * @return a handle to release once, or {@link Cache#MISS} if the key was absent and the
     *     insert was refused
     */
    long putIfAbsentPinned(long key0, long key1, MemorySegment segment, byte[] array, int offset,
                           int length, long charge, Placement placement) {
        long h0 = enter(key0, key1, charge, placement);
        long h1 = KeyHash.hash1FromHash0(h0, key1);
        synchronized (stripes.of(h0)) {
            CallbackGuard.enterStripe();
            try {
                long handle = cache.lookupHashed(h0, h1);
                return handle != Cache.MISS ? handle : cache.insert(key0, key1, segment, array,
                        offset, length, charge, placement, true);
            } finally {
                CallbackGuard.exitStripe();
            }
        }
    }

    /**
     * Inserts pinned and releases at once; returns whether it was stored. Pinned because only
     * then does every type refuse, and count the refusal, when a strict limit cannot be met: an
     * LRU insert without a handle is dropped instead, uncounted, and answers {@code true}. Without
     * a strict limit and without room the entry is stored over capacity (LRU) or standalone
     * (HyperClock), and this release frees it: accepted, and evicted at once.
     */
    private boolean insertAndLetGo(long key0, long key1, MemorySegment segment, byte[] array,
                                   int offset, int length, long charge, Placement placement) {
        long handle = cache.insert(key0, key1, segment, array, offset, length, charge, placement,
                true);
        if (handle == Cache.MISS) {
            return false;
        }
        cache.release(handle);
        return true;
    }

    /**
     * The checks every striped write makes before it changes anything, and its key's {@code h0}.
     * Refused from inside an admission policy: the policy may run under another key's stripe
     * (see {@link KeyStripes}).
     */
    private long enter(long key0, long key1, long charge, Placement placement) {
        cache.checkOpen();
        if (CallbackGuard.mustNotTakeStripe()) {
            throw new IllegalStateException("an Admission policy must not put into a cache: the"
                    + " insert that asked it may hold the lock of another key");
        }
        Args.requireNonNull("placement", placement);
        cache.stats.kinds.check(placement); // before put's erase: a refused kind changes nothing
        Args.requireNonNegative("charge", charge);
        long capacity = cache.capacity();
        if (charge > capacity) {
            throw new IllegalArgumentException(
                    "charge " + charge + " is larger than the capacity " + capacity);
        }
        return KeyHash.hash0(key0, key1, cache.hashSeed);
    }

    /** Whether the key is in the cache now, without counting a lookup. */
    private boolean present(long h0, long h1) {
        long token = cache.findUnpinned(h0, h1);
        if (token != OptimisticRead.PIN_TO_READ) {
            return token != OptimisticRead.NOT_FOUND;
        }
        long handle = cache.lookupHashed(h0, h1);
        if (handle == Cache.MISS) {
            return false;
        }
        cache.release(handle);
        return true;
    }
}
