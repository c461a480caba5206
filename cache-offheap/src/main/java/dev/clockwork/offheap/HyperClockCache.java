package dev.clockwork.offheap;

import static dev.clockwork.offheap.ClockMeta.ACQUIRE_ONE;
import static dev.clockwork.offheap.ClockMeta.RELEASE_ONE;
import static dev.clockwork.offheap.ClockMeta.isShareable;
import static dev.clockwork.offheap.ClockMeta.refCount;

import dev.clockwork.cache.Admission;
import dev.clockwork.cache.Args;
import dev.clockwork.cache.Cache;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.hash.KeyHash;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import org.agrona.collections.LongHashSet;

/**
 * A sharded cache over {@link ClockTable}s: the HyperClock protocol of RocksDB's
 * HyperClockCache over off-heap memory. Keys are hashed with a seeded bijection
 * ({@link KeyHash}), so distinct keys never share a hashed key; the upper half of the first hash
 * word picks the shard.
 *
 * <h2>Handles</h2>
 * See {@link ClockHandle}: a table handle names a slot and the generation of the entry in it,
 * salted per cache, and is bounds- and generation-checked on every use; a standalone handle must
 * be registered to be used. So made-up, stale and foreign handles throw instead of reading or
 * releasing an entry that is not theirs (up to the generation's wrap-around, see ClockHandle).
 *
 * <h2>Close</h2>
 * Calls that hand values over or free them (inserts, erases, the release that frees an entry) run
 * inside a {@link CloseGate}, which close shuts and drains before it closes the arena; lookups,
 * plain releases and value reads only race the arena, which stops them with an exception. What
 * close then frees: every slot's value by its address ({@link ClockTable#freeAll}), including a
 * slot a release took but could not free, and every registered standalone entry. See
 * {@link NativeCache#close()} for the contract.
 */
public abstract class HyperClockCache extends NativeCache {
    static final long STANDALONE_TAG = ClockHandle.STANDALONE_TAG;
    /** Standalone slots are private until registered, and freed unregistered: no arena scope. */
    private static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private static final VarHandle LONG = ClockTable.LONG;

    final ClockTable[] tables;
    private final int shardMask;
    /** Mixed into every table handle's generation, so that another cache's handles fail. */
    private final int handleSalt = ThreadLocalRandom.current().nextInt();
    /** Live standalone slots; also close's list of them. Guarded by itself. */
    private final LongHashSet standalone = new LongHashSet();

    HyperClockCache(CacheMemory memory, ClockTable[] tables, long capacity, long hashSeed,
                    Admission admission) {
        super(memory, capacity, hashSeed, admission);
        this.tables = tables;
        this.shardMask = tables.length - 1;
    }

    /**
     * A builder that picks the table as RocksDB does: {@link FixedHyperClockCache} when an
     * estimated entry charge is given, {@link AutoHyperClockCache} otherwise (the default).
     */
    public static Builder newBuilder() {
        return new Builder();
    }

    /** Options of either HyperClock cache; {@link #build()} picks the table. */
    public static final class Builder extends HyperClockOptions<Builder> {
        private long estimatedEntryCharge;
        private long minAvgEntryCharge = AutoClockTable.DEFAULT_MIN_AVG_ENTRY_CHARGE;

        private Builder() {
        }

        /**
         * Expected average charge per entry; 0 (default) means unknown and builds an
         * {@link AutoHyperClockCache}, a positive value a {@link FixedHyperClockCache} sized for it.
         */
        public Builder estimatedEntryCharge(long bytes) {
            this.estimatedEntryCharge = bytes;
            return this;
        }

        /** See {@link AutoHyperClockCache.Builder#minAvgEntryCharge}; Auto only. */
        public Builder minAvgEntryCharge(long bytes) {
            this.minAvgEntryCharge = bytes;
            return this;
        }

        @Override
        public void validate() {
            target().validate();
        }

        @Override
        public HyperClockCache build() {
            return target().build();
        }

        /** The builder of the table this one picks, with every option passed on. */
        private HyperClockOptions<?> target() {
            Args.requireInRange("estimatedEntryCharge", estimatedEntryCharge, 0, Long.MAX_VALUE);
            HyperClockOptions<?> target = estimatedEntryCharge > 0
                    ? FixedHyperClockCache.builder().estimatedEntryCharge(estimatedEntryCharge)
                    : AutoHyperClockCache.builder().minAvgEntryCharge(minAvgEntryCharge);
            target.capacity(capacity).numShardBits(numShardBits)
                    .strictCapacityLimit(strictCapacityLimit).evictionEffortCap(evictionEffortCap)
                    .chargeMetadata(chargeMetadata).hashSeed(hashSeed).recordStats(recordStats)
                    .admission(admission);
            return target;
        }
    }

    // ---------------------------------------------------------------- hashing and handles

    private int shardOf(long h0) {
        return (int) (h0 >>> 32) & shardMask;
    }

    /** The handle of a slot we hold a reference on (so its generation is stable). */
    private long tableHandle(int shard, long slot) {
        return ClockHandle.table(shard, slot >>> SlotLayout.SLOT_SHIFT,
                SlotLayout.generation(tables[shard].flags(slot)), handleSalt);
    }

    private static boolean isStandalone(long handle) {
        return ClockHandle.isStandalone(handle);
    }

    /** The table of a table handle whose shard and slot are in bounds; throws otherwise. */
    private ClockTable tableOf(long handle) {
        int shard = ClockHandle.shard(handle);
        if (!ClockHandle.isTable(handle) || shard > shardMask
                || ClockHandle.slotIndex(handle) >= tables[shard].slotCount) {
            throw notOurs(handle);
        }
        return tables[shard];
    }

    private static long slotOf(long handle) {
        return ClockHandle.slotIndex(handle) << SlotLayout.SLOT_SHIFT;
    }

    /** The slot of a table handle that names the entry its slot holds now; throws otherwise. */
    private long checkedSlot(ClockTable table, long handle) {
        long slot = slotOf(handle);
        if (!ClockHandle.names(handle, table.flags(slot), handleSalt)) {
            throw stale(handle);
        }
        return slot;
    }

    private static IllegalArgumentException notOurs(long handle) {
        return new IllegalArgumentException("handle " + handle + " does not belong to this cache");
    }

    private static IllegalStateException stale(long handle) {
        return new IllegalStateException("handle " + handle + " is stale (its entry was released"
                + " and freed) or from another cache");
    }

    // ---------------------------------------------------------------- lookup and release

    @Override
    long lookupHashed(long h0, long h1) {
        int shard = shardOf(h0);
        long slot = tables[shard].lookup(h0, h1);
        return slot < 0 ? MISS : tableHandle(shard, slot);
    }

    @Override
    public boolean release(long handle, boolean eraseIfLastRef) {
        checkOpen();
        if (isStandalone(handle)) {
            return releaseStandalone(handle);
        }
        ClockTable table = tableOf(handle);
        return table.release(checkedSlot(table, handle), true, eraseIfLastRef,
                ClockHandle.generation(handle, handleSalt));
    }

    @Override
    public void ref(long handle) {
        checkOpen();
        if (isStandalone(handle)) {
            long address = standaloneAddress(handle);
            long old = (long) LONG.getAndAdd(memory.all(), address, ACQUIRE_ONE);
            if (refCount(old) == 0) {
                throw new IllegalStateException("standalone handle " + handle + " is not pinned");
            }
            return;
        }
        ClockTable table = tableOf(handle);
        table.ref(checkedSlot(table, handle));
    }

    // ---------------------------------------------------------------- values through handles

    @Override
    long recordAddress(long handle) {
        if (isStandalone(handle)) {
            return standaloneAddress(handle); // registered, else it could name any memory
        }
        return tableOf(handle).rawAddress + slotOf(handle);
    }

    @Override
    void checkRecord(long handle, long lengthWord) {
        // The length word's high half is the slot's flags word (SlotLayout): check the generation
        // of table handles (recordAddress bounds-checked their slot, which is never freed).
        if (!isStandalone(handle) && !ClockHandle.names(handle, (int) (lengthWord >>> 32),
                handleSalt)) {
            throw stale(handle);
        }
    }

    // ---------------------------------------------------------------- insert

    @Override
    long insertCopied(long h0, long h1, long address, int length, long charge, Priority priority,
                      boolean keepRef) {
        // Inside the gate close cannot stop us half way, holding a value it cannot see.
        int stripe = memory.gate.enter();
        try {
            return insertInGate(h0, h1, address, length, charge, priority, keepRef);
        } finally {
            memory.gate.exit(stripe);
        }
    }

    private long insertInGate(long h0, long h1, long address, int length, long charge,
                              Priority priority, boolean keepRef) {
        int shard = shardOf(h0);
        long result = tables[shard].insert(h0, h1, address, length, charge,
                ClockMeta.initialCountdown(priority), keepRef);
        if (result >= 0) {
            stats.inserts.increment();
            return keepRef ? tableHandle(shard, result) : 1;
        }
        if (result == ClockTable.INSERT_STANDALONE) {
            long handle = standaloneInsert(h0, h1, address, length, charge, shard);
            stats.standaloneInserts.increment();
            return handle;
        }
        NativeMemory.free(address, length);
        if (result == ClockTable.INSERT_REFUSED) {
            stats.memoryLimitRejects.increment();
            return MISS;
        }
        return keepRef ? MISS : 1; // dropped: as if inserted and evicted at once
    }

    // ---------------------------------------------------------------- standalone entries

    /**
     * An entry outside the table, returned when the caller wants a handle but the key is already
     * present or the table is full. Born invisible with one reference; freed by its last release.
     * Its charge was added to the shard's usage by the table insert.
     *
     * <p>The slot is private until it is registered, so it is filled through unscoped memory.
     * Runs inside the close gate (see {@link #insertCopied}).
     */
    private long standaloneInsert(long h0, long h1, long valueAddress, int length, long charge,
                                  int shard) {
        long slot;
        try {
            slot = NativeMemory.allocateAligned(SlotLayout.SLOT_BYTES, SlotLayout.SLOT_BYTES);
        } catch (OutOfMemoryError e) {
            tables[shard].addUsage(-charge); // undo the table insert's charge: nothing stored
            throw e;
        }
        RAW.set(ValueLayout.JAVA_LONG, SlotLayout.key0Offset(slot), h0);
        RAW.set(ValueLayout.JAVA_LONG, SlotLayout.key1Offset(slot), h1);
        RAW.set(ValueLayout.JAVA_LONG, SlotLayout.valueAddressOffset(slot), valueAddress);
        RAW.set(ValueLayout.JAVA_LONG, SlotLayout.chargeOffset(slot), charge);
        RAW.set(ValueLayout.JAVA_INT, SlotLayout.valueLengthOffset(slot), length);
        RAW.set(ValueLayout.JAVA_INT, SlotLayout.flagsOffset(slot),
                SlotLayout.FLAG_STANDALONE | shard);
        // Plain is enough: registering (a monitor) publishes the slot to other threads.
        RAW.set(ValueLayout.JAVA_LONG, SlotLayout.metaOffset(slot),
                ClockMeta.INVISIBLE_STATE | ACQUIRE_ONE);
        synchronized (standalone) {
            standalone.add(slot);
        }
        tables[shard].standaloneUsage.addAndGet(charge);
        return ClockHandle.standalone(slot);
    }

    private long standaloneAddress(long handle) {
        long slot = ClockHandle.standaloneAddress(handle);
        synchronized (standalone) {
            if (!standalone.contains(slot)) {
                throw new IllegalStateException(
                        "standalone handle " + handle + " is not pinned (released, or not ours)");
            }
        }
        return slot;
    }

    /**
     * Releases a standalone reference; the last one frees the entry, inside the close gate: if
     * close has begun, the slot stays registered and close frees it.
     */
    private boolean releaseStandalone(long handle) {
        long slot = standaloneAddress(handle);
        MemorySegment all = memory.all();
        long old = (long) LONG.getAndAddRelease(all, slot, RELEASE_ONE);
        if (!isShareable(old) || refCount(old) == 0) {
            throw new IllegalStateException("standalone handle " + handle + " is not pinned");
        }
        if (refCount(old + RELEASE_ONE) != 0) {
            return false;
        }
        long current = old + RELEASE_ONE;
        if ((long) LONG.compareAndExchange(all, slot, current, ClockMeta.UNDER_CONSTRUCTION)
                != current) {
            return false; // re-referenced meanwhile; its last release frees it
        }
        int stripe = memory.gate.enter();
        try {
            long charge = all.get(ValueLayout.JAVA_LONG, SlotLayout.chargeOffset(slot));
            int shard = all.get(ValueLayout.JAVA_INT, SlotLayout.flagsOffset(slot))
                    & SlotLayout.FLAG_SHARD_MASK;
            NativeMemory.free(all.get(ValueLayout.JAVA_LONG, SlotLayout.valueAddressOffset(slot)),
                    all.get(ValueLayout.JAVA_INT, SlotLayout.valueLengthOffset(slot)));
            synchronized (standalone) {
                standalone.remove(slot);
            }
            NativeMemory.free(slot, SlotLayout.SLOT_BYTES);
            tables[shard].standaloneUsage.addAndGet(-charge);
            tables[shard].addUsage(-charge);
        } finally {
            memory.gate.exit(stripe);
        }
        return true;
    }

    // ---------------------------------------------------------------- visiting entries

    /**
     * Walks every table in slot order. Each visible entry is referenced as a lookup references it
     * ({@link ClockTable#referenceIfVisible}), handed to the visitor, and released through
     * {@link ClockTable#release} as not useful: the acquire is taken back, so the entry's clock is
     * as before, and if an erase made the entry invisible meanwhile and ours is the last
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
        for (ClockTable table : tables) {
            checkOpen();
            long slot = 0;
            for (long end = table.usedSlots() << SlotLayout.SLOT_SHIFT; slot < end;
                    end = table.usedSlots() << SlotLayout.SLOT_SHIFT) {
                for (; slot < end; slot += SlotLayout.SLOT_BYTES) {
                    int generation = table.referenceIfVisible(slot);
                    if (generation < 0) {
                        continue;
                    }
                    try {
                        visitEntry(visitor, readsValues, table.key0(slot), table.key1(slot),
                                table.valueAddress(slot), table.valueLength(slot),
                                table.charge(slot));
                    } finally {
                        table.release(slot, false, false, generation);
                    }
                    if (--untilCheck == 0) {
                        checkOpen();
                        untilCheck = entriesPerLock;
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- erase, capacity, stats

    @Override
    boolean eraseHashed(long h0, long h1) {
        int stripe = memory.gate.enter(); // erasing frees values: see insertCopied
        try {
            return tables[shardOf(h0)].erase(h0, h1);
        } finally {
            memory.gate.exit(stripe);
        }
    }

    @Override
    void applyCapacity(long capacity) {
        long perShard = perShardCapacity(capacity, tables.length);
        for (ClockTable table : tables) {
            table.setCapacity(perShard);
        }
    }

    @Override
    public long usage() {
        long sum = 0;
        for (ClockTable table : tables) {
            sum += table.usage();
        }
        return sum;
    }

    @Override
    public long pinnedUsage() {
        checkOpen();
        long sum = standaloneUsage();
        for (ClockTable table : tables) {
            sum += table.pinnedUsage();
        }
        return sum;
    }

    /** Bytes charged by standalone entries (included in {@link #usage()}). */
    public long standaloneUsage() {
        long sum = 0;
        for (ClockTable table : tables) {
            sum += table.standaloneUsage.get();
        }
        return sum;
    }

    @Override
    public boolean strictCapacityLimit() {
        return tables[0].strict();
    }

    @Override
    public void setStrictCapacityLimit(boolean strict) {
        checkOpen();
        for (ClockTable table : tables) {
            table.setStrict(strict);
        }
    }

    @Override
    public long entryCount() {
        long sum = 0;
        for (ClockTable table : tables) {
            sum += table.occupancy();
        }
        return sum;
    }

    /**
     * Most entries the tables accept at their current size: beyond it an insert must first evict
     * to free a slot (fixed tables), or grow the table (Auto tables, up to their reservation).
     */
    public long occupancyLimit() {
        long sum = 0;
        for (ClockTable table : tables) {
            sum += table.occupancyLimit();
        }
        return sum;
    }

    /**
     * Slots in use in all tables together: every slot of a fixed table; an Auto table's slots up
     * to its grow frontier (its reservation may hold more).
     */
    public long tableSlots() {
        long sum = 0;
        for (ClockTable table : tables) {
            sum += table.usedSlots();
        }
        return sum;
    }

    public int numShards() {
        return tables.length;
    }

    /**
     * Scans every slot of every shard for RocksDB-style occupancy diagnostics (see
     * {@link TableReport} for how windows and runs are aggregated over shards). Each slot's meta
     * word is read once, without locking or stopping writers, so under concurrent use the result
     * is an approximation, as RocksDB's is: a slot may be counted before or after a racing insert
     * or eviction, and the totals need not match {@link #entryCount()}. Costs one pass over the
     * tables (64 bytes per slot).
     */
    public TableReport tableReport() {
        checkOpen();
        long smallest = Long.MAX_VALUE;
        for (ClockTable table : tables) {
            smallest = Math.min(smallest, table.usedSlots());
        }
        int window = (int) Math.min(TableReport.DEFAULT_WINDOW, smallest);
        long slots = 0;
        long occupied = 0;
        long minWindow = window;
        long maxWindow = 0;
        long maxOccupiedRun = 0;
        long maxEmptyRun = 0;
        for (ClockTable table : tables) {
            ClockTable.OccupancyScan scan = table.scanOccupancy(window);
            slots += table.usedSlots();
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
    void freeAllNative() {
        for (ClockTable table : tables) {
            table.freeAll();
        }
        synchronized (standalone) {
            var it = standalone.iterator();
            while (it.hasNext()) {
                long slot = it.nextValue();
                NativeMemory.free(RAW.get(ValueLayout.JAVA_LONG, SlotLayout.valueAddressOffset(slot)),
                        RAW.get(ValueLayout.JAVA_INT, SlotLayout.valueLengthOffset(slot)));
                NativeMemory.free(slot, SlotLayout.SLOT_BYTES);
            }
            standalone.clear();
        }
    }
}
