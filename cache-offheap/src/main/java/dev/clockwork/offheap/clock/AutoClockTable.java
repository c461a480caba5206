package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ChainPointer.LOCKED;
import static dev.clockwork.offheap.clock.ChainPointer.index;
import static dev.clockwork.offheap.clock.ChainPointer.isEnd;
import static dev.clockwork.offheap.clock.ChainPointer.isLocked;
import static dev.clockwork.offheap.clock.ChainPointer.shift;
import static dev.clockwork.offheap.clock.ClockMeta.MAX_COUNTDOWN;
import static dev.clockwork.offheap.clock.ClockMeta.isShareable;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_BYTES;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_SHIFT;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;
import dev.clockwork.offheap.memory.CacheMemory;
import dev.clockwork.offheap.memory.NativeAllocator;

/**
 * The growing index: chaining through per-home head pointers, grown one home at a time by linear
 * hashing, over an address-space reservation that becomes resident only as it is used.
 *
 * <p><b>Homes and chains.</b> Slot {@code i} is both a place for an entry and <em>home</em> number
 * {@code i}: the head of the chain of entries whose hash maps to it (the two words are laid out in
 * {@link SlotLayout}, decorated as {@link ChainPointer}s). An entry is stored in any free slot,
 * preferably its home (then head and entry share a cache line), and linked at the head of its
 * home's chain. Entries are never moved, so handles stay valid while the table grows.
 *
 * <p><b>Linear hashing.</b> With {@code used = 2^s + t} homes ({@code lengthInfo} holds s and t),
 * a key's home is the low s bits of {@code h1}, or the low s+1 bits when those s bits are below
 * t. Growing by one splits home {@code t} (shift s) into {@code t} and {@code t + 2^s}
 * (shift s+1). Occupancy is kept at most {@link #MAX_LOAD_FACTOR} of the used homes, so chains
 * average well under one entry.
 *
 * <p><b>Who may change a chain.</b> Inserts link at the head with one CAS, and only on an unlocked
 * head. Anything that removes entries or rewrites links (erase, eviction, a split) first sets the
 * head's lock bit; while it is set no other thread changes that chain's links, and entries on it
 * cannot be freed, so their keys can be read without a reference. Waiting for a lock is the only
 * waiting in the table, and every wait is counted ({@code yields} in the cache's stats).
 *
 * <p><b>Lookups without locks.</b> A lookup walks the chain reading keys plainly and confirms a
 * match by taking a reference (the same check as the fixed table). It never waits; it restarts
 * from its home's head when it notices that it may have left its chain, which can only happen
 * because another thread changed the structure (lock-free). What it checks:
 * <ul>
 *   <li>a chain's end names its home: reaching another chain's end means the walk wandered off
 *       (an entry it passed through was freed and reused on another chain);</li>
 *   <li>an entry it passes must belong to the home it is walking, judged with the shift of the
 *       pointer that led to it;</li>
 *   <li>every pointer carries its chain's shift. A head with a larger shift than expected means the
 *       chain was split: the lookup moves to the half its key now belongs to, one generation at a
 *       time. A smaller shift means the walk is in the not yet split tail of a split in progress,
 *       which is still its parent chain, ending at the parent's end. A larger shift on a pointer
 *       inside the chain means a split overtook the walk: restart.</li>
 * </ul>
 * A split ({@link #split}) moves entries between the two halves only by pointing a link further
 * along the old order, over entries of the other half, and only ever raises shifts; so whichever
 * of its intermediate states a lookup walks through, it passes every entry of its half that was
 * there when it started, or notices a shift it did not expect. (This is the scheme of RocksDB's
 * AutoHyperClockTable, with inserts waiting for rewrite locks instead of racing them, and lookups
 * restarting instead of keeping a referenced entry to resume from.)
 *
 * <p><b>Eviction</b> sweeps homes, not slots: for each home it runs the clock step on each
 * entry of its chain (no lock: the step is a CAS per entry), then unlinks the entries it took,
 * each under its chain's lock, and frees them.
 */
public final class AutoClockTable extends ClockShard {
    /** Most entries per used home; sizing the reservation assumes the same. */
    public static final double MAX_LOAD_FACTOR = 0.6;
    /** Smallest average entry charge the reservation is sized for (RocksDB's default). */
    public static final long DEFAULT_MIN_AVG_ENTRY_CHARGE = 450;
    /**
     * Most address space the tables of one cache reserve together: 1 TiB, 2^34 slots. Room for
     * about 10 billion entries, a capacity of 5 TiB at the default minimum average charge, while
     * an "unbounded" cache ({@code capacity(Long.MAX_VALUE)}) maps 1 TiB rather than tens of TiB;
     * beyond it the table stops growing and inserts evict to free slots.
     */
    public static final long MAX_RESERVATION_BYTES = 1L << 40;
    private static final long PAGE_BYTES = 4096;
    /** Homes an eviction thread claims from the shared clock pointer at a time. */
    private static final int CLOCK_STEP = 4;
    /** Slots after the home tried one by one before spreading out. */
    private static final int LINEAR_PROBES = 4;
    /** {@link #claimSlot} results that are not a slot offset. */
    private static final long DUPLICATE = -2;
    private static final long NO_FREE_SLOT = -3;
    /** Spins before a waiting thread starts yielding its core. */
    private static final int SPINS = 64;

    private static final VarHandle LENGTH_INFO;
    private static final VarHandle OCCUPANCY_LIMIT;

    static {
        try {
            var lookup = MethodHandles.lookup();
            LENGTH_INFO = lookup.findVarHandle(AutoClockTable.class, "lengthInfo", long.class)
                    .withInvokeExactBehavior();
            OCCUPANCY_LIMIT = lookup.findVarHandle(AutoClockTable.class, "occupancyLimit",
                    long.class).withInvokeExactBehavior();
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Low 8 bits: the minimum shift s; the rest: the threshold t. Used homes = 2^s + t. */
    private volatile long lengthInfo;
    private volatile long occupancyLimit;
    /** Next home to create; runs ahead of {@link #lengthInfo} while splits are in progress. */
    private final AtomicLong growFrontier;

    public AutoClockTable(long maxSlots, ClockShardContext context) {
        super(NativeAllocator.reserve(maxSlots * SLOT_BYTES), maxSlots, context);
        long start = startingLength(context.capacity());
        int shift = 63 - Long.numberOfLeadingZeros(start);
        for (long home = 0; home < start; home++) {
            setHead(home, ChainPointer.end(home, shift));
        }
        this.lengthInfo = lengthInfoOf(start);
        this.occupancyLimit = occupancyLimitOf(start);
        this.growFrontier = new AtomicLong(start);
        chargeSlots(start);
    }

    /**
     * Slots to reserve for one of {@code 2^shardBits} shards: enough for the shard's capacity
     * filled with entries of {@code minAvgEntryCharge} at {@link #MAX_LOAD_FACTOR}, rounded up to
     * whole pages, but at most {@link #maxReservedSlots}. The count is estimated in
     * {@code double}, so no capacity overflows it.
     */
    public static long maxSlots(long capacity, long minAvgEntryCharge, boolean chargeMetadata,
                         int shardBits) {
        double slotCharge = minAvgEntryCharge * MAX_LOAD_FACTOR + (chargeMetadata ? SLOT_BYTES : 0);
        double wanted = capacity / slotCharge + 1;
        long limit = maxReservedSlots(shardBits);
        if (wanted >= limit) {
            return limit;
        }
        long pageSlots = PAGE_BYTES / SLOT_BYTES;
        long slots = ((long) wanted + pageSlots - 1) & -pageSlots;
        return Math.min(slots, limit);
    }

    /**
     * Most slots one of {@code 2^shardBits} shards reserves: what its handles can name
     * ({@link ClockShard#maxSlotsPerShard}), and its share of {@link #MAX_RESERVATION_BYTES}. A
     * whole number of pages, as every bound is a power of two of at least a page.
     */
    public static long maxReservedSlots(int shardBits) {
        long share = MAX_RESERVATION_BYTES / SLOT_BYTES >> shardBits;
        return Math.min(maxSlotsPerShard(shardBits), share);
    }

    /** One page of slots, or a few for tiny capacities (tests). */
    static long startingLength(long capacity) {
        return capacity > PAGE_BYTES ? PAGE_BYTES / SLOT_BYTES : 4;
    }

    private static long lengthInfoOf(long used) {
        int shift = 63 - Long.numberOfLeadingZeros(used);
        return ((used - (1L << shift)) << 8) | shift;
    }

    public static long usedLength(long info) {
        return (1L << (info & 0xFF)) + (info >>> 8);
    }

    private static long occupancyLimitOf(long used) {
        return (long) Math.ceil(used * MAX_LOAD_FACTOR);
    }

    private static long lowBits(long value, int bits) {
        return value & ((1L << bits) - 1);
    }

    /** A key's home and its shift under {@code info}, packed as {@code home << 8 | shift}. */
    private static long homeAndShift(long info, long h1) {
        int minShift = (int) (info & 0xFF);
        long home = lowBits(h1, minShift);
        if (home < (info >>> 8)) {
            return (lowBits(h1, minShift + 1) << 8) | (minShift + 1);
        }
        return (home << 8) | minShift;
    }

    public long lengthInfo() {
        return lengthInfo;
    }

    /** Waits counted by every shard of this table's cache. */
    public long yieldCount() {
        return memory.stats.yields.sum();
    }

    @Override
    public long occupancyLimit() {
        return occupancyLimit;
    }

    /**
     * Slots that may hold entries: every home created or being created. An entry's slot need not
     * be a published home (only its chain's head must be), so inserts may use the slots of splits
     * still in progress; that keeps them from crowding the published prefix while an earlier
     * split holds back the published length.
     */
    private long slotBound() {
        return Math.min(growFrontier.get(), slotCount);
    }

    @Override
    public long usedSlots() {
        return slotBound();
    }

    /** Homes in the published length: what lookups and eviction use. */
    public long homes() {
        return usedLength(lengthInfo);
    }

    @Override
    void releaseTableMemory() {
        NativeAllocator.unreserve(rawAddress, slotCount * SLOT_BYTES);
    }

    // ---------------------------------------------------------------- chain words

    /**
     * Chain words are read with acquire: an entry's fields were written before the link that
     * leads to it was published (by the inserter's CAS, or by a split that read them under lock),
     * so a reader that follows the link sees them.
     */
    private long head(long home) {
        return (long) LONG.getAcquire(slots, SlotLayout.headOffset(home << SLOT_SHIFT));
    }

    private void setHead(long home, long word) {
        LONG.setRelease(slots, SlotLayout.headOffset(home << SLOT_SHIFT), word);
    }

    private long compareAndExchangeHead(long home, long expected, long word) {
        return (long) LONG.compareAndExchange(slots, SlotLayout.headOffset(home << SLOT_SHIFT),
                expected, word);
    }

    private long next(long slot) {
        return (long) LONG.getAcquire(slots, SlotLayout.nextOffset(slot));
    }

    private void setNext(long slot, long word) {
        LONG.setRelease(slots, SlotLayout.nextOffset(slot), word);
    }

    /** Locks a chain, waiting (and counting the wait) while another thread holds it. */
    private long lock(long home) {
        long word = head(home);
        boolean waited = false;
        for (int spins = 0;; spins++) {
            if (!isLocked(word)) {
                long witness = compareAndExchangeHead(home, word, word | LOCKED);
                if (witness == word) {
                    return word | LOCKED;
                }
                word = witness;
                continue;
            }
            if (!waited) {
                waited = true;
                memory.stats.yields.increment();
            }
            pause(spins);
            word = head(home);
        }
    }

    /** Unlocks a chain locked by this thread; nobody else writes a locked head, so a store does. */
    private void unlock(long home) {
        setHead(home, head(home) & ~LOCKED);
    }

    private static void pause(int spins) {
        if (spins < SPINS) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    // ---------------------------------------------------------------- lookup

    @Override
    long lookup(long h0, long h1) {
        return walk(h0, h1, false);
    }

    /**
     * Walks the key's chain to the first visible entry of the key: referenced, for a lookup
     * ({@link FoundEntry} of it), or erased without a reference, for an erase (any non-negative
     * number; see {@link #eraseIfKey}). {@link FoundEntry#NONE} if there is none.
     */
    private long walk(long h0, long h1, boolean erase) {
        // A stale length is fine: heads carry their shift, and the walk catches up from there.
        long homeAndShift = homeAndShift((long) LENGTH_INFO.getOpaque(this), h1);
        long home = homeAndShift >>> 8;
        int homeShift = (int) (homeAndShift & 0xFF);
        long word = head(home);
        boolean atHead = true;
        long hops = 0;
        for (;;) {
            int shift = shift(word);
            long effectiveHome = home;
            if (shift != homeShift) {
                if (shift < homeShift) {
                    // The unsplit tail of a split in progress: still the parent's chain.
                    effectiveHome = lowBits(h1, shift);
                } else if (atHead) {
                    // The chain was split after the length we read: follow our key's half.
                    homeShift++;
                    home = lowBits(h1, homeShift);
                    word = head(home);
                    continue;
                } else {
                    word = restart(home);
                    atHead = true;
                    continue;
                }
            }
            if (isEnd(word)) {
                if (index(word) == effectiveHome) {
                    return FoundEntry.NONE; // a complete walk of our chain
                }
                word = restart(home);
                atHead = true;
                continue;
            }
            long slot = index(word) << SLOT_SHIFT;
            long key1 = key1(slot);
            if (key1 == h1 && key0(slot) == h0) {
                if (erase) {
                    if (eraseIfKey(slot, h0, h1)) {
                        return slot;
                    }
                } else {
                    int stamp = tryReference(slot, h0, h1);
                    if (stamp != 0) {
                        return FoundEntry.of(slot, stamp);
                    }
                }
            }
            if (lowBits(key1, shift) != effectiveHome || ++hops > slotCount) {
                // Wandered onto another chain, or round a cycle made by concurrent reuse.
                word = restart(home);
                atHead = true;
                hops = 0;
                continue;
            }
            word = next(slot);
            atHead = false;
        }
    }

    private long restart(long home) {
        memory.stats.lookupRestarts.increment();
        return head(home);
    }

    // ---------------------------------------------------------------- insert

    @Override
    boolean growIfNeeded(long newOccupancy) {
        while (newOccupancy > occupancyLimit) {
            long grown = grow();
            if (grown < 0) {
                return false;
            }
            // Our home counts even if an earlier split still holds back the published length:
            // growing again would only add homes nobody needs yet.
            if (newOccupancy <= occupancyLimitOf(grown + 1)) {
                return true;
            }
        }
        return true;
    }

    @Override
    long doInsert(long h0, long h1, long valueAddress, int valueLength, long charge,
                  long countdown, boolean keepRef) {
        long info = (long) LENGTH_INFO.getAcquire(this);
        long homeAndShift = homeAndShift(info, h1);
        long bound = slotBound();
        long claimed = claimSlot(homeAndShift >>> 8, bound, h0, h1, valueAddress, valueLength,
                charge, countdown, keepRef);
        while (claimed == NO_FREE_SLOT && slotBound() > bound) {
            // Entries never move, so the oldest slots fill first: a bound read just before the
            // table grew can leave us searching a full prefix. Search the grown table.
            bound = slotBound();
            claimed = claimSlot(homeAndShift >>> 8, bound, h0, h1, valueAddress, valueLength,
                    charge, countdown, keepRef);
        }
        if (claimed < 0) {
            return FoundEntry.NONE; // a duplicate, or no free slot at all
        }
        long slot = FoundEntry.slot(claimed);
        link(slot, homeAndShift, h1);
        if (!keepRef) {
            undo(slot, FoundEntry.stamp(claimed), 1);
        }
        return claimed;
    }

    /** Pushes a published entry onto its home's chain (split since, or not). */
    private void link(long slot, long homeAndShift, long h1) {
        long home = homeAndShift >>> 8;
        int homeShift = (int) (homeAndShift & 0xFF);
        // Published with one reference, held until linked, so nothing can remove it meanwhile.
        long index = slot >>> SLOT_SHIFT;
        for (;;) {
            long word = head(home);
            int shift = shift(word);
            assert shift >= homeShift : "a head's shift never decreases";
            if (shift > homeShift) {
                // Split since we read the length: move to our half, and help publish the length.
                homeShift++;
                long bit = 1L << (homeShift - 1);
                catchUpLengthInfo(lowBits(h1, homeShift - 1) + bit);
                home = lowBits(h1, homeShift);
                continue;
            }
            if (isLocked(word)) {
                lock(home); // waits for the rewrite, counted
                unlock(home);
                continue;
            }
            setNext(slot, word);
            if (compareAndExchangeHead(home, word, ChainPointer.to(index, homeShift)) == word) {
                return;
            }
        }
    }

    /**
     * Claims a free slot below {@code used} and publishes the entry in it with one reference (the caller's if
     * {@code keepRef}, else the insert's own until the entry is linked): the home first, then a
     * few neighbours, then jumps by a step taken from {@code h0}, so that keys crowding one home
     * fan out.
     *
     * @return {@link FoundEntry} of the slot and the entry's stamp, or {@link #DUPLICATE} if the key
     *     was met on the way, or {@link #NO_FREE_SLOT}
     */
    private long claimSlot(long home, long used, long h0, long h1, long valueAddress,
                           int valueLength, long charge, long countdown, boolean keepRef) {
        long index = home;
        long step = 1;
        long cycleStart = home;
        long attempts = 2 * used + LINEAR_PROBES;
        for (long attempt = 0; attempt < attempts; attempt++) {
            long slot = index << SLOT_SHIFT;
            if (tryClaim(slot)) {
                // One reference until linked: the caller's if kept, else the insert's own.
                return fillAndPublish(slot, h0, h1, valueAddress, valueLength, charge,
                        ClockMeta.newEntry(countdown, keepRef, !keepRef));
            }
            if (key0(slot) == h0 && key1(slot) == h1 && ClockMeta.isVisible(metaOpaque(slot))
                    && sameKeyBoosting(slot, h0, h1, countdown)) {
                return DUPLICATE;
            }
            if (attempt + 1 == LINEAR_PROBES && used > 1) {
                step = 1 + Long.remainderUnsigned(h0, used - 1);
                cycleStart = index;
            }
            index += step;
            if (index >= used) {
                index -= used;
            }
            if (index == cycleStart) {
                // The jumps came round (step and length share a factor): move to the next cycle.
                index = cycleStart = index + 1 == used ? 0 : index + 1;
            }
        }
        return NO_FREE_SLOT;
    }

    // ---------------------------------------------------------------- growth

    /**
     * Adds one home by splitting the chain it comes from. Splits run in parallel; one waits only
     * for the split that created its source chain, which is a table size back.
     *
     * @return the new home, or -1 if the reservation is full
     */
    private long grow() {
        if (growFrontier.get() >= slotCount) {
            return -1; // full: a plain read, as every insert of a full table comes here
        }
        long growHome = growFrontier.getAndIncrement();
        if (growHome >= slotCount) {
            growFrontier.set(slotCount); // keep it from running away on repeated failures
            return -1;
        }
        int oldShift = 63 - Long.numberOfLeadingZeros(growHome);
        long oldHome = growHome - (1L << oldShift);
        // The chain at oldHome got shift oldShift when its parent was split; wait for that split
        // to have published its heads and let go of the parent.
        long parent = lowBits(growHome, oldShift - 1);
        boolean waited = false;
        for (int spins = 0;; spins++) {
            long word = head(parent);
            if (shift(word) >= oldShift && !isLocked(word)) {
                break;
            }
            if (!waited) {
                waited = true;
                memory.stats.yields.increment();
            }
            pause(spins);
        }
        split(growHome, oldHome, oldShift);
        catchUpLengthInfo(growHome);
        return growHome;
    }

    /**
     * Publishes a longer used length as far as splits allow, without waiting: home {@code h}
     * may be counted once the split creating it has published both heads (its "big step"). Goes
     * past {@code readyHome} when later splits are ready too, so that a split finishing after a
     * later one is not left unpublished.
     */
    private void catchUpLengthInfo(long readyHome) {
        // Two splits finishing together each store their heads and then read the other's: with
        // only release stores and acquire loads both may read the old head (store buffering)
        // and leave a finished home unpublished. A full fence orders our stores before our
        // reads, so at least one of them sees the other's heads. (Found by jcstress,
        // AutoHccGrowVsInsert.TwoSplits.) Once per grow, so its cost does not matter.
        VarHandle.fullFence();
        long info = (long) LENGTH_INFO.getAcquire(this);
        long used = usedLength(info);
        long frontier = Math.min(growFrontier.get(), slotCount);
        while (used < frontier && (used == readyHome || headsPublished(used))) {
            long next = lengthInfoOf(used + 1);
            long witness = (long) LENGTH_INFO.compareAndExchange(this, info, next);
            if (witness == info) {
                info = next;
                chargeSlots(1);
            } else {
                info = witness;
            }
            used = usedLength(info);
        }
        long limit = occupancyLimitOf(used);
        long current = occupancyLimit;
        while (current < limit) {
            long witness = (long) OCCUPANCY_LIMIT.compareAndExchange(this, current, limit);
            if (witness == current) {
                break;
            }
            current = witness;
        }
    }

    /** Whether the split creating home {@code home} has raised its source chain's shift. */
    private boolean headsPublished(long home) {
        int oldShift = 63 - Long.numberOfLeadingZeros(home);
        return shift(head(lowBits(home, oldShift))) > oldShift;
    }

    /**
     * Splits the chain at {@code zeroHome} (shift {@code oldShift}) into itself and
     * {@code oneHome}, by the key bit {@code oldShift}, under both chains' locks.
     *
     * <p>First the "big step": the one-chain's head is pointed at its first entry, then the
     * zero-chain's head at its own first entry, both with the new shift. From then on each half
     * starts with links of the new shift up to a <em>frontier</em>, and continues with old links
     * through the rest of the old chain, which both halves share and which still ends at the old
     * end. Then the frontiers advance in turns until the old chain is used up: the earlier one is
     * first advanced to just before the later one (links raised to the new shift, all over
     * entries of its own half), then it skips the run of the other half's entries that follows,
     * to its own next entry, which makes the other frontier the earlier one.
     */
    private void split(long oneHome, long zeroHome, int oldShift) {
        int newShift = oldShift + 1;
        long bit = 1L << oldShift;
        long word = lock(zeroHome);
        // Entries on a locked chain cannot be unlinked or freed: their keys are stable.
        long zeroFrontier = -1;
        long oneFrontier = -1;
        long current = -1; // the later frontier, where the scan stopped
        while (!isEnd(word)) {
            current = index(word);
            boolean one = (key1(current << SLOT_SHIFT) & bit) != 0;
            if (one && oneFrontier < 0) {
                oneFrontier = current;
            } else if (!one && zeroFrontier < 0) {
                zeroFrontier = current;
            }
            if (oneFrontier >= 0 && zeroFrontier >= 0) {
                break;
            }
            word = next(current << SLOT_SHIFT);
        }
        // Big step. The one-head goes first: nobody reads it until the zero-head has the new
        // shift. Both stay locked until the split is done.
        setHead(oneHome, LOCKED | (oneFrontier >= 0
                ? ChainPointer.to(oneFrontier, newShift) : ChainPointer.end(oneHome, newShift)));
        setHead(zeroHome, LOCKED | (zeroFrontier >= 0
                ? ChainPointer.to(zeroFrontier, newShift) : ChainPointer.end(zeroHome, newShift)));
        if (zeroFrontier >= 0 && oneFrontier >= 0) {
            splitShared(zeroHome, oneHome, zeroFrontier, oneFrontier, current, oldShift);
        } else if (zeroFrontier >= 0) {
            upgradeLinks(zeroFrontier, ChainPointer.end(zeroHome, newShift));
        } else if (oneFrontier >= 0) {
            upgradeLinks(oneFrontier, ChainPointer.end(oneHome, newShift));
        }
        unlock(oneHome);
        unlock(zeroHome);
    }

    /** The frontier-advancing part of {@link #split}, when both halves have entries. */
    private void splitShared(long zeroHome, long oneHome, long zeroFrontier, long oneFrontier,
                             long later, int oldShift) {
        int newShift = oldShift + 1;
        long bit = 1L << oldShift;
        // first = the frontier earlier in the old chain; the later one is 'later'.
        boolean firstIsOne = later == zeroFrontier;
        long first = firstIsOne ? oneFrontier : zeroFrontier;
        // Strengthen: advance the first frontier to just before the later one.
        first = upgradeLinks(first, ChainPointer.to(later, oldShift));
        long second = later;
        long current = later;
        for (;;) {
            long word = next(current << SLOT_SHIFT);
            if (isEnd(word)) {
                setNext(first << SLOT_SHIFT, ChainPointer.end(firstIsOne ? oneHome : zeroHome,
                        newShift));
                upgradeLinks(second, ChainPointer.end(firstIsOne ? zeroHome : oneHome, newShift));
                return;
            }
            current = index(word);
            boolean one = (key1(current << SLOT_SHIFT) & bit) != 0;
            if (one == firstIsOne) {
                // Skip the first half over the other half's run, then bring the other half's
                // links up to the entry before 'current'.
                setNext(first << SLOT_SHIFT, ChainPointer.to(current, newShift));
                long newFirst = upgradeLinks(second, word);
                second = current;
                first = newFirst;
                firstIsOne = !firstIsOne;
            }
        }
    }

    /**
     * Raises the shift of the links from {@code frontier} on, stopping at the entry whose link is
     * {@code stopBefore}, or, when {@code stopBefore} is an end, at the old end, which is replaced
     * by it.
     *
     * @return the entry where it stopped (its link unchanged), or -1 after replacing the end
     */
    private long upgradeLinks(long frontier, long stopBefore) {
        for (;;) {
            long slot = frontier << SLOT_SHIFT;
            long word = next(slot);
            if (word == stopBefore) {
                return frontier;
            }
            if (isEnd(word)) {
                setNext(slot, stopBefore);
                return -1;
            }
            setNext(slot, ChainPointer.upgraded(word));
            frontier = index(word);
        }
    }

    // ---------------------------------------------------------------- removal and eviction

    @Override
    public boolean erase(long h0, long h1) {
        boolean found = false;
        // A key can be on a chain twice after racing inserts: erase until none is left.
        while (walk(h0, h1, true) != FoundEntry.NONE) {
            found = true;
        }
        return found;
    }

    @Override
    void removeOwned(long slot) {
        purge(key1(slot));
        freeValueAndMarkEmpty(slot);
    }

    /**
     * Unlinks every entry of the chain {@code h1} belongs to that is being removed (not
     * shareable), so that an entry its owner took for removal is off the chain on return.
     */
    private void purge(long h1) {
        long homeAndShift = homeAndShift((long) LENGTH_INFO.getAcquire(this), h1);
        long home = homeAndShift >>> 8;
        int homeShift = (int) (homeAndShift & 0xFF);
        for (;;) {
            long word = lock(home);
            if (shift(word) > homeShift) {
                // Split since we read the length: the entry is on our key's half.
                unlock(home);
                homeShift++;
                home = lowBits(h1, homeShift);
                continue;
            }
            if (!isEnd(word)) {
                unlinkLocked(home, word);
            }
            unlock(home);
            return;
        }
    }

    /**
     * Walks a locked chain and unlinks its entries that are not shareable: those being removed,
     * by us or by others (an owner marks its slot empty only after its own purge).
     */
    private void unlinkLocked(long home, long headWord) {
        long keptBefore = -1; // the last kept entry (-1: the head)
        boolean pending = false; // entries to unlink since keptBefore
        long word = headWord & ~LOCKED;
        for (;;) {
            long slot = isEnd(word) ? -1 : index(word) << SLOT_SHIFT;
            if (slot >= 0 && !isShareable(metaOpaque(slot))) {
                pending = true;
            } else {
                if (pending) {
                    // Point the last kept link at this entry (or the end), over the removed run.
                    if (keptBefore < 0) {
                        setHead(home, word | LOCKED);
                    } else {
                        setNext(keptBefore, word);
                    }
                    pending = false;
                }
                keptBefore = slot;
            }
            if (slot < 0) {
                return;
            }
            word = next(slot);
        }
    }

    @Override
    void evict(long requested, EvictionData data) {
        long info = (long) LENGTH_INFO.getAcquire(this);
        long used = usedLength(info);
        // Sweep homes below 2^minShift and their split halves together, so the clock's order
        // stays put as the table grows.
        long major = 1L << (info & 0xFF);
        long mask = major - 1;
        long pointer = advanceClock(CLOCK_STEP);
        long maxPointer = pointer + (MAX_COUNTDOWN + 1) * major;
        for (;;) {
            for (long base = pointer & mask; base < used; base += major) {
                for (long home = base; home < base + CLOCK_STEP && home < used; home++) {
                    clockUpdateChain(home, data);
                }
            }
            finishEvictions(data);
            if (data.freedCharge >= requested || pointer + CLOCK_STEP >= maxPointer) {
                return;
            }
            if (isEvictionEffortExceeded(data)) {
                memory.stats.evictionEffortExceeded.increment();
                return;
            }
            pointer = advanceClock(CLOCK_STEP);
        }
    }

    /**
     * The clock step on every entry of a home's chain, walked without the lock: the clock update
     * is a CAS on each entry's meta word, like the fixed table's, and needs no stable chain. Most
     * visited entries are only counted down, so locking each chain would cost two atomic writes
     * per home for nothing. A walk that strays onto another chain (its entry was just unlinked
     * and reused) merely updates that chain's entries; entries taken for eviction are unlinked
     * from whatever chain they are on by {@link #finishEvictions}.
     */
    private void clockUpdateChain(long home, EvictionData data) {
        long word = head(home);
        for (long hops = 0; !isEnd(word) && hops <= slotCount; hops++) {
            long slot = index(word) << SLOT_SHIFT;
            if (clockUpdate(slot, data)) {
                data.addOwned(slot);
            }
            // Safe to follow even for an entry we now own: its link is intact until unlinked.
            word = next(slot);
        }
    }

    /** Unlinks (under its chain's lock) and frees each entry the sweep took. */
    private void finishEvictions(EvictionData data) {
        for (int i = 0; i < data.ownedCount; i++) {
            removeOwned(data.owned[i]);
            memory.stats.evictions.increment();
        }
        data.ownedCount = 0;
    }

    // ---------------------------------------------------------------- diagnostics

    /** What {@link #scanChains} found. */
    public static final class ChainScan {
        public long homes;
        public long nonEmptyHeads;
        public long entries;
        public long entriesAtHome;
        public long maxChainLength;
    }

    /**
     * Walks every chain once (opaque reads, no locks) and counts non-empty heads, entries on
     * chains, entries stored in their own home slot and the longest chain. Racing writers make
     * it approximate; a walk is cut off at the table size in case it meets a cycle.
     */
    public ChainScan scanChains() {
        ChainScan scan = new ChainScan();
        long used = homes();
        scan.homes = used;
        for (long home = 0; home < used; home++) {
            long word = head(home);
            if (isEnd(word) || word == ChainPointer.UNUSED) {
                continue;
            }
            scan.nonEmptyHeads++;
            long length = 0;
            while (!isEnd(word) && length <= used) {
                long index = index(word);
                length++;
                if (index == home) {
                    scan.entriesAtHome++;
                }
                word = next(index << SLOT_SHIFT);
            }
            scan.entries += length;
            scan.maxChainLength = Math.max(scan.maxChainLength, length);
        }
        return scan;
    }
}
