package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ClockMeta.isShareable;
import static dev.clockwork.offheap.clock.ClockMeta.refCount;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_BYTES;

import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.admission.TinyLfu;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CallbackGuard;
import dev.clockwork.offheap.entry.ChargeWord;
import dev.clockwork.offheap.shard.InsertOutcome;
import dev.clockwork.offheap.shard.Shard;
import dev.clockwork.offheap.shard.ShardSizing;
import java.util.function.Function;

/**
 * One shard of a HyperClock cache (RocksDB's {@code ClockCacheShard}): its table and the charge,
 * which it alone owns. Usage, occupancy and the standalone entries' usage are written only here,
 * through the named methods below: an insert charges (evicting first as needed, within the
 * strict limit and the usage limit), and every entry that goes gives its charge back, through
 * {@link #entryFreed} (freed by its table outside a sweep), the insert's own accounting of its
 * eviction run (a sweep's victims, in one step per run) or {@link #standaloneFreed}.
 *
 * <p>The table ({@link FixedClockTable} or {@link AutoClockTable}, both {@link ClockProtocol})
 * decides where a key's slot is, how an insert claims one and in what order the sweep goes; every
 * change of a slot's entry is {@link ClockProtocol}'s. The cache calls the table directly for
 * lookups, releases and erases, and this shard for inserts and accounting; the table calls back
 * only {@link #entryFreed} and {@link #chargeSlots}, which touch nothing but the counters.
 *
 * <p>Usage is the sum of the charges of the table's entries and of the shard's standalone
 * entries, plus the charged slots, plus the charges of inserts in flight.
 */
public final class ClockShard implements Shard {
    // Results of insert that are not a FoundEntry; none equals FoundEntry.NONE.
    /** Not stored, nothing charged: free the value ("as if inserted and evicted at once"). */
    public static final long INSERT_DROPPED = InsertOutcome.DROPPED;
    /** Refused by a limit, nothing charged: free the value. */
    public static final long INSERT_REFUSED = InsertOutcome.REFUSED;
    /** Usage charged, no slot: make a standalone entry. */
    public static final long INSERT_STANDALONE = InsertOutcome.STANDALONE;
    /** The admission policy kept a victim against it; nothing charged: free the value. */
    public static final long INSERT_REJECTED = InsertOutcome.REJECTED;

    /** Release counts below this are told to TinyLFU hit by hit ({@link #recordUse}). */
    static final long EXACT_USES = 8;
    /** Past {@link #EXACT_USES}, one hit in this many is told; a power of two. */
    static final long HIT_SAMPLE = 16;
    /** A key TinyLFU has seen fewer times than this starts on probation (startingCountdown). */
    static final int PROBATION_BELOW = 2;
    /** A new entry on probation survives this many sweeps without a use; at least 1. */
    static final long PROBATION_COUNTDOWN = 1;
    private static final ThreadLocal<EvictionData> EVICTION_DATA =
            ThreadLocal.withInitial(EvictionData::new);
    private static final int USAGE = PaddedCounters.index(0);
    private static final int OCCUPANCY = PaddedCounters.index(1);
    private static final int STANDALONE_USAGE = PaddedCounters.index(2);

    /** The shard's table: the cache's lookups, releases and erases go to it directly. */
    public final ClockProtocol table;
    /**
     * Usage: bytes charged to the shard (entries, standalone entries and, if charged, the
     * table's slots). Occupancy: slots in use or reserved by an insert in flight. Standalone
     * usage: the standalone entries' part of usage.
     */
    private final long[] counters = PaddedCounters.allocate(3);
    private final int shardIndex;
    private final CacheContext context;
    private final long metadataChargePerSlot;
    private volatile long capacity;
    /**
     * Most the shard's usage may reach: its share of the cache's usage limit. An insert that
     * would pass it is refused (see {@link #insert}); capacity never exceeds it.
     */
    private final long usageLimit;
    private volatile boolean strict;
    private final int evictionEffortCap;
    /** Asked before each victim an insert's eviction takes; null: take them unasked. */
    private final Admission admission;
    /**
     * The cache's own TinyLFU, told of hits by the table (see {@link #recordUse}); null without
     * one (a user's policy hears of every lookup from the cache instead).
     */
    private final TinyLfu usesSeen;
    /** Whether {@link #admission} is the built-in TinyLFU, which never calls back. */
    private final boolean trustedPolicy;

    /**
     * Most slots a table may have when there are {@code 2^shardBits} shards: what a handle can
     * name beside its shard ({@link ShardSizing#maxLocationsPerShard}).
     */
    public static long maxSlotsPerShard(int shardBits) {
        return ShardSizing.maxLocationsPerShard(shardBits);
    }

    /** Initial countdown of a new entry of this priority: how many sweeps it survives unused. */
    public static long initialCountdown(Priority priority) {
        return ClockMeta.initialCountdown(priority);
    }

    /** A shard over a Fixed table of {@code 2^lengthBits} slots ({@link FixedClockTable}). */
    public static ClockShard fixed(int lengthBits, ClockShardContext context) {
        return new ClockShard(context, shard -> new FixedClockTable(lengthBits, context, shard));
    }

    /** A shard over an Auto table reserving {@code maxSlots} slots ({@link AutoClockTable}). */
    public static ClockShard auto(long maxSlots, ClockShardContext context) {
        return new ClockShard(context, shard -> new AutoClockTable(maxSlots, context, shard));
    }

    /**
     * The table is made last, given this shard, whose counters are ready by then: the table
     * keeps it to give back the charge of what it frees, and calls nothing of it while it is
     * being made. Its first slots are charged once it is made.
     */
    private ClockShard(ClockShardContext context, Function<ClockShard, ClockProtocol> table) {
        this.shardIndex = context.shardIndex();
        this.context = context.context();
        this.capacity = context.capacity();
        this.usageLimit = context.usageLimit();
        this.strict = context.strict();
        this.evictionEffortCap = context.evictionEffortCap();
        this.metadataChargePerSlot = context.chargeMetadata() ? SLOT_BYTES : 0;
        this.admission = context.admission();
        this.trustedPolicy = admission instanceof TinyLfu;
        this.usesSeen = admission instanceof TinyLfu own ? own : null;
        this.table = table.apply(this);
        chargeSlots(this.table.usedSlots());
    }

    // ---------------------------------------------------------------- the counters

    /** Volatile, relaxed in spirit: see {@link PaddedCounters}. */
    private long addUsage(long delta) {
        return PaddedCounters.getAndAdd(counters, USAGE, delta);
    }

    private long addOccupancy(long delta) {
        return PaddedCounters.getAndAdd(counters, OCCUPANCY, delta);
    }

    /** Adds the metadata charge of {@code count} slots put to use (nothing if not charged). */
    void chargeSlots(long count) {
        if (metadataChargePerSlot != 0) {
            addUsage(count * metadataChargePerSlot);
        }
    }

    /** An entry of the table was freed outside a sweep: its slot and charge come back. */
    void entryFreed(long charge) {
        long occupancy = addOccupancy(-1);
        long usage = addUsage(-charge);
        assert occupancy > 0 && usage >= charge : "the freed entry was counted";
    }

    /**
     * A standalone entry was made for a charge an insert already added to usage
     * ({@link #INSERT_STANDALONE}): it counts as standalone from now on.
     */
    void standaloneAdded(long charge) {
        PaddedCounters.getAndAdd(counters, STANDALONE_USAGE, charge);
    }

    /** A standalone entry was freed: its charge leaves usage and standalone usage. */
    void standaloneFreed(long charge) {
        long standalone = PaddedCounters.getAndAdd(counters, STANDALONE_USAGE, -charge);
        long usage = addUsage(-charge);
        assert standalone >= charge && usage >= charge : "the freed entry was counted";
    }

    /**
     * Charges a standalone entry that no table insert charged: a loaded value the insert refused
     * (a strict limit, admission), kept for its callers whatever the capacity, within the usage
     * limit only. Returns false, charging nothing, past that limit.
     */
    public boolean chargeStandalone(long charge) {
        return charge <= usageLimit && addUsageWithinLimit(charge);
    }

    /**
     * No standalone entry could be made for an insert's {@link #INSERT_STANDALONE}: the charge
     * it added to usage is taken back (the caller frees the value).
     */
    void standaloneRefused(long charge) {
        addUsage(-charge);
    }

    /**
     * Runs the table's eviction and adds what it freed to the evicted charge, once per run (the
     * table counts evictions per entry); counts and records a run that gave up on the effort cap.
     */
    private void evictCounted(long requested, EvictionData data) {
        table.evict(requested, data);
        if (data.freedCharge != 0) {
            context.stats.evictedCharge.add(data.freedCharge);
        }
        if (data.effortExceeded) {
            context.stats.evictionEffortExceeded.increment();
            context.events.evictionEffortExceeded(shardIndex, requested, data.freedCharge,
                    data.freedCount, data.seenPinned, evictionEffortCap);
        }
    }

    // ---------------------------------------------------------------- admission

    /**
     * Tells the cache's TinyLFU of a hit on an entry whose release counter read {@code count}
     * before it: the entry's countdown plus its uses since the sweep last lowered it (at most to
     * {@code MAX_COUNTDOWN - 1}). The first few uses after each sweep are told, below
     * {@link #EXACT_USES}, and one in {@link #HIT_SAMPLE} after that: an entry read over and
     * over costs the sketch a record per sixteen reads instead of one per read (its counters
     * saturate at 15 anyway), so most hits on a hot entry cost admission only this test, while
     * a key read a few times still outweighs a key read once.
     */
    void recordUse(long h0, long count) {
        TinyLfu policy = usesSeen;
        if (policy != null && (count < EXACT_USES || (count & (HIT_SAMPLE - 1)) == 0)) {
            policy.recordAccess(h0, true);
        }
    }

    /**
     * The countdown a new entry starts with: its priority's, or at most
     * {@link #PROBATION_COUNTDOWN} for a key the cache's TinyLFU has seen fewer than
     * {@link #PROBATION_BELOW} times (a one-off key, or its first miss). Such an entry is on
     * probation: the sweep takes it the second time it passes unless it has been used by then,
     * so one-hit wonders leave before anything that was used (S3-FIFO's quick demotion, Yang et
     * al., SOSP 2023, in the clock's terms: no queue, the countdown is the state). One pass, not
     * none: a working set that moves on must have time for its second round (a countdown of 0
     * cost such a workload 5 points, see docs/simulate.md). At least 1 also keeps a pinned new
     * entry's release, which gives its use back to the countdown, from going below zero.
     */
    private long startingCountdown(long h0, long countdown) {
        if (usesSeen == null || usesSeen.frequency(h0) >= PROBATION_BELOW) {
            return countdown;
        }
        return Math.min(countdown, PROBATION_COUNTDOWN);
    }

    // ---------------------------------------------------------------- insert and capacity

    /**
     * Charges usage for an entry and stores it in the table, its slot's charge word tagged with
     * {@code kind} ({@link ChargeWord}; the charge is checked against the limit first, so it
     * fits below the kind's bits).
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
    public long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                       int kind, long countdown, boolean keepRef) {
        if (charge > usageLimit) {
            return INSERT_REFUSED;
        }
        countdown = startingCountdown(h0, countdown);
        EvictionData data = EVICTION_DATA.get();
        if (data.busy) {
            throw insertFromPolicy();
        }
        data.busy = true;
        try {
            // Strict limits must find room if it exists, so they ignore the effort cap (0).
            int effortCap = strict ? 0 : evictionEffortCap;
            long result = insert(h0, h1, valueAddress, valueLength, charge, kind, countdown,
                    keepRef, data.reset(admission, trustedPolicy, h0, effortCap));
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
                        int kind, long countdown, boolean keepRef, EvictionData data) {
        long oldOccupancy = addOccupancy(1);
        boolean needEvictForOccupancy = !table.growIfNeeded(oldOccupancy + 1);
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
        long slot = table.insert(h0, h1, valueAddress, valueLength, ChargeWord.of(charge, kind),
                countdown, keepRef);
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
        cap = Math.max(charge, cap - context.values.capacityCut(cap));
        long oldUsage;
        long newUsage;
        do {
            oldUsage = usage();
            newUsage = Math.min(cap, oldUsage + charge);
        } while (newUsage != oldUsage
                && !PaddedCounters.weakCompareAndSetPlain(counters, USAGE, oldUsage, newUsage));
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
     * {@code CacheOptions.MAX_USAGE} for why that cannot overflow).
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
        cap -= context.values.capacityCut(cap); // held back while freed pages are stranded
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
    public long entryCount() {
        return occupancy();
    }

    /** Bytes charged to the shard; opaque, as the counters carry no ordering duties. */
    @Override
    public long usage() {
        return PaddedCounters.getOpaque(counters, USAGE);
    }

    /** Slots in use or reserved by an insert in flight. */
    public long occupancy() {
        return PaddedCounters.getOpaque(counters, OCCUPANCY);
    }

    /** Bytes charged by the shard's standalone entries (part of {@link #usage()}). */
    public long standaloneUsage() {
        return PaddedCounters.getOpaque(counters, STANDALONE_USAGE);
    }

    @Override
    public long capacity() {
        return capacity;
    }

    /** @param capacity at most the shard's usage limit */
    @Override
    public void setCapacity(long capacity) {
        this.capacity = capacity;
    }

    @Override
    public void setStrict(boolean strict) {
        this.strict = strict;
    }

    @Override
    public boolean strict() {
        return strict;
    }

    /** Usage charged for the table's slots in use: all of them, or 0 if not charged. */
    public long metadataCharge() {
        return metadataChargePerSlot * table.usedSlots();
    }

    /** Most entries the table accepts at its current size. */
    public long occupancyLimit() {
        return table.occupancyLimit();
    }

    /** Slots that may hold entries (see {@link ClockProtocol#usedSlots}). */
    public long usedSlots() {
        return table.usedSlots();
    }

    // ---------------------------------------------------------------- scans

    /** Bytes charged by referenced entries: the table's and the standalone ones (always held). */
    @Override
    public long pinnedUsage() {
        return tablePinnedUsage() + standaloneUsage();
    }

    /** Bytes charged by the table's referenced entries, with their slots if charged. A scan. */
    public long tablePinnedUsage() {
        long sum = 0;
        long end = table.usedSlots() * SLOT_BYTES;
        for (long slot = 0; slot < end; slot += SLOT_BYTES) {
            long meta = table.getMetaOpaque(slot);
            if (isShareable(meta) && refCount(meta) != 0) {
                sum += SlotLayout.charge(table.slots, slot) + metadataChargePerSlot;
            }
        }
        return sum;
    }

    /**
     * Reads every slot's meta word once (opaque) in index order: see {@link OccupancyScan}.
     *
     * @param window at least 1 and at most {@link #usedSlots}
     */
    public OccupancyScan scanOccupancy(int window) {
        return OccupancyScan.of(table, window);
    }

    /**
     * Frees the table. Called by the cache's close after its arena is closed, so no other thread
     * can be touching the table through it any more. The values left in it need no free of their
     * own: close frees the value slabs' chunks after the shards.
     */
    @Override
    public void freeAll() {
        table.releaseTableMemory();
    }
}
