package dev.clockwork.offheap.lru;

import static dev.clockwork.offheap.lru.LruRecordLayout.CHARGE_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.STAMP_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.HAS_HIT;
import static dev.clockwork.offheap.lru.LruRecordLayout.HASH_NEXT_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_CACHE;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_WINDOW;
import static dev.clockwork.offheap.lru.LruRecordLayout.KEY0_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.KEY1_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.MAX_REFS;
import static dev.clockwork.offheap.lru.LruRecordLayout.ONE_REF;
import static dev.clockwork.offheap.lru.LruRecordLayout.PRIORITY_SHIFT;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_ADDRESS_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_LENGTH_OFFSET;

import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.Priority;
import java.lang.foreign.MemorySegment;
import dev.clockwork.offheap.CacheOptions;
import dev.clockwork.offheap.ShardedCache;
import dev.clockwork.offheap.shard.EntryHandoff;
import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.memory.NativeAllocator;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.entry.RecordSlab;
import dev.clockwork.offheap.memory.ValueSlabs;
import dev.clockwork.offheap.events.CacheEvents;
import dev.clockwork.offheap.stats.StatsCounters;
import dev.clockwork.offheap.shard.CallbackGuard;
import dev.clockwork.offheap.shard.Shard;
import dev.clockwork.offheap.admission.TinyLfu;
import dev.clockwork.offheap.context.CacheContext;

/**
 * One shard of the LRU cache: a hash index and one LRU list of unreferenced entries, split into
 * three pools, all in native memory and guarded by the shard's monitor. The rules are RocksDB's
 * LRUCache's (see docs/design.md).
 *
 * <p>The list runs oldest to newest along {@code next}, from {@code head.next} (evicted first) to
 * {@code head.prev} (newest), and is split into [bottom][low][high]: {@link #bottomNewest} is the
 * newest entry of the bottom pool and {@link #lowNewest} the newest of the low pool (each the
 * cursor below it, or the head, when its pool is empty). Entries on the list have no references;
 * a lookup takes an entry off the list, and its last release puts it back where its priority and
 * hit flag say: HIGH or hit to the newest end of the high pool (if there is a high pool), else
 * HIGH, LOW or hit to the newest end of the low pool (if there is one), else to the newest end of
 * the bottom pool. A pool over its share of capacity passes its oldest entries down.
 *
 * <p>With an admission policy the shard is W-TinyLFU: a second list, the window
 * ({@link #windowHead}), takes new entries, and the main list's bottom pool is the probation region
 * and its high pool the protected one; see {@link #evictForWindowed}. A window entry keeps its
 * {@code IN_WINDOW} flag while referenced, so that its last release puts it back in the window.
 *
 * <p>A monitor rather than a {@code ReentrantLock}: every critical section is a few dozen
 * nanoseconds, and a contended monitor spins before it parks and allocates nothing.
 */
public final class LruShard extends LruList implements Shard {
    private static final Priority[] PRIORITIES = Priority.values();

    /** {@link #refused} bit: the cache is closed (set by {@link #freeAll}). */
    private static final int CLOSED = 1;
    /**
     * {@link #refused} bit: a visit ({@link #visitEntries}) is calling its visitor with the lock
     * held. Set and cleared under the lock, so only the visiting thread, re-entering the monitor
     * from its visitor, can ever see it set.
     */
    private static final int VISITING = 2;
    /**
     * {@link #refused} bit: a user's admission policy is being asked with the lock held (as
     * {@link #VISITING}: only the asking thread, re-entering, can see it).
     */
    private static final int ASKING_POLICY = 4;
    /**
     * Why operations must not start now: {@link #CLOSED}, {@link #VISITING},
     * {@link #ASKING_POLICY}, or 0. One field, so that refusing re-entry from a callback costs the
     * operations nothing beyond the closed check they already made. Read and written under the
     * lock. (Calls from a callback into other shards, whose monitors this one does not guard, are
     * refused before they lock: {@link CallbackGuard}.)
     */
    private int refused;
    /** Marks the threads that run this cache's callbacks under a shard's lock. */
    private final CallbackGuard callbacks;
    /**
     * Whether {@link #admission} is the built-in TinyLFU, which never calls back into a cache and
     * so is asked without {@link #callbacks}' marks.
     */
    private final boolean trustedPolicy;
    /** Whether {@link #freeAll} has freed the memory (it waits for a visit to end, see there). */
    private boolean freed;
    private final RecordSlab slab;
    /** The cache's values: freed here under the lock, allocated by the cache. */
    private final ValueSlabs values;
    /** Asked before an insert evicts each entry, oldest first; null: evict unasked. */
    private final Admission admission;
    private final int shardNumber;
    /** log2 of the cache's shard count: the low bits of a handle's location (LruHandle). */
    private final int shardBits;
    private final StatsCounters stats;
    /** Records the window's entries that lose their duel (admission rejects) as JFR events. */
    private final CacheEvents events;

    /** The hash index over the records: key to record index. */
    private final LruHashIndex hashIndex;

    private long capacity;
    /** The window's share of capacity last read from the policy. */
    private double windowShare;
    /**
     * Most the shard's usage may reach: its share of {@link CacheOptions#MAX_USAGE}; capacity
     * never exceeds it, and an insert that would pass it is refused ({@link #insert}).
     */
    private final long usageLimit;
    private boolean strict;
    /** Total charge of every entry in the hash table or still referenced. */
    private long usage;
    /** Charge of entries evicted since the last {@link #countEvictions}: under the lock. */
    private long uncountedEvictedCharge;

    /**
     * @param capacity at most {@code usageLimit}
     * @param usageLimit the shard's share of {@link CacheOptions#MAX_USAGE}
     * @param maxRecordChunks the most chunks its records may take ({@link RecordSlab#maxChunks})
     * @param memory the cache's memory: its values, which this shard frees (evicted, erased,
     *     released), its stats, events, stamp salt and callback guard
     * @param admission the policy (asked before evicting, as W-TinyLFU), or
     *     {@link Admission#ALWAYS}; asked for its window share here, before the records and
     *     buckets are allocated
     */
    public LruShard(CacheContext context, int shardNumber, int shardBits, long capacity,
                    long usageLimit, int maxRecordChunks, boolean strict, double highRatio,
                    double lowRatio, boolean chargeMetadata, Admission admission) {
        super(highRatio, lowRatio, chargeMetadata, admission != Admission.ALWAYS);
        this.admission = admission == Admission.ALWAYS ? null : admission;
        this.trustedPolicy = admission instanceof TinyLfu;
        this.callbacks = context.callbacks;
        this.values = context.values;
        this.shardNumber = shardNumber;
        this.usageLimit = usageLimit;
        this.shardBits = shardBits;
        this.stats = context.stats;
        this.events = context.events;
        this.strict = strict;
        // The list heads (LruList) are allocated already. If the policy throws, or an allocation
        // below fails, what this shard holds so far is freed here: no close will see it.
        double share;
        RecordSlab records = null;
        try {
            share = this.admission != null ? askWindowShare() : 0;
            records = new RecordSlab(context.all(), RAW, context.stampSalt,
                    (long) shardNumber << EntryStamp.LOCATION_BITS, maxRecordChunks);
            this.hashIndex = new LruHashIndex(records);
        } catch (Throwable t) {
            if (records != null) {
                records.freeAll();
            }
            freeListHeads();
            throw t;
        }
        this.slab = records;
        applyCapacity(capacity, share);
    }

    /** Takes an entry out of the index (it must be there) and marks it out of the cache. */
    private void hashRemove(long e) {
        hashIndex.remove(e);
        setFlags(e, 0, IN_CACHE);
    }

    // ---------------------------------------------------------------- handles

    private long handleOf(long e, int index) {
        return LruHandle.of(shardNumber, shardBits, index, slab.stamp(e));
    }

    /**
     * The entry a handle names, if it is pinned now; checked under the lock, so a second release
     * of an entry nobody else holds, or a stale handle, is always refused (but with the
     * probabilities {@link EntryStamp} gives).
     */
    private long pinnedEntry(long handle) {
        long e = recordAddress(handle);
        if (!EntryStamp.names(handle, slab.stamp(e))) {
            throw noEntry(handle);
        }
        if (refs(refsAndFlags(e)) == 0) {
            throw notPinned(handle);
        }
        return e;
    }

    /**
     * The record of a handle, for reading its value without the lock, or an exception if the
     * index lies outside the slab; the caller then checks the stamp with {@link #checkStamp}, and
     * again after its read (ShardedCache). A correct caller holds a reference, so the record
     * cannot change. A handle whose record holds no entry, or another entry than the handle's,
     * is refused (see {@link EntryStamp}). One released too early, while its entry is still
     * cached, is not: its value is still the key's until the entry is freed; release and ref,
     * under the lock, refuse it. Only slab memory is read, never freed before close.
     */
    public long recordAddress(long handle) {
        long e = slab.addressOf(LruHandle.index(handle, shardBits));
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

    private void checkNotClosed() {
        if (refused != 0) {
            throw refusal();
        }
    }

    private IllegalStateException refusal() {
        if ((refused & CLOSED) != 0) {
            return new IllegalStateException("cache is closed");
        }
        if ((refused & ASKING_POLICY) != 0) {
            return new IllegalStateException("an Admission policy must not call the cache: it is"
                    + " asked with the lock of the shard evicting for the insert held");
        }
        return new IllegalStateException("an EntryVisitor must not call the cache: forEachEntry"
                + " holds the lock of the shard being visited");
    }

    private static IllegalStateException noEntry(long handle) {
        return new IllegalStateException("handle " + handle
                + " names no entry (released and its entry freed, or not from this cache)");
    }

    private static IllegalStateException notPinned(long handle) {
        return new IllegalStateException("handle " + handle
                + " is not pinned (released twice, or its entry was freed)");
    }

    private static IllegalStateException tooManyRefs() {
        return new IllegalStateException("entry already holds " + MAX_REFS + " references");
    }

    // ---------------------------------------------------------------- operations

    /** Finds the key and takes a reference; returns its handle, or 0. */
    public synchronized long lookup(long h0, long h1) {
        checkNotClosed();
        int index = hashIndex.find(h0, h1);
        if (index == 0) {
            return 0;
        }
        long e = slab.address(index);
        int v = refsAndFlags(e);
        if (refs(v) == 0) {
            listRemove(e);
            v = refsAndFlags(e); // listRemove may clear pool flags
        } else if (refs(v) == MAX_REFS) {
            throw tooManyRefs();
        }
        setRefsAndFlags(e, (v + ONE_REF) | HAS_HIT);
        return handleOf(e, index);
    }

    /** Adds a reference to a pinned entry. */
    public synchronized void ref(long handle) {
        checkNotClosed();
        long e = pinnedEntry(handle);
        int v = refsAndFlags(e);
        if (refs(v) == MAX_REFS) {
            throw tooManyRefs();
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
        checkNotClosed();
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
            hashRemove(e);
        }
        free(e);
        return true;
    }

    /**
     * Frees an entry's record, then its value: a value read through a stale handle, unlocked,
     * sees the record's stamp move before the value's memory is given back (RecordSlab#free).
     */
    private void free(long e) {
        usage -= totalCharge(e);
        long valueAddress = RAW.get(LONG, e + VALUE_ADDRESS_OFFSET);
        int valueLength = RAW.get(INT, e + VALUE_LENGTH_OFFSET);
        slab.free(slab.indexOf(e));
        values.freeGuarded(valueAddress, valueLength); // under the lock: close waits for it
    }

    /**
     * Evicts the oldest unreferenced entries until {@code charge} more fits, or none is left: the
     * main list's oldest first, then the window's.
     */
    private void evictFor(long charge) {
        long evicted = 0;
        while (usage + charge > capacity && evictOldest()) {
            evicted++;
        }
        countEvictions(evicted);
    }

    /**
     * Counts {@code evicted} evictions, and the charge {@link #evict} gathered for them, in the
     * cache's stats: two adds per insert that evicted, however many entries it evicted.
     */
    private void countEvictions(long evicted) {
        if (evicted != 0) {
            stats.evictions.add(evicted);
            stats.evictedCharge.add(uncountedEvictedCharge);
            uncountedEvictedCharge = 0;
        }
    }

    /** {@link #evictForWindowed}: room was made and the new entry enters the window. */
    private static final int INTO_WINDOW = 0;
    /** {@link #evictForWindowed}: room was made, the new entry won its duel: it enters the main list. */
    private static final int INTO_MAIN = 1;
    /** {@link #evictForWindowed}: the new entry lost its duel and is not inserted. */
    private static final int REFUSED_BY_POLICY = 2;

    /**
     * W-TinyLFU's eviction, making room for a new entry of {@code charge}, bound for the window
     * if it fits in the window's share, else for the main list. While the shard is over capacity:
     * <ul>
     *   <li>if the window is over its share (counting the new entry, if bound for it), its oldest
     *   entry (the candidate) leaves, judged by the policy against the main list's oldest (the
     *   victim): the loser is evicted, and a winning candidate joins the main list as its newest
     *   probation entry (the bottom pool, or the high pool if inserted {@link Priority#HIGH});
     *   <li>else, if the new entry is bound for the main list, it is judged itself against the
     *   victim: it is refused as soon as it loses (the victims it won against stay evicted),
     *   unless it replaces its key's entry ({@code replacing}): a new value for a present key is
     *   never refused;
     *   <li>else the main list is over its share: its oldest is evicted unasked.
     * </ul>
     * With an empty main list the window's oldest is evicted unasked. A window entry that loses
     * is counted as an admission reject and as an eviction; a new entry that loses is refused
     * (the caller counts it). When no room had to be made, a window over its share passes its
     * oldest to the main list unjudged (a cache filling up, as in Caffeine).
     */
    private int evictForWindowed(long charge, long newKey, boolean replacing) {
        boolean intoWindow = charge <= windowCapacity;
        long evicted = 0;
        long rejected = 0;
        boolean full = usage + charge > capacity;
        boolean refusedNew = false;
        try {
            while (usage + charge > capacity) {
                long victim = next(head);
                long candidate = next(windowHead);
                if (victim == head) {
                    if (!evictOldest()) {
                        break;
                    }
                } else if (candidate != windowHead
                        && windowUsage + (intoWindow ? charge : 0) > windowCapacity) {
                    if (admits(key0(candidate), key0(victim))) {
                        evict(victim);
                        admitFromWindow(candidate);
                    } else {
                        long loserCharge = charge(candidate); // read before its record is freed
                        evict(candidate);
                        rejected++;
                        events.admissionReject(this, shardNumber, loserCharge, true);
                    }
                } else if (!intoWindow && !replacing) {
                    if (!admits(newKey, key0(victim))) {
                        refusedNew = true;
                        break;
                    }
                    evict(victim);
                } else {
                    evict(victim);
                }
                evicted++;
            }
        } finally {
            // Also when the policy threw: what was evicted before stays evicted, and counted.
            countEvictions(evicted);
            if (rejected != 0) {
                stats.admissionRejects.add(rejected);
            }
        }
        if (refusedNew) {
            return REFUSED_BY_POLICY;
        }
        if (!full) {
            trimWindow(intoWindow ? charge : 0);
        }
        return intoWindow ? INTO_WINDOW : INTO_MAIN;
    }

    /**
     * Asks the policy whether {@code candidate} may displace {@code victim}. Between two entries
     * of the list, under the lock: a user's policy is asked with the shard and the thread marked,
     * so that a call it makes back into the cache is refused instead of changing the list under
     * this eviction (or, on another shard, waiting for a lock in a cycle). What it throws ends
     * the insert; the entries evicted so far stay evicted.
     */
    private boolean admits(long candidate, long victim) {
        if (trustedPolicy) {
            return admission.admit(candidate, victim);
        }
        enterCallback(ASKING_POLICY);
        try {
            return admission.admit(candidate, victim);
        } finally {
            exitCallback(ASKING_POLICY);
        }
    }

    /**
     * The window's share of capacity the policy asks for, in [0, 1] whatever it answers (NaN:
     * 0): a share past 1 would make the main region's capacity negative, and an infinite one
     * never fits a long.
     */
    private double askWindowShare() {
        double share;
        if (trustedPolicy) {
            share = admission.windowShare();
        } else {
            enterCallback(ASKING_POLICY);
            try {
                share = admission.windowShare();
            } finally {
                exitCallback(ASKING_POLICY);
            }
        }
        return share >= 0 ? Math.min(share, 1) : 0; // NaN fails the comparison too
    }

    /** Marks this shard and thread as running a user callback with the lock held. */
    private void enterCallback(int kind) {
        refused |= kind;
        callbacks.enterLocked();
        if (kind == ASKING_POLICY) {
            CallbackGuard.enterPolicy();
        }
    }

    private void exitCallback(int kind) {
        if (kind == ASKING_POLICY) {
            CallbackGuard.exitPolicy();
        }
        callbacks.exitLocked();
        refused &= ~kind;
    }

    /**
     * Moves the window's oldest entries to the main list, unjudged, until {@code charge} more
     * fits in the window's share.
     */
    private void trimWindow(long charge) {
        while (windowUsage + charge > windowCapacity && next(windowHead) != windowHead) {
            admitFromWindow(next(windowHead));
        }
    }

    /** Moves an unreferenced window entry to the main list, as a probation entry. */
    private void admitFromWindow(long e) {
        listRemove(e);
        setFlags(e, 0, IN_WINDOW | HAS_HIT);
        listInsert(e);
    }

    /**
     * Evicts the main list's oldest unreferenced entry, or if it has none the window's oldest.
     * Counts no stats. Returns false if both are empty.
     */
    private boolean evictOldest() {
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
    private void evict(long e) {
        uncountedEvictedCharge += charge(e);
        listRemove(e);
        hashRemove(e);
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
        countEvictions(1);
        return true;
    }

    /**
     * {@link #insert}'s result when a strict limit refused an entry the caller wanted pinned, or
     * a size limit (usage, records) refused an entry, pinned or not.
     */
    public static final long REFUSED = -1;
    /** {@link #insert}'s result when the admission policy kept a victim against the entry. */
    public static final long REJECTED = -2;
    /** {@link #insert}'s result for an entry dropped "as if inserted and evicted at once". */
    public static final long DROPPED = 0;

    /**
     * Inserts an entry whose value is already copied to {@code valueAddress}, replacing any entry
     * of the key. Returns the new entry's handle (pinned if {@code keepRef}), or {@link #DROPPED}
     * or {@link #REFUSED}; in those two cases, and when it throws because the cache is closed,
     * the caller still owns the value.
     *
     * <p>Refused, strict limit or not, when the entry would take usage past
     * {@link #usageLimit} (only pinned inserts over capacity come near it, or a charge above it),
     * and when every record the shard may have is pinned (at {@link RecordSlab#maxChunks}; an
     * unreferenced entry is evicted to free a record otherwise).
     */
    public synchronized long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                             Priority priority, boolean keepRef) {
        checkNotClosed(); // the value stays the caller's (ShardedCache.insertCopied's contract)
        if (charge > usageLimit - metaCharge) {
            return REFUSED; // can never fit; also keeps the sums below from overflowing
        }
        long total = charge + metaCharge;
        int placement = INTO_MAIN;
        if (admission != null) {
            followWindowShare();
            boolean replacing = hashIndex.find(h0, h1) != 0;
            placement = evictForWindowed(total, h0, replacing);
            if (placement == REFUSED_BY_POLICY) {
                return REJECTED;
            }
        } else {
            evictFor(total);
        }
        if (usage + total > capacity && (strict || !keepRef)) {
            return keepRef ? REFUSED : DROPPED;
        }
        if (total > usageLimit - usage || !freeRecordIfFull()) {
            return REFUSED;
        }
        int index = slab.allocate();
        long e = slab.address(index);
        RAW.set(LONG, e + KEY0_OFFSET, h0);
        RAW.set(LONG, e + KEY1_OFFSET, h1);
        RAW.set(LONG, e + VALUE_ADDRESS_OFFSET, valueAddress);
        RAW.set(LONG, e + CHARGE_OFFSET, charge);
        RAW.set(INT, e + VALUE_LENGTH_OFFSET, valueLength);
        setRefsAndFlags(e, IN_CACHE | (priority.ordinal() << PRIORITY_SHIFT)
                | (keepRef ? ONE_REF : 0) | (placement == INTO_WINDOW ? IN_WINDOW : 0));
        int old = hashIndex.find(h0, h1);
        if (old != 0) {
            eraseEntry(slab.address(old));
        }
        usage += total;
        hashIndex.insert(e, index);
        if (!keepRef) {
            listInsert(e);
        }
        return handleOf(e, index);
    }

    /** Removes the key; returns whether it was present. */
    public synchronized boolean erase(long h0, long h1) {
        checkNotClosed();
        int index = hashIndex.find(h0, h1);
        if (index == 0) {
            return false;
        }
        eraseEntry(slab.address(index));
        return true;
    }

    /** Takes an entry out of the index; frees it now if unreferenced, else at its last release. */
    private void eraseEntry(long e) {
        hashRemove(e);
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
        if ((refused & CLOSED) != 0) {
            return;
        }
        refused |= CLOSED;
        if ((refused & VISITING) != 0) {
            // Close called from a visitor (the monitor is re-entrant): the visit is still walking
            // the slab, and frees everything on its way out (visitEntries).
            return;
        }
        freeMemory();
    }

    private void freeMemory() {
        freed = true;
        slab.freeAll(); // live entries' values go with the value slabs' chunks, freed last
        hashIndex.free();
        freeListHeads();
    }

    /** Frees the list's head records ({@link LruList}'s, allocated before anything else). */
    private void freeListHeads() {
        NativeAllocator.free(head, LruRecordLayout.ENTRY_BYTES);
        if (windowHead != 0) {
            NativeAllocator.free(windowHead, LruRecordLayout.ENTRY_BYTES);
        }
    }

    // ---------------------------------------------------------------- visiting entries

    /**
     * Visits the entries in the index among at most {@code maxRecords} records (live or free),
     * in record index order from {@code from}, with the lock held throughout: one batch of
     * {@code Cache.forEachEntry}.
     *
     * <p>Record indexes are a stable cursor: records are carved from chunks that are only ever
     * added, and an entry stays in its record from insert to free (an insert of a present key
     * takes a new record and erases the old entry). So an entry in the index throughout the
     * whole walk is met exactly once, in the batch whose range holds its index, whatever
     * happened between batches; an entry inserted meanwhile is met if its record lies ahead of
     * the cursor. Indexes below the slab's fresh mark have all been handed out at least once
     * (chunk headers excepted), and past it no record ever held an entry.
     *
     * <p>Re-entry from the visitor is refused ({@link #VISITING}), since the visitor runs in the
     * middle of this walk, except for close, which this walk completes when the visitor returns.
     *
     * @return the index to continue from, or -1 when the shard is done
     * @throws IllegalStateException if the cache is closed, before or during the batch
     */
    public synchronized int visitEntries(EntryHandoff cache, EntryVisitor visitor, boolean readsValues,
                                  int from, int maxRecords) {
        checkNotClosed();
        int end = slab.freshIndex();
        int index = from;
        enterCallback(VISITING);
        try {
            for (int examined = 0; examined < maxRecords && index < end; index++) {
                if (RecordSlab.isHeader(index)) {
                    continue;
                }
                examined++;
                long e = slab.address(index);
                if ((refsAndFlags(e) & IN_CACHE) == 0
                        || !RecordSlab.isLive(slab.stamp(e))) {
                    continue;
                }
                cache.visit(visitor, readsValues, key0(e), key1(e),
                        RAW.get(LONG, e + VALUE_ADDRESS_OFFSET),
                        RAW.get(INT, e + VALUE_LENGTH_OFFSET), charge(e));
                if ((refused & CLOSED) != 0) {
                    index++;
                    break; // the visitor closed the cache
                }
            }
        } finally {
            exitCallback(VISITING);
            if ((refused & CLOSED) != 0 && !freed) {
                freeMemory();
            }
        }
        checkNotClosed();
        return index < end ? index : -1;
    }

    // ---------------------------------------------------------------- capacity and usage

    /** @param capacity at most {@link #usageLimit} ({@link ShardedCache#perShardCapacity}) */
    public synchronized void setCapacity(long capacity) {
        checkNotClosed();
        Throwable failure = null;
        double share = windowShare;
        if (admission != null) {
            try {
                share = askWindowShare();
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
        this.capacity = capacity;
        if (admission != null) {
            windowShare = share;
            setWindowShare(capacity, share);
        } else {
            setPoolCapacities(capacity);
        }
        evictFor(0);
    }

    /** Resizes the window and the pools if the policy has moved the window's share. */
    private void followWindowShare() {
        double share = askWindowShare();
        if (share != windowShare) {
            windowShare = share;
            setWindowShare(capacity, share);
        }
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

    public synchronized long highPoolUsage() {
        return highPoolUsage;
    }

    public synchronized long lowPoolUsage() {
        return lowPoolUsage;
    }

    /** Unreferenced entries' total charge in the bottom pool. */
    public synchronized long bottomPoolUsage() {
        return listUsage - highPoolUsage - lowPoolUsage - windowUsage;
    }

    /** Unreferenced entries' total charge in the admission window (0 without a policy). */
    public synchronized long windowUsage() {
        return windowUsage;
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
        checkNotClosed();
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
}
