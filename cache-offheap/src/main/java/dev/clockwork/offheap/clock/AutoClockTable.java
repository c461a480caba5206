package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ChainPointer.LOCKED;
import static dev.clockwork.offheap.clock.ChainPointer.index;
import static dev.clockwork.offheap.clock.ChainPointer.isEnd;
import static dev.clockwork.offheap.clock.ChainPointer.isLocked;
import static dev.clockwork.offheap.clock.ChainPointer.shift;
import static dev.clockwork.offheap.clock.ClockMeta.MAX_COUNTDOWN;
import static dev.clockwork.offheap.clock.ClockMeta.isShareable;
import static dev.clockwork.offheap.clock.LinearHashChains.headAcquire;
import static dev.clockwork.offheap.clock.LinearHashChains.homeAndShift;
import static dev.clockwork.offheap.clock.LinearHashChains.lowBits;
import static dev.clockwork.offheap.clock.LinearHashChains.nextAcquire;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_BYTES;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_SHIFT;
import static dev.clockwork.offheap.clock.SlotLayout.key0;
import static dev.clockwork.offheap.clock.SlotLayout.key1;

import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.memory.NativeAllocator;

/**
 * The growing HyperClock index: the clock's lookup, insert, erase and eviction over its
 * {@link LinearHashChains}, which keeps the chains and grows them. Index work only: every change
 * of an entry is {@link ClockProtocol}'s, which calls {@link #unlink} to take a freed entry off
 * its chain.
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
 * A split ({@link LinearHashChains#split}) moves entries between the two halves only by pointing
 * a link further along the old order, over entries of the other half, and only ever raises
 * shifts; so whichever of its intermediate states a lookup walks through, it passes every entry
 * of its half that was there when it started, or notices a shift it did not expect. (This is the
 * scheme of RocksDB's AutoHyperClockTable, with inserts waiting for rewrite locks instead of
 * racing them, and lookups restarting instead of keeping a referenced entry to resume from.)
 *
 * <p><b>Eviction</b> sweeps homes, not slots: for each home it runs the clock step on each
 * entry of its chain (no lock: the step is a CAS per entry), then unlinks the entries it took,
 * each under its chain's lock, and frees them.
 */
public final class AutoClockTable extends ClockProtocol {
    /** Most entries per used home; sizing the reservation assumes the same. */
    public static final double MAX_LOAD_FACTOR = 0.6;
    /** Smallest average entry charge the reservation is sized for (RocksDB's default). */
    public static final long DEFAULT_MIN_AVG_ENTRY_CHARGE = 450;
    /**
     * Most address space the tables of one cache reserve together: 128 GiB, 2^31 slots, all that
     * handles can name ({@link EntryStamp#LOCATION_BITS}). Room for about 1.3 billion
     * entries, a capacity of about 670 GiB at the default minimum average charge, while an
     * "unbounded" cache ({@code capacity(Long.MAX_VALUE)}) maps 128 GiB rather than tens of TiB;
     * beyond it the table stops growing and inserts evict to free slots.
     */
    public static final long MAX_RESERVATION_BYTES = SLOT_BYTES << EntryStamp.LOCATION_BITS;
    private static final long PAGE_BYTES = 4096;
    /** Homes an eviction thread claims from the shared clock pointer at a time. */
    private static final int CLOCK_STEP = 4;
    /** Slots after the home tried one by one before spreading out. */
    private static final int LINEAR_PROBES = 4;
    /** {@link #claimSlot} results that are not a slot offset. */
    private static final long DUPLICATE = -2;
    private static final long NO_FREE_SLOT = -3;
    private static final int CLOCK_POINTER = PaddedCounters.index(0);

    /** The chains: homes, their words and locks, and growth. */
    final LinearHashChains chains;
    /** Where the next eviction sweep starts; advanced in steps by concurrent evictors. */
    private final long[] clockPointer = PaddedCounters.allocate(1);

    AutoClockTable(long maxSlots, ClockShardContext context, ClockShard shard) {
        super(NativeAllocator.reserve(maxSlots * SLOT_BYTES), maxSlots, context, shard);
        this.chains = new LinearHashChains(slots, maxSlots, startingLength(context.capacity()),
                this.context, shardIndex, shard);
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
        return Math.min(ClockShard.maxSlotsPerShard(shardBits), share);
    }

    /** One page of slots, or a few for tiny capacities (tests). */
    static long startingLength(long capacity) {
        return capacity > PAGE_BYTES ? PAGE_BYTES / SLOT_BYTES : 4;
    }

    /** Used homes as a packed length ({@link #usedLength} of it is their number). */
    public long lengthInfo() {
        return chains.lengthInfo;
    }

    /** The number of used homes a packed length stands for. */
    public static long usedLength(long info) {
        return LinearHashChains.usedLength(info);
    }

    /** Homes in the published length: what lookups and eviction use. */
    public long homes() {
        return chains.homes();
    }

    /** Waits counted by every shard of this table's cache. */
    public long yieldCount() {
        return context.stats.yields.sum();
    }

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
     * it approximate.
     */
    public ChainScan scanChains() {
        return chains.scanChains();
    }

    /**
     * Slots that may hold entries: every home created or being created (see
     * {@link LinearHashChains#slotBound}).
     */
    @Override
    public long usedSlots() {
        return chains.slotBound();
    }

    @Override
    public long occupancyLimit() {
        return chains.occupancyLimit();
    }

    @Override
    boolean growIfNeeded(long newOccupancy) {
        return chains.growIfNeeded(newOccupancy);
    }

    @Override
    void releaseTableMemory() {
        NativeAllocator.unreserve(rawAddress, slotCount * SLOT_BYTES);
    }

    // ---------------------------------------------------------------- lookup

    // What a walk does at the first visible entry of its key.
    /** Takes a reference (a lookup). */
    private static final int REFERENCE = 0;
    /** Erases it without a reference. */
    private static final int ERASE = 1;
    /** Only reports it, validated by its stamp (a read without a reference). */
    private static final int FIND = 2;

    @Override
    public long lookup(long h0, long h1) {
        return walk(h0, h1, REFERENCE);
    }

    /** The walk reads only, as a lookup's does, until the key's entry: then {@link #stampIfKey}. */
    @Override
    public long findUnreferenced(long h0, long h1) {
        return walk(h0, h1, FIND);
    }

    /**
     * Walks the key's chain to the first visible entry of the key: referenced, for a lookup
     * ({@link FoundEntry} of it); erased without a reference, for an erase (any non-negative
     * number; see {@link #eraseIfKey}); or found without a reference ({@link FoundEntry} of it,
     * see {@link #stampIfKey}). {@link FoundEntry#NONE} if there is none.
     */
    private long walk(long h0, long h1, int mode) {
        // A stale length is fine: heads carry their shift, and the walk catches up from there.
        long homeAndShift = homeAndShift(chains.lengthInfoOpaque(), h1);
        long home = homeAndShift >>> 8;
        int homeShift = (int) (homeAndShift & 0xFF);
        long word = headAcquire(slots, home);
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
                    word = headAcquire(slots, home);
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
            long key1 = key1(slots, slot);
            if (key1 == h1 && key0(slots, slot) == h0) {
                long found = atKey(slot, h0, h1, mode);
                if (found != FoundEntry.NONE) {
                    return found;
                }
            }
            if (lowBits(key1, shift) != effectiveHome || ++hops > slotCount) {
                // Wandered onto another chain, or round a cycle made by concurrent reuse.
                word = restart(home);
                atHead = true;
                hops = 0;
                continue;
            }
            word = nextAcquire(slots, slot);
            atHead = false;
        }
    }

    /**
     * What the walk does at an entry of its key, by {@code mode}: the walk's result, or
     * {@link FoundEntry#NONE} to walk on. Apart from {@link #walk} to keep that under the JIT's
     * inlining limit for hot methods (325 bytes of bytecode): over it, every lookup pays a call.
     */
    private long atKey(long slot, long h0, long h1, int mode) {
        if (mode == ERASE) {
            return eraseIfKey(slot, h0, h1) ? slot : FoundEntry.NONE;
        }
        int stamp = mode == REFERENCE ? tryReference(slot, h0, h1) : stampIfKey(slot, h0, h1);
        return stamp != 0 ? FoundEntry.of(slot, stamp) : FoundEntry.NONE;
    }

        private long restart(long home) {
        context.stats.lookupRestarts.increment();
        return chains.head(home);
    }

    // ---------------------------------------------------------------- insert

    @Override
    long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                  long countdown, boolean keepRef) {
        long info = chains.lengthInfoAcquire();
        long homeAndShift = homeAndShift(info, h1);
        long bound = chains.slotBound();
        long claimed = claimSlot(homeAndShift >>> 8, bound, h0, h1, valueAddress, valueLength,
                charge, countdown, keepRef);
        while (claimed == NO_FREE_SLOT && chains.slotBound() > bound) {
            // Entries never move, so the oldest slots fill first: a bound read just before the
            // table grew can leave us searching a full prefix. Search the grown table.
            bound = chains.slotBound();
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
            long word = chains.head(home);
            int shift = shift(word);
            assert shift >= homeShift : "a head's shift never decreases";
            if (shift > homeShift) {
                // Split since we read the length: move to our half, and help publish the length.
                homeShift++;
                long bit = 1L << (homeShift - 1);
                chains.catchUpLengthInfo(lowBits(h1, homeShift - 1) + bit);
                home = lowBits(h1, homeShift);
                continue;
            }
            if (isLocked(word)) {
                chains.lock(home); // waits for the rewrite, counted
                chains.unlock(home);
                continue;
            }
            chains.setNext(slot, word);
            long linked = ChainPointer.to(index, homeShift);
            if (chains.compareAndExchangeHead(home, word, linked) == word) {
                return;
            }
        }
    }

    /**
     * Claims a free slot below {@code used} and publishes the entry in it with one reference
     * (the caller's if {@code keepRef}, else the insert's own until the entry is linked): the
     * home first, then a few neighbours, then jumps by a step taken from {@code h0}, so that keys
     * crowding one home fan out.
     *
     * @return {@link FoundEntry} of the slot and the entry's stamp, or {@link #DUPLICATE} if the
     *     key was met on the way, or {@link #NO_FREE_SLOT}
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
            if (key0(slots, slot) == h0 && key1(slots, slot) == h1
                    && ClockMeta.isVisible(getMetaOpaque(slot))
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

    // ---------------------------------------------------------------- removal and eviction

    @Override
    public boolean erase(long h0, long h1) {
        boolean found = false;
        // A key can be on a chain twice after racing inserts: erase until none is left.
        while (walk(h0, h1, ERASE) != FoundEntry.NONE) {
            found = true;
        }
        return found;
    }

    /** Takes the entry off its chain (and any other entry there being removed). */
    @Override
    void unlink(long slot) {
        purge(key1(slots, slot));
    }

    /**
     * Unlinks every entry of the chain {@code h1} belongs to that is being removed (not
     * shareable), so that an entry its owner took for removal is off the chain on return.
     */
    private void purge(long h1) {
        long homeAndShift = homeAndShift(chains.lengthInfoAcquire(), h1);
        long home = homeAndShift >>> 8;
        int homeShift = (int) (homeAndShift & 0xFF);
        for (;;) {
            long word = chains.lock(home);
            if (shift(word) > homeShift) {
                // Split since we read the length: the entry is on our key's half.
                chains.unlock(home);
                homeShift++;
                home = lowBits(h1, homeShift);
                continue;
            }
            if (!isEnd(word)) {
                unlinkLocked(home, word);
            }
            chains.unlock(home);
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
            if (slot >= 0 && !isShareable(getMetaOpaque(slot))) {
                pending = true;
            } else {
                if (pending) {
                    // Point the last kept link at this entry (or the end), over the removed run.
                    if (keptBefore < 0) {
                        chains.setHead(home, word | LOCKED);
                    } else {
                        chains.setNext(keptBefore, word);
                    }
                    pending = false;
                }
                keptBefore = slot;
            }
            if (slot < 0) {
                return;
            }
            word = chains.next(slot);
        }
    }

    @Override
    void evict(long requested, EvictionData data) {
        long info = chains.lengthInfoAcquire();
        long used = LinearHashChains.usedLength(info);
        // Sweep homes below 2^minShift and their split halves together, so the clock's order
        // stays put as the table grows.
        long major = 1L << (info & 0xFF);
        long mask = major - 1;
        long pointer = PaddedCounters.getAndAdd(clockPointer, CLOCK_POINTER, CLOCK_STEP);
        long maxPointer = pointer + (MAX_COUNTDOWN + 1) * major;
        for (;;) {
            for (long base = pointer & mask; base < used; base += major) {
                for (long home = base; home < base + CLOCK_STEP && home < used; home++) {
                    clockUpdateChain(home, data);
                }
            }
            finishEvictions(data);
            if (data.freedCharge >= requested || pointer + CLOCK_STEP >= maxPointer
                    || data.rejected) {
                return;
            }
            if (data.giveUpOnEffort()) {
                return;
            }
            pointer = PaddedCounters.getAndAdd(clockPointer, CLOCK_POINTER, CLOCK_STEP);
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
        long word = chains.head(home);
        for (long hops = 0; !isEnd(word) && hops <= slotCount; hops++) {
            long slot = index(word) << SLOT_SHIFT;
            if (clockUpdate(slot, data)) {
                data.addOwned(slot);
            }
            // Safe to follow even for an entry we now own: its link is intact until unlinked.
            word = chains.next(slot);
        }
    }

    /** Unlinks (under its chain's lock) and frees each entry the sweep took. */
    private void finishEvictions(EvictionData data) {
        for (int i = 0; i < data.ownedCount; i++) {
            evictOwned(data.owned[i]);
        }
        data.ownedCount = 0;
    }
}
