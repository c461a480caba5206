package dev.clockwork.offheap.lru;

import static dev.clockwork.offheap.lru.LruRecordLayout.CHARGE_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.HASH_NEXT_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.HAS_HIT;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_HIGH_POOL;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_LOW_POOL;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_WINDOW;
import static dev.clockwork.offheap.lru.LruRecordLayout.KEY0_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.KEY1_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.LRU_NEXT_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.LRU_PREV_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.PRIORITY_MASK;
import static dev.clockwork.offheap.lru.LruRecordLayout.PRIORITY_SHIFT;
import static dev.clockwork.offheap.lru.LruRecordLayout.REFS_AND_FLAGS_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_ADDRESS_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_LENGTH_OFFSET;

import dev.clockwork.cache.Placement;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.entry.ChargeWord;
import dev.clockwork.offheap.memory.NativeAllocator;
import dev.clockwork.offheap.shard.ShardContext;
import dev.clockwork.offheap.stats.KindCounts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An LRU shard's records and its list: typed access to each record field
 * ({@link LruRecordLayout}), and the one list of unreferenced entries, oldest to newest, split
 * into the bottom, low and high pools, plus the admission window's list when there is one.
 * Every method runs under the shard's lock; none takes it.
 *
 * <p>The main list is [bottom][low][high] from oldest to newest: {@link #bottomNewest} is the
 * newest entry of the bottom pool and {@link #lowNewest} the newest of the low pool (each the
 * cursor below it, or the head, when its pool is empty). An unreferenced entry goes where its
 * priority and hit flag say: HIGH or hit to the newest end of the high pool (if there is a high
 * pool), else HIGH, LOW or hit to the newest end of the low pool (if there is one), else to the
 * newest end of the bottom pool.
 *
 * <p>Invariants, asserted at each transition (as RocksDB's {@code lru_cache.cc}): an entry on a
 * list has no references and was in the index when put there; it has at most one of
 * {@code IN_HIGH_POOL} and {@code IN_LOW_POOL}, and neither if it is in the window;
 * {@code listUsage} is the total charge of the entries on both lists and covers
 * {@code windowUsage + highPoolUsage + lowPoolUsage}; each usage is never negative; after a
 * rebalance the high and low pools are within their capacities.
 */
abstract class LruList {
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    /**
     * All memory, unscoped: every access here runs under the shard's lock, and close frees the
     * shard's memory under that lock too ({@code LruShard.freeAll}), after which every operation
     * refuses to start ({@link LruRefusals}). So an operation racing close either finishes before
     * the memory is freed or touches none of it, and never stops half done, as it could if an
     * access failed midway on the closed arena (a value freed twice). Unscoped accesses are also
     * cheaper.
     */
    static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    /** Bytes each entry adds to its charge for its record (0 unless metadata is charged). */
    final long metaCharge;
    /** A dummy entry (malloc'd, not a slab record): the list's ends meet here. */
    final long head;
    long lowNewest;
    long bottomNewest;
    final boolean hasHighPool;
    final boolean hasLowPool;
    /**
     * Whether there is a high or a low pool. Without either (ratios 0/0) the list is plain LRU:
     * every entry goes to the newest end and no cursor or pool usage needs keeping, so the list
     * code takes the plain LRU's path after one test of this field.
     */
    final boolean pools;
    final double highRatio;
    final double lowRatio;
    long highPoolCapacity;
    long lowPoolCapacity;
    /**
     * The admission window's dummy entry (W-TinyLFU, with an admission policy only; else 0): a
     * second list, oldest to newest, of new entries not yet judged against the main list's
     * oldest. See {@link LruWindow}.
     */
    final long windowHead;
    /** Total charge of the unreferenced entries in the window. */
    long windowUsage;
    /** The window's share of capacity, in charge; the main list has the rest. */
    long windowCapacity;
    /** Total charge of the entries on the lists, main and window (unreferenced). */
    long listUsage;
    long highPoolUsage;
    long lowPoolUsage;

    /**
     * The cache's entry-kind counters: an entry is counted when its record is stored
     * ({@link #storeCharge}) and uncounted when it is freed ({@link #freedCharge}).
     */
    private final KindCounts kinds;

    /** @param shard the shard's context: whether metadata is charged, the kind counters */
    LruList(double highRatio, double lowRatio, ShardContext shard, boolean window) {
        this.metaCharge = shard.chargeMetadata() ? LruRecordLayout.ENTRY_BYTES : 0;
        this.kinds = shard.context().stats.kinds;
        this.highRatio = highRatio;
        this.lowRatio = lowRatio;
        this.hasHighPool = highRatio > 0;
        this.hasLowPool = lowRatio > 0;
        this.pools = hasHighPool || hasLowPool;
        this.head = NativeAllocator.allocate(LruRecordLayout.ENTRY_BYTES);
        setPrev(head, head);
        setNext(head, head);
        this.lowNewest = head;
        this.bottomNewest = head;
        try {
            this.windowHead = window ? NativeAllocator.allocate(LruRecordLayout.ENTRY_BYTES) : 0;
        } catch (OutOfMemoryError e) {
            NativeAllocator.free(head, LruRecordLayout.ENTRY_BYTES); // nothing else holds it
            throw e;
        }
        if (window) {
            setPrev(windowHead, windowHead);
            setNext(windowHead, windowHead);
        }
    }

    /** Frees the list's head records, allocated before anything else of the shard. */
    final void freeListHeads() {
        NativeAllocator.free(head, LruRecordLayout.ENTRY_BYTES);
        if (windowHead != 0) {
            NativeAllocator.free(windowHead, LruRecordLayout.ENTRY_BYTES);
        }
    }

    /**
     * Writes a new entry's record: its key, value, charge word (counted under its kind, see
     * {@link #storeCharge}), and references and flags.
     */
    final void writeRecord(long e, long h0, long h1, long valueAddress, int valueLength,
                           long charge, Placement placement, int refsAndFlags) {
        RAW.set(LONG, e + KEY0_OFFSET, h0);
        RAW.set(LONG, e + KEY1_OFFSET, h1);
        RAW.set(LONG, e + VALUE_ADDRESS_OFFSET, valueAddress);
        storeCharge(e, charge, placement);
        RAW.set(INT, e + VALUE_LENGTH_OFFSET, valueLength);
        RAW.set(INT, e + REFS_AND_FLAGS_OFFSET, refsAndFlags);
    }

    /**
     * Sizes the window, and the main list's pools in what is left, for a shard capacity and the
     * window's share of it.
     */
    final void setWindowShare(long capacity, double share) {
        windowCapacity = (long) (capacity * share);
        setPoolCapacities(capacity - windowCapacity);
    }

    /** Sizes the high and low pools for a shard capacity, passing overflow down. */
    final void setPoolCapacities(long capacity) {
        this.highPoolCapacity = (long) (capacity * highRatio);
        this.lowPoolCapacity = (long) (capacity * lowRatio);
        if (pools) {
            maintainPoolSizes();
        }
    }

    // ---------------------------------------------------------------- record fields

    long prev(long e) {
        return RAW.get(LONG, e + LRU_PREV_OFFSET);
    }

    void setPrev(long e, long p) {
        RAW.set(LONG, e + LRU_PREV_OFFSET, p);
    }

    long next(long e) {
        return RAW.get(LONG, e + LRU_NEXT_OFFSET);
    }

    void setNext(long e, long n) {
        RAW.set(LONG, e + LRU_NEXT_OFFSET, n);
    }

    int refsAndFlags(long e) {
        return RAW.get(INT, e + REFS_AND_FLAGS_OFFSET);
    }

    void setRefsAndFlags(long e, int v) {
        RAW.set(INT, e + REFS_AND_FLAGS_OFFSET, v);
    }

    boolean hasFlag(long e, int flag) {
        return (refsAndFlags(e) & flag) != 0;
    }

    void setFlags(long e, int on, int off) {
        setRefsAndFlags(e, (refsAndFlags(e) & ~off) | on);
    }

    static int refs(int refsAndFlags) {
        return refsAndFlags >>> LruRecordLayout.FLAG_BITS;
    }

    /** The charge the caller gave: the record's charge word without the kind. */
    long charge(long e) {
        return ChargeWord.charge(RAW.get(LONG, e + CHARGE_OFFSET));
    }

    /**
     * Writes a new entry's charge word, its charge and its placement's kind, and counts the
     * entry under its kind: stored from here on, until {@link #freedCharge}.
     *
     * @param charge at most the shard's usage limit (the insert checked), so below the kind
     */
    private void storeCharge(long e, long charge, Placement placement) {
        long word = ChargeWord.of(charge, placement.kindIndex());
        RAW.set(LONG, e + CHARGE_OFFSET, word);
        kinds.stored(word);
    }

    /**
     * What an entry being freed gives back of usage ({@link #totalCharge}); it leaves its kind's
     * count here, the one place the shard frees entries.
     */
    long freedCharge(long e) {
        long word = RAW.get(LONG, e + CHARGE_OFFSET);
        kinds.freed(word);
        return ChargeWord.charge(word) + metaCharge;
    }

    /** What the entry counts against capacity: its charge plus its record, if metadata counts. */
    long totalCharge(long e) {
        return charge(e) + metaCharge;
    }

    static int hashNext(long e) {
        return RAW.get(INT, e + HASH_NEXT_OFFSET);
    }

    public static long key0(long e) {
        return RAW.get(LONG, e + KEY0_OFFSET);
    }

    static long key1(long e) {
        return RAW.get(LONG, e + KEY1_OFFSET);
    }

    // ---------------------------------------------------------------- the list and its pools

    /** Takes an entry off the list, keeping the pool cursors and usages right. */
    void listRemove(long e) {
        assert listed(e);
        long p = prev(e);
        long n = next(e);
        setNext(p, n);
        setPrev(n, p);
        long charge = totalCharge(e);
        assert listUsage >= charge : "listUsage below a listed charge";
        listUsage -= charge;
        if ((refsAndFlags(e) & IN_WINDOW) != 0) {
            assert windowUsage >= charge : "windowUsage below its entry's charge";
            windowUsage -= charge; // not on the main list: its cursors are elsewhere
            return;
        }
        if (pools) {
            if (lowNewest == e) {
                lowNewest = p;
            }
            if (bottomNewest == e) {
                bottomNewest = p;
            }
            int v = refsAndFlags(e);
            if ((v & (IN_HIGH_POOL | IN_LOW_POOL)) != 0) {
                if ((v & IN_HIGH_POOL) != 0) {
                    assert highPoolUsage >= charge : "highPoolUsage below its entry's charge";
                    highPoolUsage -= charge;
                } else {
                    assert lowPoolUsage >= charge : "lowPoolUsage below its entry's charge";
                    lowPoolUsage -= charge;
                }
                setRefsAndFlags(e, v & ~(IN_HIGH_POOL | IN_LOW_POOL));
            }
        }
        assert usagesAdd();
    }

    /**
     * Whether {@code e} may be on a list: an entry record (not a head), unreferenced, in one pool
     * at most and in none if in the window. For asserts. (An entry leaves the index just before
     * it leaves the list when erased or replaced, so the index flag is checked on insert only.)
     */
    private boolean listed(long e) {
        int v = refsAndFlags(e);
        assert e != head && e != windowHead : "a list head as an entry";
        assert refs(v) == 0 : "a referenced entry on the list: " + refs(v) + " refs";
        assert (v & (IN_HIGH_POOL | IN_LOW_POOL)) != (IN_HIGH_POOL | IN_LOW_POOL)
                : "an entry in both the high and the low pool";
        assert (v & IN_WINDOW) == 0 || (v & (IN_HIGH_POOL | IN_LOW_POOL)) == 0
                : "a window entry in a pool of the main list";
        return true;
    }

    /** Whether the list's usages are consistent (see the class comment). For asserts. */
    private boolean usagesAdd() {
        assert windowUsage >= 0 && highPoolUsage >= 0 && lowPoolUsage >= 0
                : "negative usage: window " + windowUsage + ", high " + highPoolUsage
                + ", low " + lowPoolUsage;
        assert listUsage >= windowUsage + highPoolUsage + lowPoolUsage
                : "listUsage " + listUsage + " below its parts";
        return true;
    }

    void linkAfter(long at, long e) {
        long n = next(at);
        setPrev(e, at);
        setNext(e, n);
        setNext(at, e);
        setPrev(n, e);
    }

    /** {@link #listInsert}'s precondition: listed, in the index, in no pool yet. */
    private boolean insertable(long e) {
        return listed(e) && hasFlag(e, LruRecordLayout.IN_CACHE)
                && (refsAndFlags(e) & (IN_HIGH_POOL | IN_LOW_POOL)) == 0;
    }

    /** Puts an unreferenced entry on the list where its priority and hit flag place it. */
    void listInsert(long e) {
        assert insertable(e) : "an entry put on the list is in the index and in no pool";
        long charge = totalCharge(e);
        listUsage += charge;
        if ((refsAndFlags(e) & IN_WINDOW) != 0) {
            assert windowHead != 0 : "a window entry without a window";
            linkAfter(prev(windowHead), e);
            windowUsage += charge;
            return;
        }
        if (!pools) {
            linkAfter(prev(head), e);
            return;
        }
        insertIntoPools(e, charge);
    }

    /**
     * {@link #listInsert} on a list with pools: the high pool, the low pool or the bottom, by
     * the entry's priority and whether it was hit. Apart so that each stays under the JIT's
     * inlining limit for hot methods (325 bytes of bytecode).
     */
    private void insertIntoPools(long e, long charge) {
        int v = refsAndFlags(e);
        boolean hit = (v & HAS_HIT) != 0;
        int priority = (v & PRIORITY_MASK) >>> PRIORITY_SHIFT;
        if (hasHighPool && (hit || priority == Priority.HIGH.ordinal())) {
            linkAfter(prev(head), e); // the newest end
            setRefsAndFlags(e, v | IN_HIGH_POOL);
            highPoolUsage += charge;
            maintainPoolSizes();
        } else if (hasLowPool && (hit || priority != Priority.BOTTOM.ordinal())) {
            linkAfter(lowNewest, e);
            lowNewest = e;
            setRefsAndFlags(e, v | IN_LOW_POOL);
            lowPoolUsage += charge;
            maintainPoolSizes();
        } else {
            linkAfter(bottomNewest, e);
            if (bottomNewest == lowNewest) {
                lowNewest = e; // an empty low pool's cursor sits on the bottom's newest
            }
            bottomNewest = e;
        }
        assert usagesAdd();
    }

    /** Moves the oldest entries of an over-full pool to the pool below. */
    void maintainPoolSizes() {
        while (highPoolUsage > highPoolCapacity) {
            lowNewest = next(lowNewest); // the high pool's oldest becomes the low pool's newest
            assert lowNewest != head && hasFlag(lowNewest, IN_HIGH_POOL) : "high pool cursor";
            setFlags(lowNewest, IN_LOW_POOL, IN_HIGH_POOL);
            long charge = totalCharge(lowNewest);
            highPoolUsage -= charge;
            lowPoolUsage += charge;
        }
        while (lowPoolUsage > lowPoolCapacity) {
            bottomNewest = next(bottomNewest);
            assert bottomNewest != head && hasFlag(bottomNewest, IN_LOW_POOL) : "low pool cursor";
            setFlags(bottomNewest, 0, IN_LOW_POOL);
            lowPoolUsage -= totalCharge(bottomNewest);
        }
        assert highPoolUsage <= highPoolCapacity && lowPoolUsage <= lowPoolCapacity
                : "a pool over its capacity after the rebalance";
        assert usagesAdd();
    }

    // ---------------------------------------------------------------- usages, under the lock

    // Synchronized on the shard (this object): the shard's monitor guards the list.

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

    /** The list from oldest to newest, for tests: entry addresses (the shard checks it is open). */
    final long[] listOrderUnchecked() {
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
