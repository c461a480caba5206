package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.KeyPredicate;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.dump.DumpFormat;
import dev.clockwork.cache.dump.DumpWriter;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.clock.ClockDumpWalk;
import dev.clockwork.offheap.clock.ClockHandle;
import dev.clockwork.offheap.clock.ClockProtocol;
import dev.clockwork.offheap.clock.ClockShard;
import dev.clockwork.offheap.clock.FoundEntry;
import dev.clockwork.offheap.clock.OccupancyScan;
import dev.clockwork.offheap.clock.SlotLayout;
import dev.clockwork.offheap.clock.StandaloneEntries;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CloseGate;
import dev.clockwork.offheap.entry.ChargeWord;
import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.shard.InsertOutcome;
import dev.clockwork.offheap.shard.ShardSizing;
import java.io.IOException;

/**
 * A sharded cache over {@link ClockShard}s, each holding its table ({@link ClockProtocol}): the
 * HyperClock protocol of RocksDB's
 * HyperClockCache over off-heap memory. Keys are hashed with a seeded bijection
 * ({@link KeyHash}), so distinct keys never share a hashed key; the upper half of the first hash
 * word picks the shard.
 *
 * <h2>Admission</h2>
 * TinyLFU by default ({@code admission(AdmissionPolicy.NONE)} turns it off): the sweep asks it
 * before each victim, a key it has seen fewer than twice starts on probation (no countdown), and
 * the tables, not the lookups, tell it of hits ({@code ClockShard.recordUse}). See
 * docs/design.md, "Admission".
 *
 * <h2>Handles</h2>
 * See {@link ClockHandle}: a handle names a table slot or a standalone record, and carries a
 * check of the stamp its entry was given; it is bounds- and stamp-checked on every use. So
 * made-up, stale and foreign handles throw instead of reading or releasing an entry that is not
 * theirs, except with the probabilities {@link EntryStamp} states.
 *
 * <h2>Close</h2>
 * Calls that hand values over or free them (inserts, erases, the release that frees an entry) run
 * inside a {@link CloseGate}, which close shuts and drains before it closes the arena; lookups,
 * plain releases and value reads only race the arena, which stops them with an exception. What
 * close then frees: the tables ({@link ClockShard#freeAll}; the values left in them, including a
 * slot's that a release took but could not free, go with the value slabs), and every live
 * standalone entry. See
 * {@link ShardedCache#close()} for the contract.
 */
public abstract class HyperClockCache extends EngineCache {
    /** The shards: inserts and accounting. */
    final ClockShard[] shards;
    /** Each shard's table, by shard: lookups, releases and erases go to it directly. */
    final ClockProtocol[] tables;
    private final int shardMask;
    /** log2 of the shard count: how many low bits of a table handle's location are the shard. */
    final int shardBits;
    private final StandaloneEntries standalone;
    /** Inserts, erases and freeing releases run inside it; close shuts and drains it first. */
    private final CloseGate gate;

    HyperClockCache(CacheContext context, CloseGate gate, ClockShard[] shards, long capacity,
                    long hashSeed, Admission admission) {
        super(context, shards, capacity, hashSeed, admission);
        this.gate = gate;
        this.shards = shards;
        this.tables = new ClockProtocol[shards.length];
        for (int i = 0; i < shards.length; i++) {
            tables[i] = shards[i].table;
        }
        this.shardMask = shards.length - 1;
        this.shardBits = Integer.numberOfTrailingZeros(shards.length);
        this.standalone = new StandaloneEntries(context, shards);
    }

    /**
     * The builder of both HyperClock tables, which picks the table as RocksDB's
     * {@code HyperClockCacheOptions} does: an {@link AutoHyperClockCache} (the default) unless
     * {@link Builder#estimatedEntryCharge} is given, which turns it into the builder of a
     * {@link FixedHyperClockCache} sized for that charge. The static type of {@code build()}
     * says which table was built, so each table's own reports need no cast:
     *
     * <pre>{@code
     * AutoHyperClockCache auto = HyperClockCache.builder().capacity(1L << 30).build();
     * FixedHyperClockCache fixed = HyperClockCache.builder().capacity(1L << 30)
     *         .estimatedEntryCharge(8192).build();
     * }</pre>
     *
     * <p>The one builder of the HyperClock caches, as {@link LruCache#builder()} is the LRU's.
     * The subclasses declare none: Java lets {@code HyperClockCache.builder()} name this
     * method too, and it is this builder (an Auto table until the estimate is given).
     *
     * @return a new builder with every option at its default; only the capacity must be set
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Options of either HyperClock table: {@link #build()} builds an Auto table, and
     * {@link #estimatedEntryCharge} hands the options on to a fixed table's builder.
     */
    public static final class Builder extends HyperClockOptions<Builder> {

        private Builder() {
            super(new BuilderSettings());
        }

        /**
         * Builds a {@link FixedHyperClockCache} instead, sized for entries of this average
         * charge: returns its builder, which carries every option set so far and takes the
         * rest (see {@link FixedHyperClockCache.Builder#estimatedEntryCharge} for the sizing).
         * Without it the table is an Auto one, which needs no estimate.
         *
         * @param bytes the expected average charge per entry in bytes, {@code >= 1}; the fixed
         *     builder's {@code validate()} refuses less
         * @return the fixed table's builder, over the options of this one
         */
        public FixedHyperClockCache.Builder estimatedEntryCharge(long bytes) {
            return new FixedHyperClockCache.Builder(settings).estimatedEntryCharge(bytes);
        }

        /**
         * The smallest average entry charge the Auto table's reservation must allow for (default
         * 450, as in RocksDB), at least 1: the tables reserve room for capacity / this many
         * entries. Smaller values cost only address space; if entries are smaller on average,
         * the table stops growing and inserts evict to free slots, leaving part of the capacity
         * unused.
         *
         * <p>The reservation is bounded whatever the capacity: all shards together reserve at
         * most 128 GiB (2^31 slots of 64 bytes, all that handles can name; room for about 1.3
         * billion entries; at the default charge, a capacity of about 670 GiB), an even share
         * each. So {@code capacity(Long.MAX_VALUE)} builds a cache that maps 128 GiB of address
         * space (resident only as used) and evicts for slots once its tables are full.
         *
         * @param bytes the smallest average charge to reserve slots for, in bytes, {@code >= 1}
         *     ({@link #validate()} refuses less); ignored if {@link #estimatedEntryCharge} is
         *     called afterwards, as a fixed table reserves nothing
         * @return this builder
         */
        public Builder minAvgEntryCharge(long bytes) {
            settings.minAvgEntryCharge = bytes;
            return this;
        }

        @Override
        public void validate() {
            super.validate();
            Args.requirePositive("minAvgEntryCharge", settings.minAvgEntryCharge);
        }

        @Override
        public AutoHyperClockCache build() {
            validate();
            return AutoHyperClockCache.build(this);
        }
    }

    // ---------------------------------------------------------------- hashing and handles

    private int shardOf(long h0) {
        return (int) (h0 >>> 32) & shardMask;
    }

    /** The handle of what a lookup or insert of shard {@code shard} found (FoundEntry). */
    private long handleOf(int shard, long found) {
        return ClockHandle.table(shard, shardBits,
                FoundEntry.slot(found) >>> SlotLayout.SLOT_SHIFT, FoundEntry.stamp(found));
    }

    private static boolean isStandalone(long handle) {
        return ClockHandle.isStandalone(handle);
    }

    /** The table of a table handle whose fields and slot are in bounds; throws otherwise. */
    ClockProtocol tableOf(long handle) {
        if (!EntryStamp.isWellFormed(handle)) {
            throw notOurs(handle);
        }
        ClockProtocol table = tables[ClockHandle.shard(handle, shardBits)];
        if (ClockHandle.slotIndex(handle, shardBits) >= table.slotCount) {
            throw notOurs(handle);
        }
        return table;
    }

    /** The slot offset a table handle names (bounds-checked by {@link #tableOf}). */
    long slotOf(long handle) {
        return ClockHandle.slotIndex(handle, shardBits) << SlotLayout.SLOT_SHIFT;
    }

    /**
     * The stamp of the entry a table handle names, if its slot holds that entry now; throws
     * otherwise. The protocol checks it again in the same step as its change of the meta word.
     */
    private static int checkedStamp(ClockProtocol table, long slot, long handle) {
        int stamp = SlotLayout.stamp(table.slots, slot);
        if (!EntryStamp.names(handle, stamp)) {
            throw stale(handle);
        }
        return stamp;
    }

    /** Handle misuse is always an IllegalStateException (Cache, "Misuse"), whatever the bits. */
    private static IllegalStateException notOurs(long handle) {
        return new IllegalStateException("handle " + handle + " is not a handle of this cache"
                + " (made up, or from another cache)");
    }

    private static IllegalStateException stale(long handle) {
        return new IllegalStateException("handle " + handle + " is stale (its entry was released"
                + " and freed) or from another cache");
    }

    // ---------------------------------------------------------------- lookup and release

    @Override
    long lookupHashed(long h0, long h1) {
        int shard = shardOf(h0);
        long found = tables[shard].lookup(h0, h1);
        return found == FoundEntry.NONE ? MISS : handleOf(shard, found);
    }

    /** The token is the table's {@link FoundEntry}: slot and full stamp; the shard is h0's. */
    @Override
    long findUnpinned(long h0, long h1) {
        long found = tables[shardOf(h0)].findUnreferenced(h0, h1);
        return found == FoundEntry.NONE ? OptimisticRead.NOT_FOUND : found;
    }

    @Override
    long unpinnedRecord(long h0, long token) {
        return tables[shardOf(h0)].rawAddress + FoundEntry.slot(token);
    }

    @Override
    int unpinnedStamp(long token) {
        return FoundEntry.stamp(token);
    }

    @Override
    public boolean release(long handle, boolean eraseIfLastRef) {
        checkOpen();
        if (isStandalone(handle)) {
            return releaseStandalone(handle);
        }
        ClockProtocol table = tableOf(handle);
        long slot = slotOf(handle);
        return table.release(slot, checkedStamp(table, slot, handle), eraseIfLastRef);
    }

    @Override
    public void ref(long handle) {
        checkOpen();
        if (isStandalone(handle)) {
            standalone.ref(handle);
            return;
        }
        ClockProtocol table = tableOf(handle);
        long slot = slotOf(handle);
        table.ref(slot, checkedStamp(table, slot, handle));
    }

    // ---------------------------------------------------------------- values through handles

    @Override
    long recordAddress(long handle) {
        if (isStandalone(handle)) {
            return standalone.recordAddress(handle); // slab memory: mapped until close
        }
        return tableOf(handle).rawAddress + slotOf(handle); // table memory: mapped until close
    }

    @Override
    void checkRecord(long handle, long lengthWord) {
        // The length word's high half is the slot's or record's stamp (SlotLayout).
        if (!EntryStamp.names(handle, (int) (lengthWord >>> 32))) {
            throw stale(handle);
        }
    }

    // ---------------------------------------------------------------- insert

    @Override
    long insertCopied(long h0, long h1, long address, int length, long charge,
                      Placement placement, boolean keepRef) {
        // Inside the gate close cannot stop us half way, holding a value it cannot see.
        int stripe = gate.enter();
        try {
            return insertInGate(h0, h1, address, length, charge, placement, keepRef);
        } finally {
            gate.exit(stripe);
        }
    }

    /**
     * A stored entry (in the table, or standalone) is counted under its kind once stored: the
     * shard has checked its charge, so it fits its record's charge word beside the kind.
     */
    private long insertInGate(long h0, long h1, long address, int length, long charge,
                              Placement placement, boolean keepRef) {
        int shard = shardOf(h0);
        int kind = placement.kindIndex();
        long result = shards[shard].insert(h0, h1, address, length, charge, kind,
                ClockShard.initialCountdown(placement.priority()), keepRef);
        if (result >= 0) {
            stats.inserts.increment();
            if (kind != 0) {
                stats.kinds.stored(ChargeWord.of(charge, kind));
            }
            return keepRef ? handleOf(shard, result) : 1;
        }
        if (result == ClockShard.INSERT_STANDALONE) {
            long word = ChargeWord.of(charge, kind);
            long handle = standaloneInsert(h0, h1, address, length, word, shard);
            stats.standaloneInserts.increment();
            stats.kinds.stored(word);
            return handle;
        }
        context.values.freeGuarded(address, length); // inside the gate
        return InsertOutcome.failed(result, context, shards[shard], shard, charge, keepRef);
    }

    // ---------------------------------------------------------------- standalone entries

    /**
     * An entry outside the table ({@link StandaloneEntries}), returned when the caller wants a
     * handle but the key is already present or the table is full. Its charge was added to the
     * shard's usage by the table insert, which the shard takes back if no record can be had.
     * Runs inside the close gate (see {@link #insertCopied}).
     */
    private long standaloneInsert(long h0, long h1, long valueAddress, int length,
                                  long chargeWord, int shard) {
        return standalone.add(h0, h1, valueAddress, length, chargeWord, shard);
    }

    /**
     * A standalone entry for a loaded value the table insert refused ({@link EngineCache}): the
     * shard charges it beyond capacity, within its usage limit. Inside the close gate, as every
     * insert.
     */
    @Override
    long pinOutsideIndex(long h0, long h1, long address, int length, long charge,
                         Placement placement) {
        int stripe = gate.enter();
        try {
            int shard = shardOf(h0);
            if (!shards[shard].chargeStandalone(charge)) {
                return MISS;
            }
            long chargeWord = ChargeWord.of(charge, placement.kindIndex());
            long handle = standaloneInsert(h0, h1, address, length, chargeWord, shard);
            stats.kinds.stored(chargeWord); // freed with the entry (StandaloneEntries)
            stats.standaloneInserts.increment();
            return handle;
        } finally {
            gate.exit(stripe);
        }
    }

    /**
     * Releases a standalone reference inside the close gate: the last one frees the entry, and
     * once close has begun the call is refused and close frees the entry.
     */
    private boolean releaseStandalone(long handle) {
        int stripe = gate.enter();
        try {
            return standalone.release(handle);
        } finally {
            gate.exit(stripe);
        }
    }

    // ---------------------------------------------------------------- visiting entries

    /**
     * Walks every table in slot order. Each visible entry is referenced as a lookup references it
     * ({@link ClockProtocol#referenceIfVisible}), handed to the visitor, and given back through
     * {@link ClockProtocol#releaseOwn} as not a use: the acquire is taken back, so the entry's
     * clock is as before, and if an erase made the entry invisible meanwhile and ours is the last
     * reference, that release frees it, inside the close gate like every freeing release.
     *
     * <p>Exactly once: entries never move between slots in either table (a fixed table's entry
     * stays in the slot its insert claimed; an Auto table's split relinks chains but never moves
     * an entry), so an entry that stays in the cache throughout sits in one slot, visible, when
     * the walk passes it. An Auto table's walk goes up to its grow frontier, re-read when it gets
     * there; every entry present at the start lies below the frontier read then. A key stored
     * twice (racing inserts, see {@link Cache#insert}) is two entries and is visited twice.
     *
     * <p>No gate around the walk: referencing, reading and a non-freeing release move no
     * ownership, and a racing close stops them with the arena's exception, as it stops lookups;
     * holding the gate would make close wait for the visitor, and a visitor calling close would
     * wait for itself. The closed flag is checked every {@code entriesPerLock} visited entries and
     * at each table, so a visit stops soon after close begins, even while close still drains
     * the gate.
     */
    @Override
    void forEachEntryChecked(EntryVisitor visitor, int entriesPerLock) {
        boolean readsValues = visitor.readsValues();
        int untilCheck = entriesPerLock;
        for (ClockProtocol table : tables) {
            checkOpen();
            long slot = 0;
            for (long end = table.usedSlots() << SlotLayout.SLOT_SHIFT; slot < end;
                    end = table.usedSlots() << SlotLayout.SLOT_SHIFT) {
                for (; slot < end; slot += SlotLayout.SLOT_BYTES) {
                    int stamp = table.referenceIfVisible(slot);
                    if (stamp == 0) {
                        continue;
                    }
                    try {
                        long h0 = SlotLayout.key0(table.slots, slot);
                        long h1 = SlotLayout.key1(table.slots, slot);
                        long address = SlotLayout.valueAddress(table.slots, slot);
                        int length = SlotLayout.valueLength(table.slots, slot);
                        long word = SlotLayout.chargeWord(table.slots, slot);
                        if (table.stillHolds(slot, stamp)) {
                            visitEntry(visitor, readsValues, h0, h1, address, length, word);
                        }
                    } finally {
                        table.releaseOwn(slot, stamp);
                    }
                    if (--untilCheck == 0) {
                        checkOpen();
                        untilCheck = entriesPerLock;
                    }
                }
            }
        }
    }

    /** By countdown, highest first: {@link ClockDumpWalk}. */
    @Override
    void dumpEntries(DumpWriter writer) throws IOException {
        ClockDumpWalk.dump(tables, writer, context.all(), hashSeed, this::checkOpen);
    }

    @Override
    int dumpOrder() {
        return DumpFormat.ORDER_CLOCK;
    }

    /** Erases as the walk goes: a HyperClock visitor may erase ({@link KeySweep}). */
    @Override
    long eraseMatching(KeyPredicate predicate) {
        return KeySweep.eraseWhileVisiting(this, predicate);
    }

    // ---------------------------------------------------------------- erase, capacity, stats

    @Override
    boolean eraseHashed(long h0, long h1) {
        int stripe = gate.enter(); // erasing frees values: see insertCopied
        try {
            return tables[shardOf(h0)].erase(h0, h1);
        } finally {
            gate.exit(stripe);
        }
    }

    /** Native bytes of standalone entries' records, values not included (0 until the first). */
    long standaloneRecordBytes() {
        return standalone.recordBytes();
    }

    /**
     * Bytes charged by standalone entries (included in {@link #usage()}).
     *
     * @return the charges of the standalone entries alive now, in bytes
     */
    public long standaloneUsage() {
        return ShardSizing.sumOverShards(shards, ClockShard::standaloneUsage);
    }

    /**
     * Most entries the tables accept at their current size: beyond it an insert must first evict
     * to free a slot (fixed tables), or grow the table (Auto tables, up to their reservation).
     *
     * @return the sum of the shards' occupancy limits, in entries
     */
    public long occupancyLimit() {
        return ShardSizing.sumOverShards(shards, ClockShard::occupancyLimit);
    }

    /**
     * Slots in use in all tables together: every slot of a fixed table; an Auto table's slots up
     * to its grow frontier (its reservation may hold more).
     *
     * @return the number of slots in use, over all shards
     */
    public long tableSlots() {
        return ShardSizing.sumOverShards(shards, ClockShard::usedSlots);
    }

    /**
     * Scans every slot of every shard for RocksDB-style occupancy diagnostics (see
     * {@link TableReport} for how windows and runs are aggregated over shards). Each slot's meta
     * word is read once, without locking or stopping writers, so under concurrent use the result
     * is an approximation, as RocksDB's is: a slot may be counted before or after a racing insert
     * or eviction, and the totals need not match {@link #entryCount()}. Costs one pass over the
     * tables (64 bytes per slot).
     *
     * @return the occupancy statistics of all tables
     * @throws IllegalStateException if the cache is closed
     */
    public TableReport tableReport() {
        checkOpen();
        long smallest = Long.MAX_VALUE;
        for (ClockShard shard : shards) {
            smallest = Math.min(smallest, shard.usedSlots());
        }
        int window = (int) Math.min(TableReport.DEFAULT_WINDOW, smallest);
        long slots = 0;
        long occupied = 0;
        long minWindow = window;
        long maxWindow = 0;
        long maxOccupiedRun = 0;
        long maxEmptyRun = 0;
        for (ClockShard shard : shards) {
            OccupancyScan scan = shard.scanOccupancy(window);
            slots += shard.usedSlots();
            occupied += scan.occupied;
            minWindow = Math.min(minWindow, scan.minWindowOccupied);
            maxWindow = Math.max(maxWindow, scan.maxWindowOccupied);
            maxOccupiedRun = Math.max(maxOccupiedRun, scan.maxOccupiedRun);
            maxEmptyRun = Math.max(maxEmptyRun, scan.maxEmptyRun);
        }
        return new TableReport(slots, occupied, window, minWindow, maxWindow, maxOccupiedRun,
                maxEmptyRun, stats.evictionEffortExceeded.sum());
    }

    @Override
    void beforeArenaClose() {
        gate.shutAndDrain();
    }

    @Override
    void freeOutsideShards() {
        standalone.freeAll();
    }
}
