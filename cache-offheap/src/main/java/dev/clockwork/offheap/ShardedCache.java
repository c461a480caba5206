package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CacheStats;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.ValueReader;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.admission.TinyLfu;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CallbackGuard;
import dev.clockwork.offheap.entry.ValueHeader;
import dev.clockwork.offheap.shard.EntryHandoff;
import dev.clockwork.offheap.shard.Shard;
import dev.clockwork.offheap.shard.ShardSizing;
import dev.clockwork.offheap.stats.StatsCounters;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every off-heap cache shares, whatever its index: key hashing, the admission hook and
 * stats around lookups and inserts, argument checks, values read through handles, and a close
 * that cannot race into freed memory.
 *
 * <p>A handle resolves ({@link #recordAddress}) to the native address of an entry record that
 * starts with a {@link ValueHeader}, whichever cache made it; values are read through
 * {@link CacheContext#all()}, scoped to the cache's arena.
 *
 * <p>Three concepts live apart, each one protocol that this class drives: the read by key
 * without a reference and its pinned fallback ({@link OptimisticRead}: {@code get} and
 * {@code read}), the value transfer between the caller's memory and the cache's
 * ({@link ValueCopies}: checks and the copy an insert stores), and the freeing half of close
 * ({@link CloseProtocol}). All three are final and called statically or through a final field,
 * so the hot paths pay no interface call and allocate nothing for the split.
 */
public abstract class ShardedCache implements Cache {
    final CacheContext context;
    final StatsCounters stats;
    /** The memory's callback guard, read by every call's {@link #checkOpen}. */
    private final CallbackGuard callbacks;
    /** The shards, as the loops over all of them see them; subclasses keep them typed. */
    private final Shard[] shards;
    final long hashSeed;
    private final Admission admission;
    /**
     * Whether lookups tell {@link #admission} of their hits here. Not when the shards tell it of
     * the hits it needs themselves, where a hit costs least (the cache's own TinyLFU: see
     * {@code ClockShard.recordUse} and {@code LruWindow.recordHit}); misses are always told here.
     */
    private final boolean lookupsRecordHits;
    /** {@link #newId}'s counter. */
    private final AtomicLong ids = new AtomicLong();
    /** Set first by {@link #close()}: every later call that reads or changes entries throws. */
    private volatile boolean closed;
    /** Frees the memory once, for {@link #close()}. */
    private final CloseProtocol closing = new CloseProtocol();
    private volatile long capacity;

    /** {@link #visitEntry} for the shards' walks in other packages of this module. */
    final EntryHandoff handoff = this::visitEntry;

    ShardedCache(CacheContext context, Shard[] shards, long capacity, long hashSeed,
                 Admission admission) {
        this.context = context;
        this.shards = shards;
        this.stats = context.stats;
        this.callbacks = context.callbacks;
        this.capacity = capacity;
        this.hashSeed = hashSeed;
        this.admission = admission;
        this.lookupsRecordHits = !(admission instanceof TinyLfu);
    }

    /** The admission policy the cache was built with, for tests and diagnostics. */
    final Admission admission() {
        return admission;
    }

    /**
     * Capacity of each of {@code shards} shards (a power of two): the total split evenly, rounded
     * up, but at most the shard's share of {@link CacheOptions#MAX_USAGE}.
     */
    static long perShardCapacity(long capacity, int shards) {
        return ShardSizing.perShardCapacity(capacity, shards, CacheOptions.MAX_USAGE / shards);
    }

    /**
     * Refuses calls on a closed cache, and calls from a user callback that runs under one of
     * this cache's locks ({@link CallbackGuard}).
     */
    final void checkOpen() {
        if (closed) {
            throw closedCache();
        }
        callbacks.refuseIfLocked();
    }

    private static IllegalStateException closedCache() {
        return new IllegalStateException("cache is closed");
    }

    // ---------------------------------------------------------------- the index (per cache)

    /** Finds a hashed key and takes a reference; returns its handle or {@link #MISS}. */
    abstract long lookupHashed(long h0, long h1);

    /**
     * Stores an entry whose value was copied to {@code valueAddress} (owned by the callee from
     * now on: stored, or freed). Returns a handle if {@code keepRef}, otherwise any non-zero
     * number when accepted; {@link #MISS} when refused. If it throws {@link OutOfMemoryError} (a
     * native allocation failed), it has neither stored the value nor changed the cache's
     * accounting, and the caller still owns the value. The same holds for anything else it
     * throws: an {@link IllegalStateException} (the cache was closed before the insert could
     * start, or a policy called back), or what the admission policy threw.
     */
    abstract long insertCopied(long h0, long h1, long valueAddress, int length, long charge,
                               Placement placement, boolean keepRef);

    /** Erases a hashed key; returns whether it was present. */
    abstract boolean eraseHashed(long h0, long h1);

    /**
     * The native address of a handle's entry record, checked as far as it can be without reading
     * the record; {@link #checkRecord} finishes the check.
     */
    abstract long recordAddress(long handle);

    /**
     * Finishes checking a handle, given its record's 8-byte word at the value length's offset
     * (the length in its low half on the little-endian platforms FFM runs us on; the high half is
     * the cache's own). Read together so that the value path makes one memory access fewer.
     */
    abstract void checkRecord(long handle, long lengthWord);

    /*
     * Reading a record through a handle nobody may hold (a caller's bug) without a lock follows
     * the protocol of OptimisticRead: the field the read needs (value address, charge) first,
     * with acquire, then the length word, whose high half is the stamp, checked against the
     * handle ({@link #checkRecord}). So a stale or released handle gets an exception, never
     * address 0 or another entry's bytes. A copy, which reads the value's bytes afterwards, reads
     * the word once more when done ({@link #confirmCopy}). Two reads of the record, not more:
     * the value path stays small enough for C2 to inline it whole and keep its view off the
     * heap.
     */

    /** The checked record's length word (see {@link #checkRecord}), read after its field. */
    private long lengthWord(long handle, long record) {
        long word = OptimisticRead.lengthWord(context.all(), record);
        checkRecord(handle, word);
        return word;
    }

    /**
     * Confirms that a copy read the bytes of the entry the handle names: the length word (stamp)
     * has not moved since {@link #lengthWord}. The stamp moves before the value is freed, so a
     * copy that straddles a free (through a handle that was not pinned) throws instead of
     * returning what the freed memory held. For a caller that holds its reference this never
     * fails.
     */
    private void confirmCopy(long handle, long record, long word) {
        if (!OptimisticRead.unchanged(context.all(), record, word)) {
            throw freedWhileRead(handle);
        }
    }

    private static IllegalStateException freedWhileRead(long handle) {
        return new IllegalStateException("handle " + handle + " is not pinned: its entry was"
                + " freed while it was read (released already?)");
    }

    /** Waits out what must finish before the arena closes; once, at the start of close. */
    void beforeArenaClose() {
    }

    /** Frees what the cache holds outside its shards; once, after the shards' memory. */
    void freeOutsideShards() {
    }

    // ---------------------------------------------------------------- lookup and erase

    @Override
    public long newId() {
        return ids.getAndIncrement();
    }

    @Override
    public final long lookup(long key0, long key1) {
        checkOpen();
        long h0 = KeyHash.hash0(key0, key1, hashSeed);
        long h1 = KeyHash.hash1FromHash0(h0, key1);
        return lookupCounted(h0, h1);
    }

    /**
     * {@link #lookupHashed}, counted ({@link #countLookup}). If admission throws, the handle is
     * released before the exception goes on: the caller never gets it to release.
     */
    final long lookupCounted(long h0, long h1) {
        long handle = lookupHashed(h0, h1);
        try {
            countLookup(h0, handle != MISS);
        } catch (Throwable t) {
            releaseAfter(t, handle);
            throw t;
        }
        return handle;
    }

    /**
     * Tells the stats and admission of a lookup's outcome. The policy is told last: if it throws,
     * the lookup is counted, and the caller releases what the lookup pinned.
     */
    final void countLookup(long h0, boolean hit) {
        if (stats.recordLookups) {
            if (hit) {
                stats.lookups.hit();
            } else {
                stats.lookups.miss();
            }
        }
        if (!hit || lookupsRecordHits) {
            admission.recordAccess(h0, hit);
        }
    }

    /**
     * Releases a handle the caller will not see, because {@code failure} is about to reach it
     * instead; a failure of the release itself (the cache closed meanwhile) is added to it.
     */
    private void releaseAfter(Throwable failure, long handle) {
        if (handle == MISS) {
            return;
        }
        try {
            release(handle);
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public final boolean erase(long key0, long key1) {
        checkOpen();
        long h0 = KeyHash.hash0(key0, key1, hashSeed);
        return eraseHashed(h0, KeyHash.hash1FromHash0(h0, key1));
    }

    // ---------------------------------------------------------------- values through handles

    @Override
    public final MemorySegment value(long handle) {
        checkOpen();
        long record = recordAddress(handle);
        long address = OptimisticRead.valueAddressAcquire(context.all(), record);
        int length = (int) lengthWord(handle, record);
        return context.allReadOnly().asSlice(address, length);
    }

    @Override
    public final long valueSize(long handle) {
        checkOpen();
        return (int) lengthWord(handle, recordAddress(handle));
    }

    @Override
    public final long charge(long handle) {
        checkOpen();
        long record = recordAddress(handle);
        long charge = OptimisticRead.chargeAcquire(context.all(), record);
        lengthWord(handle, record);
        return charge;
    }

    @Override
    public final int copyValue(long handle, byte[] dst, int offset) {
        checkOpen();
        Args.requireNonNull("dst", dst);
        long record = recordAddress(handle);
        long address = OptimisticRead.valueAddressAcquire(context.all(), record);
        long word = lengthWord(handle, record);
        int length = (int) word;
        ValueCopies.checkRoom(dst.length, offset, length);
        MemorySegment.copy(context.all(), ValueLayout.JAVA_BYTE, address, dst, offset, length);
        confirmCopy(handle, record, word);
        return length;
    }

    @Override
    public final long copyValue(long handle, MemorySegment dst, long offset) {
        checkOpen();
        Args.requireNonNull("dst", dst);
        long record = recordAddress(handle);
        long address = OptimisticRead.valueAddressAcquire(context.all(), record);
        long word = lengthWord(handle, record);
        int length = (int) word;
        ValueCopies.checkRoom(dst.byteSize(), offset, length);
        MemorySegment.copy(context.all(), address, dst, offset, length);
        confirmCopy(handle, record, word);
        return length;
    }

    // ---------------------------------------------------------------- reads without a reference

    /**
     * Finds a key's entry for a read that takes no reference ({@link OptimisticRead}): a
     * non-negative token naming its record and its full stamp ({@link #unpinnedRecord},
     * {@link #unpinnedStamp}), which holds nothing and is good only while that stamp is the
     * record's; {@link OptimisticRead#NOT_FOUND}; or {@link OptimisticRead#PIN_TO_READ} if this
     * cache cannot read without a reference.
     */
    long findUnpinned(long h0, long h1) {
        return OptimisticRead.PIN_TO_READ;
    }

    /** The native address of the record a {@link #findUnpinned} token of key {@code h0} names. */
    long unpinnedRecord(long h0, long token) {
        throw new UnsupportedOperationException("no reads without a reference here");
    }

    /** The full stamp of the entry a {@link #findUnpinned} token names. */
    int unpinnedStamp(long token) {
        throw new UnsupportedOperationException("no reads without a reference here");
    }

    @Override
    public final int get(long key0, long key1, byte[] dst, int offset) {
        checkOpen();
        Args.requireNonNull("dst", dst);
        Args.requireOffset(offset, dst.length, "dst.length");
        long h0 = KeyHash.hash0(key0, key1, hashSeed);
        return (int) OptimisticRead.get(this, h0, KeyHash.hash1FromHash0(h0, key1), null, dst,
                offset, dst.length - offset);
    }

    @Override
    public final long get(long key0, long key1, MemorySegment dst, long offset) {
        checkOpen();
        Args.requireNonNull("dst", dst);
        Args.requireOffset(offset, dst.byteSize(), "dst.byteSize()");
        long h0 = KeyHash.hash0(key0, key1, hashSeed);
        return OptimisticRead.get(this, h0, KeyHash.hash1FromHash0(h0, key1), dst, null, offset,
                dst.byteSize() - offset);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here: without a reference on the HyperClock caches, unless the entry changed under each
     * of a few tries in a row; under a reference on the LRU cache.
     */
    @Override
    public final long read(long key0, long key1, ValueReader reader, long ifAbsent) {
        checkOpen();
        Args.requireNonNull("reader", reader);
        long h0 = KeyHash.hash0(key0, key1, hashSeed);
        return OptimisticRead.read(this, h0, KeyHash.hash1FromHash0(h0, key1), reader, ifAbsent);
    }

    // ---------------------------------------------------------------- insert

    @Override
    public final boolean insert(long key0, long key1, MemorySegment value, long charge,
                                Placement placement) {
        Args.requireNonNull("value", value);
        int length = ValueCopies.checkLength(value.byteSize());
        return insert(key0, key1, value, null, 0, length, charge, placement, false) != MISS;
    }

    @Override
    public final boolean insert(long key0, long key1, byte[] value, int offset, int length,
                                long charge, Placement placement) {
        ValueCopies.checkArray(value, offset, length);
        return insert(key0, key1, null, value, offset, length, charge, placement, false) != MISS;
    }

    @Override
    public final long insertPinned(long key0, long key1, MemorySegment value, long charge,
                                   Placement placement) {
        Args.requireNonNull("value", value);
        int length = ValueCopies.checkLength(value.byteSize());
        return insert(key0, key1, value, null, 0, length, charge, placement, true);
    }

    @Override
    public final long insertPinned(long key0, long key1, byte[] value, int offset, int length,
                                   long charge, Placement placement) {
        ValueCopies.checkArray(value, offset, length);
        return insert(key0, key1, null, value, offset, length, charge, placement, true);
    }

    /** Checks, asks admission, copies the value into native memory and stores it. */
    final long insert(long key0, long key1, MemorySegment segment, byte[] array, int offset,
                      int length, long charge, Placement placement, boolean keepRef) {
        checkOpen();
        stats.kinds.check(placement); // not null, and a kind this cache counts
        Args.requireNonNegative("charge", charge);
        long cap = capacity;
        if (charge > cap) {
            throw new IllegalArgumentException(
                    "charge " + charge + " is larger than the capacity " + cap);
        }
        long h0 = KeyHash.hash0(key0, key1, hashSeed);
        long h1 = KeyHash.hash1FromHash0(h0, key1);
        long address = ValueCopies.copyIn(context, segment, array, offset, length);
        long result;
        try {
            result = insertCopied(h0, h1, address, length, charge, placement, keepRef);
        } catch (Throwable e) {
            // Closed, out of native memory, or the admission policy threw: never stored
            // (insertCopied's contract).
            context.values.free(address, length);
            throw e;
        }
        if (result != MISS) {
            try {
                admission.recordInsert(charge);
            } catch (Throwable e) {
                // Stored, and stays so; but the caller gets no handle to release.
                releaseAfter(e, keepRef ? result : MISS);
                throw e;
            }
        }
        return result;
    }

    // ---------------------------------------------------------------- visiting entries

    @Override
    public final void forEachEntry(EntryVisitor visitor, int entriesPerLock) {
        Args.requireNonNull("visitor", visitor);
        Args.requirePositive("entriesPerLock", entriesPerLock);
        checkOpen();
        forEachEntryChecked(visitor, entriesPerLock);
    }

    /** {@link #forEachEntry} after its argument checks; see there for the contract. */
    abstract void forEachEntryChecked(EntryVisitor visitor, int entriesPerLock);

    /**
     * Hands one pinned entry to a visitor: recovers the caller's key from the hashed key (the
     * hash is a bijection, see {@link KeyHash}) and views the value read-only, unless the visitor
     * does not read values. The caller keeps the entry pinned until this returns. It trusts its
     * arguments (see {@link EntryHandoff}): the LRU shards reach it through {@link #handoff}, and
     * nothing outside the module can. {@code chargeWord} is the record's, charge and kind
     * ({@code ChargeWord}).
     */
    final void visitEntry(EntryVisitor visitor, boolean readsValues, long h0, long h1,
                          long valueAddress, int valueLength, long chargeWord) {
        long key1 = KeyHash.unhash1(h0, h1);
        long key0 = KeyHash.unhash0FromKey1(h0, key1, hashSeed);
        MemorySegment value = readsValues
                ? context.allReadOnly().asSlice(valueAddress, valueLength) : MemorySegment.NULL;
        stats.kinds.visit(visitor, key0, key1, value, chargeWord);
    }

    // ---------------------------------------------------------------- capacity, stats, close

    @Override
    public final long capacity() {
        return capacity;
    }

    @Override
    public final void setCapacity(long capacity) {
        checkOpen();
        Args.requirePositive("capacity", capacity);
        this.capacity = capacity;
        ShardSizing.setCapacity(shards, perShardCapacity(capacity, shards.length));
    }

    @Override
    public final long usage() {
        callbacks.refuseIfLocked(); // an LRU shard answers under its lock
        return ShardSizing.sumOverShards(shards, Shard::usage);
    }

    @Override
    public long pinnedUsage() {
        checkOpen(); // a HyperClock shard scans its table for it
        return ShardSizing.sumOverShards(shards, Shard::pinnedUsage);
    }

    @Override
    public final long entryCount() {
        callbacks.refuseIfLocked();
        return ShardSizing.sumOverShards(shards, Shard::entryCount);
    }

    @Override
    public final boolean strictCapacityLimit() {
        callbacks.refuseIfLocked();
        return shards[0].strict();
    }

    @Override
    public final void setStrictCapacityLimit(boolean strict) {
        checkOpen();
        for (Shard shard : shards) {
            shard.setStrict(strict);
        }
    }

    /**
     * The number of shards, fixed when the cache is built.
     *
     * @return {@code 2^numShardBits}, 1 to 65,536
     */
    public final int numShards() {
        return shards.length;
    }

    @Override
    public final CacheStats stats() {
        return stats.snapshot();
    }

    /**
     * Total charge of the entries evicted so far (the charges inserts gave, without slot or
     * record metadata): the eviction weight, next to {@link CacheStats#evictions()}. Exact, and
     * still answered after {@link #close()}.
     *
     * @return the evicted entries' charges, summed
     */
    public final long evictedCharge() {
        return stats.evictedCharge.sum();
    }

    /**
     * This cache's number in the JFR events it records (their {@code cacheId} field): unique
     * among the caches built in this JVM, counting from 1 in build order. See docs/metrics.md
     * for the events.
     *
     * @return the cache's id in its events
     */
    public final long cacheId() {
        return context.events.cacheId;
    }

    /**
     * Frees every native byte. Handles still held become invalid: using them, or any method of
     * this cache that reads or changes entries, throws {@link IllegalStateException}; only the
     * plain counters ({@code capacity}, {@code usage}, {@code entryCount},
     * {@code strictCapacityLimit}, {@code stats}) go on answering.
     *
     * <p>Threads may still be calling while close runs: each of their calls either completes
     * before the memory is freed or throws {@link IllegalStateException}; none reads or writes
     * freed memory, and every value is freed exactly once, whether a racing insert, eviction,
     * erase or release got half way or not (tested per cache type by {@code CloseRaceTest}). A
     * value segment obtained before close must not be read after it; reading it throws as well.
     *
     * <p>Close returns only when every native byte is freed. A thread doing I/O on a value's
     * {@code ByteBuffer} view (a channel write of {@code value(h).asByteBuffer()}) holds the
     * memory for as long as that I/O takes, and close waits for it, however long (see
     * {@link CacheContext#closeArena}). If the closing thread is interrupted meanwhile, close
     * throws {@link IllegalStateException} with nothing freed but the cache closed to every
     * call, and the next {@code close()} finishes the job. A second close while one is running
     * waits for it, except from an LRU cache's {@code EntryVisitor} (it holds a shard's lock the
     * running close may need: it returns at once, and the visit ends, and the memory is freed,
     * once the visitor returns).
     *
     * @throws IllegalStateException if called from inside an admission policy (the insert that
     *     asked it is waiting), or if interrupted while waiting for I/O on a value view (see
     *     above)
     */
    @Override
    public final void close() {
        CallbackGuard.refuseIfInPolicy();
        closed = true; // from now on every call is refused
        closing.freeOnce(this);
    }

    /** Frees every native byte; once, for {@link CloseProtocol}, after the arena closed. */
    final void freeMemory() {
        ShardSizing.forEachShard(shards, Shard::freeAll);
        freeOutsideShards();
        context.values.freeAll(); // last: the walks above leave slab blocks to their chunks
    }
}
