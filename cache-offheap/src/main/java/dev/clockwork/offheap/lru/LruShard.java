package dev.clockwork.offheap.lru;

import static dev.clockwork.offheap.lru.LruRecordLayout.HAS_HIT;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_CACHE;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_HIGH_POOL;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_WINDOW;
import static dev.clockwork.offheap.lru.LruRecordLayout.MAX_REFS;
import static dev.clockwork.offheap.lru.LruRecordLayout.ONE_REF;
import static dev.clockwork.offheap.lru.LruRecordLayout.PRIORITY_SHIFT;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_ADDRESS_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_LENGTH_OFFSET;

import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.context.CallbackGuard;
import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.entry.RecordSlab;
import dev.clockwork.offheap.events.CacheEvents;
import dev.clockwork.offheap.memory.ValueSlabs;
import dev.clockwork.offheap.shard.EntryHandoff;
import dev.clockwork.offheap.shard.InsertOutcome;
import dev.clockwork.offheap.shard.Shard;
import dev.clockwork.offheap.shard.ShardContext;
import dev.clockwork.offheap.stats.StatsCounters;

/**
 * One shard of the LRU cache: a hash index and one LRU list of unreferenced entries, split into
 * three pools, all in native memory and guarded by the shard's monitor. The rules are RocksDB's
 * LRUCache's (see docs/design.md).
 *
 * <p>The list runs oldest to newest along {@code next}, from {@code head.next} (evicted first) to
 * {@code head.prev} (newest), and is split into [bottom][low][high] ({@link LruList}). Entries on
 * the list have no references; a lookup takes an entry off the list, and its last release puts
 * it back where its priority and hit flag say. A pool over its share of capacity passes its
 * oldest entries down. With an admission policy the shard is W-TinyLFU ({@link LruWindow}).
 *
 * <p>The shard is the owner of its entries' lives (insert, reference, release, eviction, free)
 * and of its usage; the rest is apart, each one concept: the records' fields and the list with
 * its pools ({@link LruList}, the superclass), the index ({@link LruHashIndex}, as RocksDB's
 * {@code LRUHandleTable}), the admission policy and window ({@link LruWindow}), the close and
 * re-entry refusals ({@link LruRefusals}) and the handle checks ({@link LruHandle}).
 *
 * <p>Invariants, under the lock: {@code usage} is the total charge of every entry in the index or
 * still referenced, so at least {@code listUsage}; an entry is on a list exactly when it is in the
 * index and unreferenced.
 *
 * <p>A monitor rather than a {@code ReentrantLock}: every critical section is a few dozen
 * nanoseconds, and a contended monitor spins before it parks and allocates nothing.
 */
public final class LruShard extends LruList implements Shard {
    /**
     * What only the LRU shards are made with, beside their {@link ShardContext}.
     *
     * @param highRatio the high pool's share of capacity, 0 to 1
     * @param lowRatio the low pool's share of capacity, 0 to 1
     * @param maxRecordChunks the most chunks its records may take ({@code RecordSlab})
     */
    public record Options(double highRatio, double lowRatio, int maxRecordChunks) {
    }

    /** Refuses operations on a closed shard, and from callbacks run under the lock. */
    final LruRefusals refusals;
    /** Whether {@link #freeAll} has freed the memory (it waits for a visit to end, see there). */
    private boolean freed;
    /** The records; read by a dump's walk ({@link LruDumpWalk}) under the lock. */
    final RecordSlab slab;
    /** The cache's values: freed here under the lock, allocated by the cache. */
    private final ValueSlabs values;
    /** The admission policy and window (W-TinyLFU); null without a policy: plain LRU. */
    private final LruWindow window;
    private final int shardNumber;
    /** log2 of the cache's shard count: the low bits of a handle's location (LruHandle). */
    private final int shardBits;
    private final StatsCounters stats;
    /** Records the window's entries that lose their duel (admission rejects) as JFR events. */
    private final CacheEvents events;
    private final LruHashIndex hashIndex;
    private long capacity;
    /**
     * Most the shard's usage may reach: its share of the cache's usage limit; capacity never
     * exceeds it, and an insert that would pass it is refused ({@link #insert}).
     */
    private final long usageLimit;
    private boolean strict;
    /** Total charge of every entry in the hash table or still referenced. */
    private long usage;
    /** Charge of entries evicted since the last {@link #countEvictions}: under the lock. */
    private long uncountedEvictedCharge;

    /**
     * @param shard the shard's place, limits, the cache's context (its values, which this shard
     *     frees when evicted, erased or released, its stats, events, stamp salt and callback
     *     guard) and admission policy ({@link Admission#ALWAYS} or null for none), asked for its
     *     window share here, before the records and buckets are allocated
     * @param options the pool ratios and the record limit
     */
    public LruShard(ShardContext shard, Options options) {
        super(options.highRatio(), options.lowRatio(), shard,
                windowed(shard.admission()));
        this.window = windowed(shard.admission()) ? new LruWindow(this, shard.admission()) : null;
        this.refusals = new LruRefusals(shard.context().callbacks);
        this.values = shard.context().values;
        this.shardNumber = shard.shardIndex();
        this.usageLimit = shard.usageLimit();
        this.shardBits = shard.shardBits();
        this.stats = shard.context().stats;
        this.events = shard.context().events;
        this.strict = shard.strict();
        // The list heads (LruList) are allocated already. If the policy throws, or an allocation
        // below fails, what this shard holds so far is freed here: no close will see it.
        double share;
        RecordSlab records = null;
        try {
            share = window != null ? window.askShare() : 0;
            records = new RecordSlab(shard.context().all(), RAW, shard.context().stampSalt,
                    (long) shardNumber << EntryStamp.LOCATION_BITS, options.maxRecordChunks());
            this.hashIndex = new LruHashIndex(records);
        } catch (Throwable t) {
            if (records != null) {
                records.freeAll();
            }
            freeListHeads();
            throw t;
        }
        this.slab = records;
        applyCapacity(shard.capacity(), share);
    }

    private static boolean windowed(Admission admission) {
        return admission != null && admission != Admission.ALWAYS;
    }

    // ---------------------------------------------------------------- handles

    private long handleOf(long e, int index) {
        return LruHandle.of(shardNumber, shardBits, index, slab.stamp(e));
    }

    /** See {@link LruHandle#recordAddress}. */
    public long recordAddress(long handle) {
        return LruHandle.recordAddress(slab, handle, shardBits);
    }

    /**
     * The entry a handle names, if it is pinned now; checked under the lock, so a second release
     * of an entry nobody else holds, or a stale handle, is always refused (but with the
     * probabilities {@link EntryStamp} gives).
     */
    private long pinnedEntry(long handle) {
        long e = recordAddress(handle);
        LruHandle.checkStamp(handle, slab.stamp(e));
        if (refs(refsAndFlags(e)) == 0) {
            throw LruHandle.notPinned(handle);
        }
        return e;
    }

    // ---------------------------------------------------------------- operations

    /** Finds the key and takes a reference; returns its handle, or 0. */
    public synchronized long lookup(long h0, long h1) {
        refusals.check();
        int index = hashIndex.find(h0, h1);
        if (index == 0) {
            return 0;
        }
        long e = slab.address(index);
        int v = refsAndFlags(e);
        assert (v & IN_CACHE) != 0 : "an indexed entry is IN_CACHE";
        if (window != null) {
            window.recordHit(h0, (v & IN_HIGH_POOL) != 0);
        }
        if (refs(v) == 0) {
            listRemove(e);
            v = refsAndFlags(e); // listRemove may clear pool flags
        } else if (refs(v) == MAX_REFS) {
            throw LruHandle.tooManyRefs();
        }
        setRefsAndFlags(e, (v + ONE_REF) | HAS_HIT);
        return handleOf(e, index);
    }

    /** Adds a reference to a pinned entry. */
    public synchronized void ref(long handle) {
        refusals.check();
        long e = pinnedEntry(handle);
        int v = refsAndFlags(e);
        if (refs(v) == MAX_REFS) {
            throw LruHandle.tooManyRefs();
        }
        setRefsAndFlags(e, v + ONE_REF);
    }

    /**
     * Drops a reference. The last one puts the entry back on the list, or frees it if it was
     * erased, if asked to, or if the shard is over capacity.
     *
     * @return whether the entry was freed
     */
    public synchronized boolean release(long handle, boolean eraseIfLastRef) {
        refusals.check();
        long e = pinnedEntry(handle);
        int v = refsAndFlags(e) - ONE_REF;
        setRefsAndFlags(e, v);
        return refs(v) == 0 && lastRelease(e, v, eraseIfLastRef);
    }

    private boolean lastRelease(long e, int v, boolean eraseIfLastRef) {
        if ((v & IN_CACHE) != 0) {
            if (!eraseIfLastRef && usage <= capacity) {
                listInsert(e);
                return false;
            }
            hashIndex.remove(e);
        }
        free(e);
        return true;
    }

    /**
     * Frees an entry's record, then its value: a value read through a stale handle, unlocked,
     * sees the record's stamp move before the value's memory is given back (RecordSlab#free).
     */
    private void free(long e) {
        assert refs(refsAndFlags(e)) == 0 && !hasFlag(e, IN_CACHE) : "freeing a live entry";
        long total = freedCharge(e); // and the entry leaves its kind's count
        assert usage >= total : "usage " + usage + " below the charge " + total + " it holds";
        usage -= total;
        long valueAddress = RAW.get(LONG, e + VALUE_ADDRESS_OFFSET);
        int valueLength = RAW.get(INT, e + VALUE_LENGTH_OFFSET);
        slab.free(slab.indexOf(e));
        values.freeGuarded(valueAddress, valueLength); // under the lock: close waits for it
    }

    /** Whether {@code charge} more fits in the capacity. */
    boolean fits(long charge) {
        return usage + charge <= capacity;
    }

    /**
     * Evicts the oldest unreferenced entries until {@code charge} more fits, or none is left: the
     * main list's oldest first, then the window's.
     */
    private void evictFor(long charge) {
        long evicted = 0;
        while (!fits(charge) && evictOldest()) {
            evicted++;
        }
        countEvictions(evicted, 0);
    }

    /**
     * Counts {@code evicted} evictions, and the charge {@link #evict} gathered for them, and
     * {@code rejected} admission rejects in the cache's stats: a few adds per insert that
     * evicted, however many entries it evicted.
     */
    void countEvictions(long evicted, long rejected) {
        if (evicted != 0) {
            stats.evictions.add(evicted);
            stats.evictedCharge.add(uncountedEvictedCharge);
            uncountedEvictedCharge = 0;
        }
        if (rejected != 0) {
            stats.admissionRejects.add(rejected);
        }
    }

    /** Reports a window entry that lost its duel and was evicted (a JFR event). */
    void windowLoser(long charge) {
        events.admissionReject(this, shardNumber, charge, true);
    }

    /**
     * Evicts the main list's oldest unreferenced entry, or if it has none the window's oldest.
     * Counts no stats. Returns false if both are empty.
     */
    boolean evictOldest() {
        long e = next(head);
        if (e == head) {
            if (windowHead == 0 || (e = next(windowHead)) == windowHead) {
                return false;
            }
        }
        evict(e);
        return true;
    }

    /** Evicts an unreferenced entry; the caller counts it ({@link #countEvictions}). */
    void evict(long e) {
        assert refs(refsAndFlags(e)) == 0 : "evicting a referenced entry";
        uncountedEvictedCharge += charge(e);
        listRemove(e);
        hashIndex.remove(e);
        free(e);
    }

    /**
     * Makes sure the slab can hand out a record: when every record it may have is taken, evicts
     * the oldest unreferenced entry to free one. Returns false if none is unreferenced.
     */
    private boolean freeRecordIfFull() {
        if (!slab.full()) {
            return true;
        }
        if (!evictOldest()) {
            return false;
        }
        countEvictions(1, 0);
        return true;
    }

    /**
     * Inserts an entry whose value is already copied to {@code valueAddress}, replacing any entry
     * of the key. Returns the new entry's handle (pinned if {@code keepRef}; always {@code > 0}),
     * or {@link InsertOutcome#DROPPED}, {@link InsertOutcome#REFUSED} or
     * {@link InsertOutcome#REJECTED}; in those cases, and when it throws because the cache is
     * closed, the caller still owns the value.
     *
     * <p>Refused, strict limit or not, when the entry would take usage past
     * {@link #usageLimit} (only pinned inserts over capacity come near it, or a charge above it),
     * and when every record the shard may have is pinned (an unreferenced entry is evicted to
     * free a record otherwise).
     */
    public synchronized long insert(long h0, long h1, long valueAddress, int valueLength,
                                    long charge, Placement placement, boolean keepRef) {
        refusals.check(); // the value stays the caller's (the cache's insertCopied contract)
        if (charge > usageLimit - metaCharge) {
            return InsertOutcome.REFUSED; // can never fit; keeps the sums below from overflowing
        }
        long total = charge + metaCharge;
        boolean intoWindow = false;
        if (window != null) {
            window.followShare(capacity);
            LruWindow.Placement admitted = window.evictFor(total, h0, hashIndex.find(h0, h1) != 0);
            if (admitted == LruWindow.Placement.REFUSED) {
                return InsertOutcome.REJECTED;
            }
            intoWindow = admitted == LruWindow.Placement.WINDOW;
        } else {
            evictFor(total);
        }
        if (!fits(total) && (strict || !keepRef)) {
            return keepRef ? InsertOutcome.REFUSED : InsertOutcome.DROPPED;
        }
        if (total > usageLimit - usage || !freeRecordIfFull()) {
            return InsertOutcome.REFUSED;
        }
        int index = slab.allocate();
        long e = slab.address(index);
        writeRecord(e, h0, h1, valueAddress, valueLength, charge, placement, IN_CACHE
                | (placement.priority().ordinal() << PRIORITY_SHIFT) | (keepRef ? ONE_REF : 0)
                | (intoWindow ? IN_WINDOW : 0));
        usage += total;
        long replaced = hashIndex.insert(e, index);
        if (replaced != 0) {
            freeIfUnreferenced(replaced);
        }
        if (!keepRef) {
            listInsert(e);
        }
        return handleOf(e, index);
    }

    /**
     * Stores an entry outside the index, pinned once: a loaded value the insert refused, kept for
     * its callers. No lookup finds it; it is charged to usage (past capacity if need be, within
     * {@link #usageLimit}) and freed by its last release, as an erased entry still referenced is.
     * Returns its handle, or {@link InsertOutcome#REFUSED} past the usage limit or when every
     * record is pinned; then the caller still owns the value.
     */
    public synchronized long insertDetached(long h0, long h1, long valueAddress, int valueLength,
                                            long charge, Placement placement) {
        refusals.check();
        long total = charge + metaCharge;
        if (charge > usageLimit - metaCharge || total > usageLimit - usage
                || !freeRecordIfFull()) {
            return InsertOutcome.REFUSED;
        }
        int index = slab.allocate();
        long e = slab.address(index);
        writeRecord(e, h0, h1, valueAddress, valueLength, charge, placement, ONE_REF);
        usage += total;
        return handleOf(e, index);
    }

    /** Removes the key; returns whether it was present. */
    public synchronized boolean erase(long h0, long h1) {
        refusals.check();
        int index = hashIndex.find(h0, h1);
        if (index == 0) {
            return false;
        }
        long e = slab.address(index);
        hashIndex.remove(e);
        freeIfUnreferenced(e);
        return true;
    }

    /**
     * An entry just taken out of the index: freed now if unreferenced, else at its last release.
     */
    private void freeIfUnreferenced(long e) {
        if (refs(refsAndFlags(e)) == 0) {
            listRemove(e);
            free(e);
        }
    }

    /**
     * Frees every entry (erased ones still referenced too) and the shard's own memory; for close,
     * when no thread can be inside. {@code RAW} reads native memory without the closed arena.
     */
    public synchronized void freeAll() {
        if (!refusals.close()) {
            return;
        }
        if (refusals.visiting()) {
            // Close called from a visitor (the monitor is re-entrant): the visit is still walking
            // the slab, and frees everything on its way out (visitEntries).
            return;
        }
        freeMemory();
    }

    private void freeMemory() {
        assert !freed : "shard memory freed twice";
        freed = true;
        slab.freeAll(); // live entries' values go with the value slabs' chunks, freed last
        hashIndex.free();
        freeListHeads();
    }

    // ---------------------------------------------------------------- visiting entries

    /**
     * One batch of {@code Cache.forEachEntry} over this shard, with the lock held throughout
     * ({@link LruVisit#batch}, which says what the walk guarantees). Re-entry from the visitor is
     * refused ({@link LruRefusals#VISITING}), since the visitor runs in the middle of the walk,
     * except for close, which this walk completes when the visitor returns.
     *
     * @return the index to continue from, or -1 when the shard is done
     * @throws IllegalStateException if the cache is closed, before or during the batch
     */
    public synchronized int visitEntries(EntryHandoff cache, EntryVisitor visitor,
                                         boolean readsValues, int from, int maxRecords) {
        refusals.check();
        int next;
        refusals.enterCallback(LruRefusals.VISITING);
        try {
            next = LruVisit.batch(slab, refusals, cache, visitor, readsValues, from, maxRecords);
        } finally {
            refusals.exitCallback(LruRefusals.VISITING);
            if (refusals.closed() && !freed) {
                freeMemory();
            }
        }
        refusals.check();
        return next;
    }

    // ---------------------------------------------------------------- capacity and usage

    /** @param capacity at most {@link #usageLimit} (the cache's per-shard capacity) */
    public synchronized void setCapacity(long capacity) {
        refusals.check();
        Throwable failure = null;
        double share = window != null ? window.windowShare() : 0;
        if (window != null) {
            try {
                share = window.askShare();
            } catch (Throwable t) {
                failure = t; // the capacity is taken all the same, with the window's last share
            }
        }
        applyCapacity(capacity, share);
        if (failure != null) {
            throw CallbackGuard.rethrow(failure);
        }
    }

    /** Sets the capacity and the window's share, and evicts down to it. */
    private void applyCapacity(long capacity, double share) {
        assert capacity <= usageLimit : capacity + " over the usage limit " + usageLimit;
        this.capacity = capacity;
        if (window != null) {
            window.apply(capacity, share);
        } else {
            setPoolCapacities(capacity);
        }
        evictFor(0);
    }

    public synchronized void setStrict(boolean strict) {
        this.strict = strict;
    }

    public synchronized boolean strict() {
        return strict;
    }

    public synchronized long usage() {
        return usage;
    }

    @Override
    public synchronized long capacity() {
        return capacity;
    }

    public synchronized long pinnedUsage() {
        return usage - listUsage;
    }

    public synchronized long entryCount() {
        return hashIndex.entryCount();
    }

    /** Native bytes of the index and the records (carved slab chunks). */
    public synchronized long metadataBytes() {
        return hashIndex.bytes() + slab.carvedRecords() * RecordSlab.RECORD_BYTES;
    }

    /** The list from oldest to newest, for tests: entry addresses. */
    public synchronized long[] listOrder() {
        refusals.check();
        return listOrderUnchecked();
    }
}
