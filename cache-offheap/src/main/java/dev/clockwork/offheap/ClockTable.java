package dev.clockwork.offheap;

import static dev.clockwork.offheap.ClockMeta.ACQUIRE_ONE;
import static dev.clockwork.offheap.ClockMeta.COUNTER_TOP_BITS;
import static dev.clockwork.offheap.ClockMeta.MAX_COUNTDOWN;
import static dev.clockwork.offheap.ClockMeta.OCCUPIED;
import static dev.clockwork.offheap.ClockMeta.OVERFLOW_THRESHOLD;
import static dev.clockwork.offheap.ClockMeta.RELEASE_ONE;
import static dev.clockwork.offheap.ClockMeta.UNDER_CONSTRUCTION;
import static dev.clockwork.offheap.ClockMeta.acquireCount;
import static dev.clockwork.offheap.ClockMeta.isEmpty;
import static dev.clockwork.offheap.ClockMeta.isInvisible;
import static dev.clockwork.offheap.ClockMeta.isShareable;
import static dev.clockwork.offheap.ClockMeta.isVisible;
import static dev.clockwork.offheap.ClockMeta.refCount;
import static dev.clockwork.offheap.ClockMeta.releaseCount;
import static dev.clockwork.offheap.SlotLayout.SLOT_BYTES;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One shard of a HyperClock cache: the per-entry clock protocol (see {@link ClockMeta}) and the
 * shard's capacity accounting, shared by every table layout. A subclass supplies the index: how a
 * key finds its slot, how an insert claims one, and the eviction sweep's order.
 *
 * <p>Slots are addressed by their byte offset in {@link #slots}. All accesses go through segments
 * scoped to the cache's shared arena, so a call racing with {@code close()} fails with an
 * exception instead of touching freed memory.
 */
abstract class ClockTable extends PaddedCounters {
    /** {@code (MemorySegment, long offset)} handles, exact so that a wrong type throws, not boxes. */
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();

    /** Results of {@link #insert} that are not a slot offset. */
    static final long INSERT_DROPPED = -1;   // not stored, nothing charged: free the value
    static final long INSERT_REFUSED = -2;   // refused by a limit, nothing charged: free the value
    static final long INSERT_STANDALONE = -3; // usage charged: make a standalone entry

    /** Returned by lookups that find nothing. */
    static final long NOT_FOUND = -1;

    /** Most slots a table may have, whatever the shard count: a handle's slot index is 32 bits. */
    static final long MAX_SLOTS = 1L << 32;

    /**
     * Most slots a table may have when there are {@code 2^shardBits} shards: a handle names a
     * slot and its shard in {@link CacheOptions#MAX_LOCATION_BITS} bits, the slot in at most 32.
     */
    static long maxSlotsPerShard(int shardBits) {
        return Math.min(MAX_SLOTS, CacheOptions.maxLocationsPerShard(shardBits));
    }

    /** Thread-confined scratch for one eviction run, so eviction allocates nothing. */
    static final class EvictionData {
        long freedCharge;
        long freedCount;
        long seenPinned;
        /** Slots taken for eviction whose freeing is deferred (Auto: until a chain is unlocked). */
        long[] owned = new long[16];
        int ownedCount;

        EvictionData reset() {
            freedCharge = 0;
            freedCount = 0;
            seenPinned = 0;
            ownedCount = 0;
            return this;
        }

        void addOwned(long slot) {
            if (ownedCount == owned.length) {
                owned = java.util.Arrays.copyOf(owned, ownedCount * 2); // grows once, then reused
            }
            owned[ownedCount++] = slot;
        }
    }

    private static final ThreadLocal<EvictionData> EVICTION_DATA =
            ThreadLocal.withInitial(EvictionData::new);

    final MemorySegment slots;
    /** Slots the table's memory can hold; handles are bounds-checked against it. */
    final long slotCount;
    final int shardIndex;
    final CacheMemory memory;
    final long rawAddress;
    private final long metadataChargePerSlot;

    private volatile long capacity;
    /**
     * Most the shard's usage may reach: its share of {@link CacheOptions#MAX_USAGE}. An insert
     * that would pass it is refused (see {@link #insert}); capacity never exceeds it.
     */
    private final long usageLimit;
    private volatile boolean strict;
    private final int evictionEffortCap;
    /** Charge of this shard's standalone entries (part of {@link #usage()}); kept by the cache. */
    final AtomicLong standaloneUsage = new AtomicLong();

    /**
     * @param rawAddress zeroed memory for {@code slotCount} slots, 64-byte aligned, owned by the
     *     table from now on (see {@link #releaseTableMemory})
     * @param capacity at most {@code usageLimit}
     * @param usageLimit the shard's share of {@link CacheOptions#MAX_USAGE}
     */
    ClockTable(long rawAddress, long slotCount, int shardIndex, long capacity, long usageLimit,
               boolean strict, int evictionEffortCap, boolean chargeMetadata,
               CacheMemory memory) {
        this.rawAddress = rawAddress;
        this.slotCount = slotCount;
        this.shardIndex = shardIndex;
        this.memory = memory;
        this.slots = MemorySegment.ofAddress(rawAddress).reinterpret(slotCount * SLOT_BYTES,
                memory.arena(), null);
        this.capacity = capacity;
        this.usageLimit = usageLimit;
        this.strict = strict;
        this.evictionEffortCap = evictionEffortCap;
        this.metadataChargePerSlot = chargeMetadata ? SLOT_BYTES : 0;
    }

    /** Adds the metadata charge of {@code count} slots put to use (nothing if not charged). */
    final void chargeSlots(long count) {
        if (metadataChargePerSlot != 0) {
            addUsage(count * metadataChargePerSlot);
        }
    }

    // ---------------------------------------------------------------- meta word access

    final long getAndAddMeta(long slot, long delta) {
        return (long) LONG.getAndAdd(slots, slot, delta);
    }

    /** An undo or a release: only needs to order this thread's earlier reads before it. */
    final long getAndAddMetaRelease(long slot, long delta) {
        return (long) LONG.getAndAddRelease(slots, slot, delta);
    }

    final long metaOpaque(long slot) {
        return (long) LONG.getOpaque(slots, slot);
    }

    final long compareAndExchangeMeta(long slot, long expected, long update) {
        return (long) LONG.compareAndExchange(slots, slot, expected, update);
    }

    /** Publishes a slot's fields, written plainly before, with its new meta word. */
    final void publishMeta(long slot, long meta) {
        LONG.setRelease(slots, slot, meta);
    }

    final long key0(long slot) {
        return (long) LONG.get(slots, SlotLayout.key0Offset(slot));
    }

    final long key1(long slot) {
        return (long) LONG.get(slots, SlotLayout.key1Offset(slot));
    }

    final long charge(long slot) {
        return (long) LONG.get(slots, SlotLayout.chargeOffset(slot));
    }

    final long valueAddress(long slot) {
        return (long) LONG.get(slots, SlotLayout.valueAddressOffset(slot));
    }

    final int valueLength(long slot) {
        return (int) INT.get(slots, SlotLayout.valueLengthOffset(slot));
    }

    /**
     * The slot's flags word (generation). Plain: it is written only by the slot's owner while the
     * slot is under construction and published by the meta word's release store, so a reader
     * holding a reference sees it stable. Readers without one (a handle check racing a misuse,
     * the erasing release's generation check) use it only to refuse or stand down.
     */
    final int flags(long slot) {
        return (int) INT.get(slots, SlotLayout.flagsOffset(slot));
    }

    /**
     * Fills a claimed (under construction) slot with an entry and publishes it with {@code meta}
     * in one release store.
     *
     * <p>The value passes to the slot with the write of its address (see {@link SlotLayout}),
     * after its length, which close needs to free it. Inserts run inside the cache's
     * {@link CloseGate}, so close cannot stop this half way.
     */
    final void fillAndPublish(long slot, long h0, long h1, long valueAddress, int valueLength,
                              long charge, long meta) {
        INT.set(slots, SlotLayout.valueLengthOffset(slot), valueLength);
        LONG.set(slots, SlotLayout.valueAddressOffset(slot), valueAddress);
        LONG.set(slots, SlotLayout.key0Offset(slot), h0);
        LONG.set(slots, SlotLayout.key1Offset(slot), h1);
        LONG.set(slots, SlotLayout.chargeOffset(slot), charge);
        // Odd from now on: handles of this entry carry this generation.
        INT.set(slots, SlotLayout.flagsOffset(slot), SlotLayout.nextGeneration(flags(slot)));
        publishMeta(slot, meta);
    }

    // ---------------------------------------------------------------- per-entry protocol

    /** Pretends an internal reference (one or more) was never taken: no clock boost. */
    final void unref(long slot, long count) {
        getAndAddMetaRelease(slot, -count * ACQUIRE_ONE);
    }

    /**
     * Keeps a much-referenced entry's counters from overflowing: once the release counter passes
     * half its range, clear the top bit of both counters. That preserves the reference count and
     * the logical countdown (all values above {@link ClockMeta#MAX_COUNTDOWN} read the same), and
     * is idempotent, so a racing duplicate correction does no harm.
     */
    final void correctNearOverflow(long oldMeta, long slot) {
        if (releaseCount(oldMeta) > OVERFLOW_THRESHOLD) {
            long unused = (long) LONG.getAndBitwiseAndRelease(slots, slot, ~COUNTER_TOP_BITS);
        }
    }

    /** Takes one more reference on an entry the caller already holds. */
    final void ref(long slot) {
        long old = getAndAddMeta(slot, ACQUIRE_ONE);
        if (!isShareable(old) || refCount(old) == 0) {
            if (isShareable(old)) {
                unref(slot, 1);
            }
            throw new IllegalStateException("handle is not pinned (released already, or stale)");
        }
    }

    /**
     * Releases one reference. A "useful" release advances the release counter, which raises the
     * entry's clock; a non-useful one takes back the acquire as if the lookup never happened.
     * Frees the entry if this was its last reference and it was erased, or if asked to.
     *
     * @param generation the generation of the entry the caller's handle names (see
     *     {@link SlotLayout}): only that entry may be freed
     * @return whether this call freed the entry
     */
    final boolean release(long slot, boolean useful, boolean eraseIfLastRef, int generation) {
        long delta = useful ? RELEASE_ONE : -ACQUIRE_ONE;
        // Release mode: our reads of the value must happen before anyone who sees the count drop
        // frees it; the freeing thread's CAS (volatile) pairs with this.
        long old = getAndAddMetaRelease(slot, delta);
        if (!isShareable(old) || refCount(old) == 0) {
            // Not referenced: a double release or a stale handle. On a shareable slot undo our
            // change; on an empty or under-construction one the owner overwrites the whole word.
            if (isShareable(old)) {
                getAndAddMetaRelease(slot, -delta);
            }
            throw new IllegalStateException("handle is not pinned (released twice, or stale)");
        }
        if (!eraseIfLastRef && !isInvisible(old)) {
            correctNearOverflow(old, slot);
            return false;
        }
        return freeIfUnreferenced(slot, old, old + delta, generation);
    }

    /**
     * The second half of a release that may free the entry: frees it if no reference is left,
     * unless someone else took it over first. {@code old} is the word our release changed and
     * {@code current} the word it left.
     *
     * <p>RocksDB's FIXME in {@code FixedHyperClockTable::Release}: between our release and our
     * CAS another thread may free the entry and an unreferenced newcomer take the slot; a CAS
     * retried with the word it finds would then take and free the newcomer. Before every CAS we
     * check that the slot still holds our handle's generation and stand down if not. The check
     * is a hint, not a lock: if a newcomer whose word equals ours exactly is published between
     * that read and the CAS, the CAS still takes it, and it is freed as RocksDB frees it (a lost
     * entry, never a wrong one). Putting such a newcomer back is not an option: an erase meeting
     * the slot "under construction" meanwhile would have passed it by, and the newcomer would
     * survive an erase that came after its insert.
     */
    final boolean freeIfUnreferenced(long slot, long old, long current, int generation) {
        for (;;) {
            if (refCount(current) != 0) {
                correctNearOverflow(old, slot);
                return false;
            }
            if (!isShareable(current)) {
                return false; // someone else took ownership
            }
            if (SlotLayout.generation(flags(slot)) != generation) {
                return false; // our entry is gone; the slot holds a newcomer (the FIXME above)
            }
            long witness = compareAndExchangeMeta(slot, current, UNDER_CONSTRUCTION);
            if (witness == current) {
                break;
            }
            current = witness;
        }
        // Ours now. If close has begun, the gate refuses us and close frees the value
        // (freeAll: its address is still in the slot).
        int stripe = memory.gate.enter();
        try {
            long charge = charge(slot);
            removeOwned(slot);
            reclaim(charge);
        } finally {
            memory.gate.exit(stripe);
        }
        return true;
    }

    /** Takes a reference if the slot holds a visible entry of this key; undoes it otherwise. */
    final boolean tryReference(long slot, long h0, long h1) {
        long old = getAndAddMeta(slot, ACQUIRE_ONE);
        if (isVisible(old)) {
            if (key0(slot) == h0 && key1(slot) == h1) {
                return true;
            }
            unref(slot, 1);
        } else if (isInvisible(old)) {
            unref(slot, 1);
        }
        // Empty or under construction: the owner overwrites the word, stray increment and all.
        return false;
    }

    /**
     * Takes a reference on the slot's entry if it is visible, the way a lookup does but without
     * comparing a key: for {@code forEachEntry}. Returns the entry's generation (stable while the
     * reference is held; pass it to {@link #release} with {@code useful = false}), or -1 if the
     * slot holds no visible entry, in which case no reference is held.
     *
     * <p>A plain look comes first, as on a lookup's further probes: a scan meets many empty slots
     * and slots being written, and an atomic add on each would take every line of the table from
     * the cores using it. The reference, a volatile add, is what decides: it acquires the
     * entry's fields published with its meta word, and the word it returns says whether the
     * entry was still visible. On an empty or under-construction slot the add is left for the
     * owner to overwrite, as lookups leave it.
     *
     * <p>On an entry erased meanwhile (invisible) the reference is given back through
     * {@link #release}, not a bare undo as a lookup's: if the other holders let go meanwhile,
     * ours is the last reference and the release frees the entry, instead of leaving it
     * unreferenced and charged until an eviction sweep finds it. The reference, held on a
     * shareable entry, keeps its generation stable while we read it.
     */
    final int referenceIfVisible(long slot) {
        if (!isVisible(metaOpaque(slot))) {
            return -1;
        }
        long old = getAndAddMeta(slot, ACQUIRE_ONE);
        if (isVisible(old)) {
            return SlotLayout.generation(flags(slot));
        }
        if (isInvisible(old)) {
            release(slot, false, false, SlotLayout.generation(flags(slot)));
        }
        return -1;
    }

    /**
     * Claims an empty slot by setting its occupied bit (its state becomes "under construction",
     * owned by us). Occupied slots are passed over after a plain look, without an atomic write:
     * in a loaded table most probes meet one.
     */
    final boolean tryClaim(long slot) {
        // Opaque is enough: the CAS that claims the slot is volatile and re-checks the word.
        long meta = metaOpaque(slot);
        while (isEmpty(meta)) {
            long witness = compareAndExchangeMeta(slot, meta, meta | OCCUPIED);
            if (witness == meta) {
                return true;
            }
            meta = witness; // counters moved (a stray lookup) or someone claimed it
        }
        return false;
    }

    /**
     * Checks a visible slot for the key being inserted, holding {@code countdown} references
     * while reading it. On a match the references are released usefully, which boosts the
     * existing entry's clock as the duplicate insert's priority asks.
     */
    final boolean sameKeyBoosting(long slot, long h0, long h1, long countdown) {
        long old = getAndAddMeta(slot, countdown * ACQUIRE_ONE);
        if (isVisible(old)) {
            if (key0(slot) == h0 && key1(slot) == h1) {
                long before = getAndAddMetaRelease(slot, countdown * RELEASE_ONE);
                correctNearOverflow(before, slot);
                return true;
            }
            unref(slot, countdown);
        } else if (isInvisible(old)) {
            unref(slot, countdown);
        }
        return false;
    }

    /** Erases a matching entry on which we hold one reference ({@code meta} includes it). */
    final void eraseReferenced(long slot, long meta) {
        for (;;) {
            if (refCount(meta) > 1) {
                // Others hold it: make it invisible; the last release frees it.
                long unused = (long) LONG.getAndBitwiseAnd(slots, slot, ~ClockMeta.VISIBLE);
                unref(slot, 1);
                return;
            }
            long witness = compareAndExchangeMeta(slot, meta, ClockMeta.UNDER_CONSTRUCTION);
            if (witness == meta) {
                long charge = charge(slot);
                removeOwned(slot);
                reclaim(charge);
                return;
            }
            meta = witness;
        }
    }

    /**
     * Frees an owned (under construction) entry's value and marks its slot empty. The slot gives
     * the value up first (address zeroed, generation even again): a slot's value address is
     * non-zero exactly while it owns a value (see {@link #freeAll}). Callers are inside the
     * cache's {@link CloseGate}, so close cannot stop this half way.
     */
    final void freeValueAndMarkEmpty(long slot) {
        long address = valueAddress(slot);
        int length = valueLength(slot);
        LONG.set(slots, SlotLayout.valueAddressOffset(slot), 0L);
        INT.set(slots, SlotLayout.flagsOffset(slot), SlotLayout.nextGeneration(flags(slot)));
        NativeMemory.free(address, length); // unscoped: cannot fail half-way
        publishMeta(slot, ClockMeta.EMPTY);
    }

    final void reclaim(long charge) {
        addOccupancy(-1);
        addUsage(-charge);
    }

    /**
     * One clock step on a slot: skip it if it is not shareable or is referenced; otherwise either
     * decrement its countdown (a visible entry with time left) or take ownership to evict it.
     *
     * @return whether the caller now owns the slot (under construction) and must evict it
     */
    final boolean clockUpdate(long slot, EvictionData data) {
        // A stale read is fine: every decision below is confirmed by a CAS.
        long meta = metaOpaque(slot);
        if (!isShareable(meta)) {
            return false;
        }
        long acquire = acquireCount(meta);
        if (acquire != releaseCount(meta)) {
            data.seenPinned++;
            return false;
        }
        if (isVisible(meta) && acquire > 0) {
            long count = Math.min(acquire - 1, MAX_COUNTDOWN - 1);
            // No retry: a failure means the entry was just used, so leave it be.
            boolean ignored =
                    LONG.weakCompareAndSetPlain(slots, slot, meta, ClockMeta.withCounters(meta, count));
            return false;
        }
        if (compareAndExchangeMeta(slot, meta, UNDER_CONSTRUCTION) == meta) {
            data.freedCharge += charge(slot);
            data.freedCount++;
            return true;
        }
        return false;
    }

    final boolean isEvictionEffortExceeded(EvictionData data) {
        if (strict) {
            // Strict limits must find room if it exists, so they ignore the cap. (A huge cap in
            // the product below overflowed once 4 entries were freed, and gave up.)
            return false;
        }
        return (data.freedCount + 1) * evictionEffortCap <= data.seenPinned;
    }

    // ---------------------------------------------------------------- insert and capacity

    /**
     * Charges usage for an entry and stores it in the table.
     *
     * <p>Refused ({@link #INSERT_REFUSED}) when the charge would take usage past
     * {@link #usageLimit}, strict limit or not: a charge above the limit at once (which also
     * keeps the sums below from overflowing), otherwise after eviction has freed what it could.
     *
     * @return the slot offset (>= 0) of the new entry, or one of the {@code INSERT_*} codes
     */
    final long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                      long countdown, boolean keepRef) {
        if (charge > usageLimit) {
            return INSERT_REFUSED;
        }
        long oldOccupancy = addOccupancy(1);
        boolean needEvictForOccupancy = !growIfNeeded(oldOccupancy + 1);
        if (strict) {
            if (!chargeUsageStrict(charge, needEvictForOccupancy)) {
                addOccupancy(-1);
                return INSERT_REFUSED;
            }
        } else {
            long charged = chargeUsageNonStrict(charge, needEvictForOccupancy);
            if (charged != CHARGED) {
                addOccupancy(-1);
                if (charged == OVER_LIMIT) {
                    return INSERT_REFUSED;
                }
                if (!keepRef) {
                    return INSERT_DROPPED; // as if inserted and evicted at once
                }
                return addUsageWithinLimit(charge) ? INSERT_STANDALONE : INSERT_REFUSED;
            }
        }
        long slot = doInsert(h0, h1, valueAddress, valueLength, charge, countdown, keepRef);
        if (slot >= 0) {
            return slot;
        }
        addOccupancy(-1);
        if (!keepRef) {
            addUsage(-charge);
            return INSERT_DROPPED;
        }
        return INSERT_STANDALONE;
    }

    private boolean chargeUsageStrict(long charge, boolean needEvictForOccupancy) {
        long cap = capacity;
        if (charge > cap) {
            return false;
        }
        long oldUsage;
        long newUsage;
        do {
            oldUsage = usage();
            newUsage = Math.min(cap, oldUsage + charge);
        } while (newUsage != oldUsage && !casUsage(oldUsage, newUsage));
        long needEvict = oldUsage + charge - newUsage;
        long request = needEvict == 0 && needEvictForOccupancy ? 1 : needEvict;
        if (request == 0) {
            return true;
        }
        EvictionData data = EVICTION_DATA.get().reset();
        evict(request, data);
        addOccupancy(-data.freedCount);
        if (data.freedCharge > needEvict) {
            addUsage(-(data.freedCharge - needEvict));
        } else if (data.freedCharge < needEvict || (needEvictForOccupancy && data.freedCount == 0)) {
            addUsage(-(data.freedCharge + (newUsage - oldUsage)));
            return false;
        }
        return true;
    }

    /** {@link #chargeUsageNonStrict} results. */
    private static final long CHARGED = 0;
    private static final long NO_SLOT = 1;    // nothing charged: no slot could be freed
    private static final long OVER_LIMIT = 2; // nothing charged: usage would pass usageLimit

    /**
     * Adds {@code delta} to usage unless that takes it past {@link #usageLimit}; then adds
     * nothing and returns false. Judged by the counter's new value, so that racing inserts cannot
     * pass the limit together (the counter holds their charges for an instant: see
     * {@link CacheOptions#MAX_USAGE} for why that cannot overflow).
     */
    private boolean addUsageWithinLimit(long delta) {
        long before = addUsage(delta);
        if (delta > 0 && before + delta > usageLimit) {
            addUsage(-delta);
            return false;
        }
        return true;
    }

    /** Charges usage without a strict limit, evicting first as needed; see the result codes. */
    private long chargeUsageNonStrict(long charge, boolean needEvictForOccupancy) {
        long oldUsage = usage();
        long cap = capacity;
        long needEvict;
        if (oldUsage + charge <= cap || charge > oldUsage) {
            // Fits, or there is not yet that much to evict (likely all pinned): go over.
            needEvict = 0;
        } else {
            needEvict = charge;
            if (oldUsage > cap) {
                // Already over: evict a little extra so racing inserts converge back to capacity.
                needEvict += Math.min(cap / 1024, charge) + 1;
            }
        }
        if (needEvictForOccupancy && needEvict == 0) {
            needEvict = 1;
        }
        long freedCharge = 0;
        if (needEvict > 0) {
            EvictionData data = EVICTION_DATA.get().reset();
            evict(needEvict, data);
            if (needEvictForOccupancy && data.freedCount == 0) {
                return NO_SLOT;
            }
            addOccupancy(-data.freedCount);
            freedCharge = data.freedCharge;
        }
        if (!addUsageWithinLimit(charge - freedCharge)) {
            addUsage(-freedCharge); // what eviction freed stays freed
            return OVER_LIMIT;
        }
        return CHARGED;
    }

    final long capacity() {
        return capacity;
    }

    /** @param capacity at most {@link #usageLimit} ({@link NativeCache#perShardCapacity}) */
    final void setCapacity(long capacity) {
        this.capacity = capacity;
    }

    final void setStrict(boolean strict) {
        this.strict = strict;
    }

    final boolean strict() {
        return strict;
    }

    /** Usage charged for the table's slots in use: all of them, or 0 if not charged. */
    final long metadataCharge() {
        return metadataChargePerSlot * usedSlots();
    }

    // ---------------------------------------------------------------- scans

    /** Bytes charged by referenced entries, counting each slot's metadata if charged. */
    final long pinnedUsage() {
        long sum = 0;
        long end = usedSlots() * SLOT_BYTES;
        for (long slot = 0; slot < end; slot += SLOT_BYTES) {
            long meta = metaOpaque(slot);
            if (isShareable(meta) && refCount(meta) != 0) {
                sum += charge(slot) + metadataChargePerSlot;
            }
        }
        return sum;
    }

    /** What {@link #scanOccupancy} found in one table; windows and runs do not wrap around. */
    static final class OccupancyScan {
        long occupied;
        long minWindowOccupied;
        long maxWindowOccupied;
        long maxOccupiedRun;
        long maxEmptyRun;
    }

    /**
     * Reads every slot's meta word once (opaque) in index order and counts occupied (non-empty)
     * slots, the least and most occupied of all {@code window} consecutive slots, and the longest
     * runs of occupied and of empty slots. Racing writers make the result approximate.
     *
     * @param window at least 1 and at most {@link #usedSlots}
     */
    final OccupancyScan scanOccupancy(int window) {
        OccupancyScan scan = new OccupancyScan();
        boolean[] recent = new boolean[window]; // the last window readings, as a ring
        long inWindow = 0;
        long minWindow = window;
        long maxWindow = 0;
        long run = 0; // > 0: occupied run length; < 0: empty run length
        long index = 0;
        long end = usedSlots() * SLOT_BYTES;
        for (long slot = 0; slot < end; slot += SLOT_BYTES, index++) {
            boolean occupied = !ClockMeta.isEmpty(metaOpaque(slot));
            int ring = (int) (index % window);
            if (index >= window && recent[ring]) {
                inWindow--;
            }
            recent[ring] = occupied;
            if (occupied) {
                inWindow++;
                scan.occupied++;
                run = run > 0 ? run + 1 : 1;
                scan.maxOccupiedRun = Math.max(scan.maxOccupiedRun, run);
            } else {
                run = run < 0 ? run - 1 : -1;
                scan.maxEmptyRun = Math.max(scan.maxEmptyRun, -run);
            }
            if (index + 1 >= window) {
                minWindow = Math.min(minWindow, inWindow);
                maxWindow = Math.max(maxWindow, inWindow);
            }
        }
        scan.minWindowOccupied = minWindow;
        scan.maxWindowOccupied = maxWindow;
        return scan;
    }

    /**
     * Frees every value left in the table and the table itself. Called by the cache's close after
     * its arena is closed, so no other thread can be touching the table through it any more.
     *
     * <p>Frees by value address, not by state: a slot owns a value exactly while its address is
     * non-zero. That includes a slot a racing release took for freeing (its CAS to "under
     * construction" done) but that the closed gate then stopped from freeing it.
     */
    final void freeAll() {
        long end = usedSlots() * SLOT_BYTES;
        MemorySegment raw = MemorySegment.ofAddress(rawAddress).reinterpret(end);
        for (long slot = 0; slot < end; slot += SLOT_BYTES) {
            long address = raw.get(ValueLayout.JAVA_LONG, SlotLayout.valueAddressOffset(slot));
            if (address != 0) {
                NativeMemory.free(address,
                        raw.get(ValueLayout.JAVA_INT, SlotLayout.valueLengthOffset(slot)));
            }
        }
        releaseTableMemory();
    }

    // ---------------------------------------------------------------- the index (per table type)

    /** Slots that may hold entries: those scans and close must visit (a prefix of the table). */
    abstract long usedSlots();

    /** Gives the table's memory back; called once, by {@link #freeAll}. */
    abstract void releaseTableMemory();

    /** Most entries the table accepts at its current size. */
    abstract long occupancyLimit();

    /** Returns whether the table can hold {@code newOccupancy} entries (growing if it can). */
    abstract boolean growIfNeeded(long newOccupancy);

    /** Claims a slot and publishes the entry; returns its offset, or a negative value if not. */
    abstract long doInsert(long h0, long h1, long valueAddress, int valueLength, long charge,
                           long countdown, boolean keepRef);

    /** Finds a visible entry and takes a reference; returns its slot offset or {@link #NOT_FOUND}. */
    abstract long lookup(long h0, long h1);

    /** Erases a key; returns whether a visible entry was found. */
    abstract boolean erase(long h0, long h1);

    /** Evicts unreferenced entries until {@code requested} charge is freed or effort runs out. */
    abstract void evict(long requested, EvictionData data);

    /**
     * Unlinks an owned (under construction) entry from the index, frees its value and marks the
     * slot empty. Usage and occupancy are the caller's to update.
     */
    abstract void removeOwned(long slot);
}
