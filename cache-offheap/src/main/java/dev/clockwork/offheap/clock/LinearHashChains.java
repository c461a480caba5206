package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ChainPointer.LOCKED;
import static dev.clockwork.offheap.clock.ChainPointer.index;
import static dev.clockwork.offheap.clock.ChainPointer.isEnd;
import static dev.clockwork.offheap.clock.ChainPointer.isLocked;
import static dev.clockwork.offheap.clock.ChainPointer.shift;
import static dev.clockwork.offheap.clock.SlotLayout.LONG;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_SHIFT;
import static dev.clockwork.offheap.clock.SlotLayout.key1;

import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.events.CacheEvents;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

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
 * (shift s+1). Occupancy is kept at most {@link AutoClockTable#MAX_LOAD_FACTOR} of the used
 * homes, so chains average well under one entry.
 *
 * <p><b>Who may change a chain.</b> Inserts link at the head with one CAS, and only on an unlocked
 * head. Anything that removes entries or rewrites links (erase, eviction, a split) first sets the
 * head's lock bit; while it is set no other thread changes that chain's links, and entries on it
 * cannot be freed, so their keys can be read without a reference. Waiting for a lock is the only
 * waiting in the table, and every wait is counted ({@code yields} in the cache's stats).
 *
 * <p>This class is the structure (homes, chain words and their locks, growth by splitting),
 * part of an {@link AutoClockTable}, which runs the clock's operations on it. It writes only the
 * index's words of a slot (head and next, see {@link SlotLayout}), and reads an entry's key only
 * while its chain is locked.
 */
final class LinearHashChains {
    /** Spins before a waiting thread starts yielding its core. */
    static final int SPINS = 64;

    private static final VarHandle LENGTH_INFO;
    private static final VarHandle OCCUPANCY_LIMIT;

    static {
        try {
            var lookup = MethodHandles.lookup();
            LENGTH_INFO = lookup.findVarHandle(LinearHashChains.class, "lengthInfo", long.class)
                    .withInvokeExactBehavior();
            OCCUPANCY_LIMIT = lookup.findVarHandle(LinearHashChains.class, "occupancyLimit",
                    long.class).withInvokeExactBehavior();
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The table's slots (see {@link ClockProtocol#slots}). */
    private final MemorySegment slots;
    private final long slotCount;
    private final CacheContext context;
    private final int shardIndex;
    /** Charged for each home published, if slots are charged; read for the growth event. */
    private final ClockShard shard;
    /** Low 8 bits: the minimum shift s; the rest: the threshold t. Used homes = 2^s + t. */
    volatile long lengthInfo;
    volatile long occupancyLimit;
    /** Next home to create; runs ahead of {@link #lengthInfo} while splits are in progress. */
    final AtomicLong growFrontier;

    /**
     * @param startHomes homes to begin with (their heads are set to empty chains); the shard
     *     charges their slots once the table is made
     */
    LinearHashChains(MemorySegment slots, long slotCount, long startHomes, CacheContext context,
                     int shardIndex, ClockShard shard) {
        this.slots = slots;
        this.slotCount = slotCount;
        this.context = context;
        this.shardIndex = shardIndex;
        this.shard = shard;
        int shift = 63 - Long.numberOfLeadingZeros(startHomes);
        for (long home = 0; home < startHomes; home++) {
            setHead(home, ChainPointer.end(home, shift));
        }
        this.lengthInfo = lengthInfoOf(startHomes);
        this.occupancyLimit = occupancyLimitOf(startHomes);
        this.growFrontier = new AtomicLong(startHomes);
    }

    static long lengthInfoOf(long used) {
        int shift = 63 - Long.numberOfLeadingZeros(used);
        return ((used - (1L << shift)) << 8) | shift;
    }

    static long usedLength(long info) {
        return (1L << (info & 0xFF)) + (info >>> 8);
    }

    static long occupancyLimitOf(long used) {
        return (long) Math.ceil(used * AutoClockTable.MAX_LOAD_FACTOR);
    }

    static long lowBits(long value, int bits) {
        return value & ((1L << bits) - 1);
    }

    /** A key's home and its shift under {@code info}, packed as {@code home << 8 | shift}. */
    static long homeAndShift(long info, long h1) {
        int minShift = (int) (info & 0xFF);
        long home = lowBits(h1, minShift);
        if (home < (info >>> 8)) {
            return (lowBits(h1, minShift + 1) << 8) | (minShift + 1);
        }
        return (home << 8) | minShift;
    }

    /** The published length, for a lookup: any recent value will do, a walk checks shifts. */
    final long lengthInfoOpaque() {
        return (long) LENGTH_INFO.getOpaque(this);
    }

    /** The published length, and the heads its splits published before it. */
    final long lengthInfoAcquire() {
        return (long) LENGTH_INFO.getAcquire(this);
    }

    long occupancyLimit() {
        return occupancyLimit;
    }

    /**
     * Slots that may hold entries: every home created or being created. An entry's slot need not
     * be a published home (only its chain's head must be), so inserts may use the slots of splits
     * still in progress; that keeps them from crowding the published prefix while an earlier
     * split holds back the published length.
     */
    long slotBound() {
        return Math.min(growFrontier.get(), slotCount);
    }

    /** Homes in the published length: what lookups and eviction use. */
    long homes() {
        return usedLength(lengthInfo);
    }

    // ---------------------------------------------------------------- chain words

    /**
     * Chain words are read with acquire: an entry's fields were written before the link that
     * leads to it was published (by the inserter's CAS, or by a split that read them under lock),
     * so a reader that follows the link sees them.
     */
    long head(long home) {
        return headAcquire(slots, home);
    }

    /**
     * {@link #head} on the caller's own view of the slots: a lookup's walk reads the chain words
     * through the table's {@code slots}, the segment it reads the keys through, so that the
     * compiled walk loads one segment (and checks it once), not a second one from this object
     * after every acquire.
     */
    static long headAcquire(MemorySegment slots, long home) {
        return (long) LONG.getAcquire(slots, SlotLayout.headOffset(home << SLOT_SHIFT));
    }

    /** {@link #next} on the caller's own view of the slots (see {@link #headAcquire}). */
    static long nextAcquire(MemorySegment slots, long slot) {
        return (long) LONG.getAcquire(slots, SlotLayout.nextOffset(slot));
    }

    void setHead(long home, long word) {
        LONG.setRelease(slots, SlotLayout.headOffset(home << SLOT_SHIFT), word);
    }

    long compareAndExchangeHead(long home, long expected, long word) {
        return (long) LONG.compareAndExchange(slots, SlotLayout.headOffset(home << SLOT_SHIFT),
                expected, word);
    }

    long next(long slot) {
        return nextAcquire(slots, slot);
    }

    void setNext(long slot, long word) {
        LONG.setRelease(slots, SlotLayout.nextOffset(slot), word);
    }

    /** Locks a chain, waiting (and counting the wait) while another thread holds it. */
    long lock(long home) {
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
                context.stats.yields.increment();
            }
            pause(spins);
            word = head(home);
        }
    }

    /** Unlocks a chain locked by this thread; nobody else writes a locked head, so a store does. */
    void unlock(long home) {
        setHead(home, head(home) & ~LOCKED);
    }

    static void pause(int spins) {
        if (spins < SPINS) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    // ---------------------------------------------------------------- growth

    /** Returns whether the table can hold {@code newOccupancy} entries, growing as needed. */
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

    /**
     * Adds one home by splitting the chain it comes from. Splits run in parallel; one waits only
     * for the split that created its source chain, which is a table size back.
     *
     * @return the new home, or -1 if the reservation is full
     */
    long grow() {
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
                context.stats.yields.increment();
            }
            pause(spins);
        }
        split(growHome, oldHome, oldShift);
        catchUpLengthInfo(growHome);
        if (CacheEvents.endsGrowthBatch(growHome, slotCount)) {
            context.events.tableGrowth(shardIndex, CacheEvents.growthBatchStart(growHome),
                    growHome + 1, slotCount, shard.occupancy());
        }
        return growHome;
    }

    /**
     * Publishes a longer used length as far as splits allow, without waiting: home {@code h}
     * may be counted once the split creating it has published both heads (its "big step"). Goes
     * past {@code readyHome} when later splits are ready too, so that a split finishing after a
     * later one is not left unpublished.
     */
    void catchUpLengthInfo(long readyHome) {
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
                shard.chargeSlots(1);
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
    boolean headsPublished(long home) {
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
    void split(long oneHome, long zeroHome, int oldShift) {
        int newShift = oldShift + 1;
        long bit = 1L << oldShift;
        long word = lock(zeroHome);
        // Entries on a locked chain cannot be unlinked or freed: their keys are stable.
        long zeroFrontier = -1;
        long oneFrontier = -1;
        long current = -1; // the later frontier, where the scan stopped
        while (!isEnd(word)) {
            current = index(word);
            boolean one = (key1(slots, current << SLOT_SHIFT) & bit) != 0;
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
    void splitShared(long zeroHome, long oneHome, long zeroFrontier, long oneFrontier,
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
            boolean one = (key1(slots, current << SLOT_SHIFT) & bit) != 0;
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
    long upgradeLinks(long frontier, long stopBefore) {
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

    // ---------------------------------------------------------------- diagnostics

    /**
     * Walks every chain once (opaque reads, no locks) and counts non-empty heads, entries on
     * chains, entries stored in their own home slot and the longest chain. Racing writers make
     * it approximate; a walk is cut off at the table size in case it meets a cycle.
     */
    AutoClockTable.ChainScan scanChains() {
        AutoClockTable.ChainScan scan = new AutoClockTable.ChainScan();
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
