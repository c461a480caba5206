package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ClockMeta.MAX_REFS;
import static dev.clockwork.offheap.clock.ClockMeta.isShareable;
import static dev.clockwork.offheap.clock.ClockMeta.refCount;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_BYTES;

import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.CacheOptions;
import dev.clockwork.offheap.ShardedCache;
import dev.clockwork.offheap.admission.TinyLfu;
import dev.clockwork.offheap.shard.CallbackGuard;
import dev.clockwork.offheap.shard.InsertOutcome;
import dev.clockwork.offheap.shard.Shard;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One shard of a HyperClock cache: its capacity accounting (usage, occupancy, the strict limit,
 * how much an insert must evict) and what it asks of its index. The concrete class is the index:
 * {@link FixedClockTable} or {@link AutoClockTable} decides where a key's slot is, how an insert
 * claims one and in what order the sweep goes; every change of a slot's entry is
 * {@link ClockProtocol}'s.
 */
public abstract class ClockShard extends ClockProtocol implements Shard {
    // Results of insert that are not a FoundEntry; none equals FoundEntry.NONE.
    /** Not stored, nothing charged: free the value ("as if inserted and evicted at once"). */
    public static final long INSERT_DROPPED = InsertOutcome.DROPPED;
    /** Refused by a limit, nothing charged: free the value. */
    public static final long INSERT_REFUSED = InsertOutcome.REFUSED;
    /** Usage charged, no slot: make a standalone entry. */
    public static final long INSERT_STANDALONE = InsertOutcome.STANDALONE;
    /** The admission policy kept a victim against it; nothing charged: free the value. */
    public static final long INSERT_REJECTED = InsertOutcome.REJECTED;

    /**
     * Most slots a table may have when there are {@code 2^shardBits} shards: a handle names a
     * slot and its shard in {@link CacheOptions#MAX_LOCATION_BITS} bits.
     */
    public static long maxSlotsPerShard(int shardBits) {
        return CacheOptions.maxLocationsPerShard(shardBits);
    }

    private static final ThreadLocal<EvictionData> EVICTION_DATA =
            ThreadLocal.withInitial(EvictionData::new);

    /** Slots the table's memory can hold; handles are bounds-checked against it. */
    public final long slotCount;
    public final long rawAddress;
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
    public final AtomicLong standaloneUsage = new AtomicLong();
    /** Asked before each victim an insert's eviction takes; null: take them unasked. */
    private final Admission admission;
    /** Whether {@link #admission} is the built-in TinyLFU, which never calls back (see EvictionData). */
    private final boolean trustedPolicy;

    /**
     * @param rawAddress zeroed memory for {@code slotCount} slots, 64-byte aligned, owned by the
     *     table from now on (see {@link #releaseTableMemory})
     * @param capacity at most {@code usageLimit}
     * @param usageLimit the shard's share of {@link CacheOptions#MAX_USAGE}
     */
    ClockShard(long rawAddress, long slotCount, ClockShardContext context) {
        super(MemorySegment.ofAddress(rawAddress).reinterpret(slotCount * SLOT_BYTES,
                context.context().arena(), null), context);
        this.rawAddress = rawAddress;
        this.slotCount = slotCount;
        this.capacity = context.capacity();
        this.usageLimit = context.usageLimit();
        this.strict = context.strict();
        this.evictionEffortCap = context.evictionEffortCap();
        this.metadataChargePerSlot = context.chargeMetadata() ? SLOT_BYTES : 0;
        this.admission = context.admission();
        this.trustedPolicy = admission instanceof TinyLfu;
    }

    /** Adds the metadata charge of {@code count} slots put to use (nothing if not charged). */
    final void chargeSlots(long count) {
        if (metadataChargePerSlot != 0) {
            addUsage(count * metadataChargePerSlot);
        }
    }

    @Override
    final void freeOwned(long slot) {
        long charge = charge(slot);
        removeOwned(slot);
        reclaim(charge);
    }

    final void reclaim(long charge) {
        addOccupancy(-1);
        addUsage(-charge);
    }


    final boolean isEvictionEffortExceeded(EvictionData data) {
        if (strict) {
            // Strict limits must find room if it exists, so they ignore the cap. The product
            // below stays in range for any cap: it is only reached without a strict limit, and a
            // sweep frees far fewer than Long.MAX_VALUE / cap entries.
            return false;
        }
        return (data.freedCount + 1) * evictionEffortCap <= data.seenPinned;
    }

    /** Counts, and records as a JFR event, an eviction run that gave up on the effort cap. */
    final void evictionEffortExceeded(long requested, EvictionData data) {
        context.stats.evictionEffortExceeded.increment();
        context.events.evictionEffortExceeded(shardIndex, requested, data.freedCharge,
                data.freedCount, data.seenPinned, evictionEffortCap);
    }

    /**
     * Runs {@link #evict} and adds what it freed to the evicted charge. Once per run, not per
     * entry as the tables count evictions: one more atomic add per evicting insert.
     */
    private void evictCounted(long requested, EvictionData data) {
        evict(requested, data);
        if (data.freedCharge != 0) {
            context.stats.evictedCharge.add(data.freedCharge);
        }
    }

    // ---------------------------------------------------------------- insert and capacity

    /**
     * Charges usage for an entry and stores it in the table.
     *
     * <p>Refused ({@link #INSERT_REFUSED}) when the charge would take usage past
     * {@link #usageLimit}, strict limit or not: a charge above the limit at once (which also
     * keeps the sums below from overflowing), otherwise after eviction has freed what it could.
     *
     * @return {@link FoundEntry} of the new entry's slot and stamp ({@code >= 0}), or one of the
     *     {@code INSERT_*} codes
     * @throws IllegalStateException if called from inside an admission policy (this thread's
     *     insert is asking it); and whatever the admission policy threw, with nothing stored or
     *     charged: in both cases the caller still owns the value
     */
    public final long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                      long countdown, boolean keepRef) {
        if (charge > usageLimit) {
            return INSERT_REFUSED;
        }
        EvictionData data = EVICTION_DATA.get();
        if (data.busy) {
            throw insertFromPolicy();
        }
        data.busy = true;
        try {
            long result = insert(h0, h1, valueAddress, valueLength, charge, countdown, keepRef,
                    data.reset(admission, trustedPolicy, h0));
            if (data.policyFailure != null) {
                // Nothing of ours is charged or stored (a refusal): now the policy's exception.
                throw CallbackGuard.rethrow(data.policyFailure);
            }
            return result;
        } finally {
            data.busy = false;
        }
    }

    private static IllegalStateException insertFromPolicy() {
        return new IllegalStateException("an Admission policy must not insert into a HyperClock"
                + " cache: the insert that asked it is still running on this thread");
    }

    /** {@link #insert} with the thread's eviction data, reset for this insert. */
    private long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                        long countdown, boolean keepRef, EvictionData data) {
        long oldOccupancy = addOccupancy(1);
        boolean needEvictForOccupancy = !growIfNeeded(oldOccupancy + 1);
        if (strict) {
            if (!chargeUsageStrict(charge, needEvictForOccupancy, data)) {
                addOccupancy(-1);
                return data.rejected ? INSERT_REJECTED : INSERT_REFUSED;
            }
        } else {
            long charged = chargeUsageNonStrict(charge, needEvictForOccupancy, data);
            if (charged != CHARGED) {
                addOccupancy(-1);
                if (charged == OVER_LIMIT) {
                    return INSERT_REFUSED;
                }
                if (charged == REJECTED) {
                    return INSERT_REJECTED;
                }
                if (!keepRef) {
                    return INSERT_DROPPED; // as if inserted and evicted at once
                }
                return addUsageWithinLimit(charge) ? INSERT_STANDALONE : INSERT_REFUSED;
            }
        }
        long slot = doInsert(h0, h1, valueAddress, valueLength, charge, countdown, keepRef);
        if (slot != FoundEntry.NONE) {
            return slot;
        }
        addOccupancy(-1);
        if (!keepRef) {
            addUsage(-charge);
            return INSERT_DROPPED;
        }
        return INSERT_STANDALONE;
    }

    private boolean chargeUsageStrict(long charge, boolean needEvictForOccupancy,
                                      EvictionData data) {
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
        evictCounted(request, data);
        addOccupancy(-data.freedCount);
        if (data.rejected || data.freedCharge < needEvict
                || (needEvictForOccupancy && data.freedCount == 0)) {
            // Not stored: what eviction freed stays freed, and the charge is taken back.
            addUsage(-(data.freedCharge + (newUsage - oldUsage)));
            return false;
        }
        if (data.freedCharge > needEvict) {
            addUsage(-(data.freedCharge - needEvict));
        }
        return true;
    }

    /** {@link #chargeUsageNonStrict} results. */
    private static final long CHARGED = 0;
    private static final long NO_ROOM = 1;    // nothing charged: no slot could be freed
    private static final long OVER_LIMIT = 2; // nothing charged: usage would pass usageLimit
    private static final long REJECTED = 3;   // nothing charged: the policy kept a victim

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
    private long chargeUsageNonStrict(long charge, boolean needEvictForOccupancy,
                                      EvictionData data) {
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
            evictCounted(needEvict, data);
            if (data.rejected) {
                addOccupancy(-data.freedCount); // what eviction freed stays freed
                addUsage(-data.freedCharge);
                return REJECTED;
            }
            if (needEvictForOccupancy && data.freedCount == 0) {
                return NO_ROOM;
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

    /** Entries in the table (and inserts in flight that have claimed their place). */
    @Override
    public final long entryCount() {
        return occupancy();
    }

    /** Bytes charged by the shard's standalone entries (part of {@link #usage()}). */
    public final long standaloneUsage() {
        return standaloneUsage.get();
    }

    public final long capacity() {
        return capacity;
    }

    /** @param capacity at most {@link #usageLimit} ({@link ShardedCache#perShardCapacity}) */
    public final void setCapacity(long capacity) {
        this.capacity = capacity;
    }

    public final void setStrict(boolean strict) {
        this.strict = strict;
    }

    public final boolean strict() {
        return strict;
    }

    /** Usage charged for the table's slots in use: all of them, or 0 if not charged. */
    public final long metadataCharge() {
        return metadataChargePerSlot * usedSlots();
    }

    // ---------------------------------------------------------------- scans

    /** Bytes charged by referenced entries: the table's and the standalone ones (always held). */
    @Override
    public final long pinnedUsage() {
        return tablePinnedUsage() + standaloneUsage.get();
    }

    /** Bytes charged by the table's referenced entries, with their slots if charged. A scan. */
    public final long tablePinnedUsage() {
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
    public static final class OccupancyScan {
        public long occupied;
        public long minWindowOccupied;
        public long maxWindowOccupied;
        public long maxOccupiedRun;
        public long maxEmptyRun;
    }

    /**
     * Reads every slot's meta word once (opaque) in index order and counts occupied (non-empty)
     * slots, the least and most occupied of all {@code window} consecutive slots, and the longest
     * runs of occupied and of empty slots. Racing writers make the result approximate.
     *
     * @param window at least 1 and at most {@link #usedSlots}
     */
    public final OccupancyScan scanOccupancy(int window) {
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
     * Frees the table. Called by the cache's close after its arena is closed, so no other thread
     * can be touching the table through it any more. The values left in it need no free of their
     * own: close frees the value slabs' chunks after the shards.
     */
    public final void freeAll() {
        releaseTableMemory();
    }

    // ---------------------------------------------------------------- the index (per table type)

    /** Slots that may hold entries: those scans and close must visit (a prefix of the table). */
    public abstract long usedSlots();

    /** Gives the table's memory back; called once, by {@link #freeAll}. */
    abstract void releaseTableMemory();

    /** Most entries the table accepts at its current size. */
    public abstract long occupancyLimit();

    /** Returns whether the table can hold {@code newOccupancy} entries (growing if it can). */
    abstract boolean growIfNeeded(long newOccupancy);

    /** Claims a slot and publishes the entry; returns its offset, or a negative value if not. */
    abstract long doInsert(long h0, long h1, long valueAddress, int valueLength, long charge,
                           long countdown, boolean keepRef);

    /**
     * Finds a visible entry and takes a reference, which the caller keeps; returns
     * {@link FoundEntry} of its slot and stamp, or {@link FoundEntry#NONE}.
     *
     * @throws IllegalStateException if the entry already holds the most references it may,
     *     {@link ClockMeta#MAX_REFS} (the reference is given back first)
     */
    public abstract long lookup(long h0, long h1);

    /**
     * Finds a visible entry of the key without taking a reference: {@link FoundEntry} of its slot
     * and stamp, or {@link FoundEntry#NONE}. Reads only, apart from the clock's "was used" mark
     * (see {@link #stampIfKey}); the caller validates what it reads of the entry against the
     * stamp afterwards.
     */
    public abstract long findUnreferenced(long h0, long h1);

    /** Erases a key; returns whether a visible entry was found. */
    public abstract boolean erase(long h0, long h1);

    /** Evicts unreferenced entries until {@code requested} charge is freed or effort runs out. */
    abstract void evict(long requested, EvictionData data);

    /**
     * Unlinks an owned (under construction) entry from the index, frees its value and marks the
     * slot empty. Usage and occupancy are the caller's to update.
     */
    abstract void removeOwned(long slot);
}
