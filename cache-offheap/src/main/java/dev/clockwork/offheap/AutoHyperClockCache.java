package dev.clockwork.offheap;

import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.clock.AutoClockTable;
import dev.clockwork.offheap.clock.ClockProtocol;
import dev.clockwork.offheap.clock.ClockShard;
import dev.clockwork.offheap.clock.SlotLayout;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CloseGate;

/**
 * HyperClockCache over tables that grow as entries arrive ({@link AutoClockTable}): no estimate of
 * the entry size is needed. Each shard reserves address space for the most entries its capacity
 * could hold (entries of {@code minAvgEntryCharge} bytes), with {@code mmap(MAP_NORESERVE)}, and
 * only the part in use becomes resident; the table grows one slot at a time, by linear hashing,
 * while lookups and inserts go on.
 *
 * <pre>{@code
 * try (var cache = AutoHyperClockCache.builder()
 *         .capacity(1L << 30)
 *         .build()) {
 *     ...
 * }
 * }</pre>
 */
public final class AutoHyperClockCache extends HyperClockCache {

    private AutoHyperClockCache(CacheContext context, CloseGate gate, ClockShard[] shards,
                                long capacity, long hashSeed, Admission admission) {
        super(context, gate, shards, capacity, hashSeed, admission);
    }

    /**
     * A builder with every option at its default; only the capacity must be set.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder(new BuilderSettings());
    }

    /**
     * Bytes of address space the tables reserve (resident or not).
     *
     * @return the reservation of all shards' tables together, in bytes, fixed when the cache is
     *     built (64 bytes per slot the tables may grow to)
     */
    public long reservedBytes() {
        long sum = 0;
        for (ClockProtocol table : tables) {
            sum += table.slotCount * SlotLayout.SLOT_BYTES;
        }
        return sum;
    }

    /**
     * Walks every chain of every shard (without locks, so approximately under concurrent use):
     * how full the heads are, how many entries sit in their home slot, the longest chain, and how
     * often threads had to wait for each other.
     *
     * @return the statistics, summed (longest chain: the maximum) over the shards
     * @throws IllegalStateException if the cache is closed
     */
    public ChainReport chainReport() {
        checkOpen();
        long homes = 0;
        long nonEmpty = 0;
        long entries = 0;
        long atHome = 0;
        long longest = 0;
        for (ClockProtocol table : tables) {
            AutoClockTable.ChainScan scan = ((AutoClockTable) table).scanChains();
            homes += scan.homes;
            nonEmpty += scan.nonEmptyHeads;
            entries += scan.entries;
            atHome += scan.entriesAtHome;
            longest = Math.max(longest, scan.maxChainLength);
        }
        return new ChainReport(homes, nonEmpty, entries, atHome, longest,
                context.stats.yields.sum(), context.stats.lookupRestarts.sum(), reservedBytes());
    }

    /** Options of an {@link AutoHyperClockCache}; {@link #build()} validates them all. */
    public static final class Builder extends HyperClockOptions<Builder> {

        /** A builder over {@code settings}, shared with the builder that made this one. */
        Builder(BuilderSettings settings) {
            super(settings);
        }

        /**
         * The smallest average entry charge the reservation must allow for (default 450, as in
         * RocksDB), at least 1: the tables reserve room for capacity / this many entries. Smaller
         * values cost only address space; if entries are smaller on average, the table stops
         * growing and inserts evict to free slots, leaving part of the capacity unused.
         *
         * <p>The reservation is bounded whatever the capacity: all shards together reserve at
         * most 128 GiB (2^31 slots of 64 bytes, all that handles can name; room for about 1.3
         * billion entries; at the default charge, a capacity of about 670 GiB), an even share
         * each. So {@code capacity(Long.MAX_VALUE)} builds a cache that maps 128 GiB of address
         * space (resident only as used) and evicts for slots once its tables are full.
         *
         * @param bytes the smallest average charge to reserve slots for, in bytes, {@code >= 1}
         *     ({@link #validate()} refuses less)
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
            int shardBits = shardBits();
            CacheContext context = new CacheContext(settings.recordStats, settings.kindCounts(),
                    "AutoHyperClockCache");
            CloseGate gate = new CloseGate();
            BuilderSettings o = settings;
            // Every shard has the same capacity, so reserves the same slots: what it can hold.
            long shardSlots = AutoClockTable.maxSlots(perShardCapacity(o.capacity, shardCount()),
                    o.minAvgEntryCharge, o.chargeMetadata, shardBits);
            Admission admission = o.admissionFor(false, shardSlots << shardBits);
            ClockShard[] shards = makeShards(context, gate, admission,
                    shardContext -> ClockShard.auto(shardSlots, shardContext));
            return new AutoHyperClockCache(context, gate, shards, o.capacity, o.hashSeed,
                    admission);
        }
    }
}
