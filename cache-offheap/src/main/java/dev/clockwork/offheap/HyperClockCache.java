package dev.clockwork.offheap;

import static dev.clockwork.offheap.ClockMeta.ACQUIRE_ONE;
import static dev.clockwork.offheap.ClockMeta.RELEASE_ONE;
import static dev.clockwork.offheap.ClockMeta.isShareable;
import static dev.clockwork.offheap.ClockMeta.refCount;

import dev.clockwork.cache.Admission;
import dev.clockwork.cache.Args;
import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.hash.KeyHash;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.agrona.collections.LongHashSet;

/**
 * A sharded cache over {@link ClockTable}s: the HyperClock protocol of RocksDB's
 * HyperClockCache over off-heap memory. Keys are hashed with a seeded bijection
 * ({@link KeyHash}), so distinct keys never share a hashed key; the upper half of the first hash
 * word picks the shard.
 *
 * <h2>Handles</h2>
 * <pre>
 *  table entry:      0 | 0 ... 0 (13 bits, reserved) | 1 | shard (16) | slot index (32)
 *  standalone entry: 0 | 1 | native address of the standalone slot (62)
 * </pre>
 * Table handles are bounds-checked on use, so a handle from another cache or a made-up number
 * fails with an exception; a standalone handle must be registered to be used.
 */
public abstract class HyperClockCache extends NativeCache {
    static final long TABLE_TAG = 1L << 48;
    static final long STANDALONE_TAG = 1L << 62;
    private static final long SHARD_MASK_IN_HANDLE = 0xFFFFL;
    private static final long TABLE_HANDLE_BITS = TABLE_TAG | 0xFFFF_FFFF_FFFFL;

    private static final VarHandle LONG = ClockTable.LONG;

    final ClockTable[] tables;
    private final int shardMask;
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

        public HyperClockCache build() {
            Args.requireInRange("estimatedEntryCharge", estimatedEntryCharge, 0, Long.MAX_VALUE);
            HyperClockOptions<?> target = estimatedEntryCharge > 0
                    ? FixedHyperClockCache.builder().estimatedEntryCharge(estimatedEntryCharge)
                    : AutoHyperClockCache.builder().minAvgEntryCharge(minAvgEntryCharge);
            target.capacity(capacity).numShardBits(numShardBits)
                    .strictCapacityLimit(strictCapacityLimit).evictionEffortCap(evictionEffortCap)
                    .chargeMetadata(chargeMetadata).hashSeed(hashSeed).recordStats(recordStats)
                    .admission(admission);
            return target instanceof FixedHyperClockCache.Builder fixed ? fixed.build()
                    : ((AutoHyperClockCache.Builder) target).build();
        }
    }

    // ---------------------------------------------------------------- hashing and handles

    private int shardOf(long h0) {
        return (int) (h0 >>> 32) & shardMask;
    }

    private static long tableHandle(int shard, long slot) {
        return TABLE_TAG | ((long) shard << 32) | (slot >>> SlotLayout.SLOT_SHIFT);
    }

    private static boolean isStandalone(long handle) {
        return (handle & STANDALONE_TAG) != 0;
    }

    private ClockTable tableOf(long handle) {
        int shard = (int) ((handle >>> 32) & SHARD_MASK_IN_HANDLE);
        if ((handle & ~TABLE_HANDLE_BITS) != 0 || (handle & TABLE_TAG) == 0 || shard > shardMask
                || (handle & 0xFFFF_FFFFL) >= tables[shard].slotCount) {
            throw new IllegalArgumentException("handle " + handle + " does not belong to this cache");
        }
        return tables[shard];
    }

    private static long slotOf(long handle) {
        return (handle & 0xFFFF_FFFFL) << SlotLayout.SLOT_SHIFT;
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
        return tableOf(handle).release(slotOf(handle), true, eraseIfLastRef);
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
        tableOf(handle).ref(slotOf(handle));
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
        // Nothing more to check: recordAddress bounds-checked the slot, and a slot is never freed.
    }

    // ---------------------------------------------------------------- insert

    @Override
    long insertCopied(long h0, long h1, long address, int length, long charge, Priority priority,
                      boolean keepRef) {
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
        MemorySegment all = memory.all();
        all.set(ValueLayout.JAVA_LONG, SlotLayout.key0Offset(slot), h0);
        all.set(ValueLayout.JAVA_LONG, SlotLayout.key1Offset(slot), h1);
        all.set(ValueLayout.JAVA_LONG, SlotLayout.valueAddressOffset(slot), valueAddress);
        all.set(ValueLayout.JAVA_LONG, SlotLayout.chargeOffset(slot), charge);
        all.set(ValueLayout.JAVA_INT, SlotLayout.valueLengthOffset(slot), length);
        all.set(ValueLayout.JAVA_INT, SlotLayout.flagsOffset(slot),
                SlotLayout.FLAG_STANDALONE | shard);
        LONG.setRelease(all, SlotLayout.metaOffset(slot), ClockMeta.INVISIBLE_STATE | ACQUIRE_ONE);
        tables[shard].standaloneUsage.addAndGet(charge);
        synchronized (standalone) {
            standalone.add(slot);
        }
        return STANDALONE_TAG | slot;
    }

    private long standaloneAddress(long handle) {
        long slot = handle & ~STANDALONE_TAG;
        synchronized (standalone) {
            if (!standalone.contains(slot)) {
                throw new IllegalStateException(
                        "standalone handle " + handle + " is not pinned (released, or not ours)");
            }
        }
        return slot;
    }

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
        synchronized (standalone) {
            standalone.remove(slot);
        }
        long charge = all.get(ValueLayout.JAVA_LONG, SlotLayout.chargeOffset(slot));
        int shard = all.get(ValueLayout.JAVA_INT, SlotLayout.flagsOffset(slot))
                & SlotLayout.FLAG_SHARD_MASK;
        freeStandalone(all, slot);
        tables[shard].standaloneUsage.addAndGet(-charge);
        tables[shard].addUsage(-charge);
        return true;
    }

    /** Frees a standalone slot and its value, read through {@code view} (all memory). */
    private static void freeStandalone(MemorySegment view, long slot) {
        NativeMemory.free(view.get(ValueLayout.JAVA_LONG, SlotLayout.valueAddressOffset(slot)),
                view.get(ValueLayout.JAVA_INT, SlotLayout.valueLengthOffset(slot)));
        NativeMemory.free(slot, SlotLayout.SLOT_BYTES);
    }

    // ---------------------------------------------------------------- erase, capacity, stats

    @Override
    boolean eraseHashed(long h0, long h1) {
        return tables[shardOf(h0)].erase(h0, h1);
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
        MemorySegment raw = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
        synchronized (standalone) {
            var it = standalone.iterator();
            while (it.hasNext()) {
                freeStandalone(raw, it.nextValue());
            }
            standalone.clear();
        }
    }
}
