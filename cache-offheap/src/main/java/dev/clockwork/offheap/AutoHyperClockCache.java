package dev.clockwork.offheap;

import dev.clockwork.cache.admission.Admission;
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
 * try (AutoHyperClockCache cache = HyperClockCache.builder()
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

    /**
     * Builds the cache {@code options} describe ({@link HyperClockCache.Builder#build()}, which
     * has validated them).
     */
    static AutoHyperClockCache build(HyperClockCache.Builder options) {
        BuilderSettings o = options.settings;
        int shardBits = options.shardBits();
        CacheContext context =
                new CacheContext(o.recordStats, o.kindCounts(), "AutoHyperClockCache");
        CloseGate gate = new CloseGate();
        // Every shard has the same capacity, so reserves the same slots: what it can hold.
        long shardSlots = AutoClockTable.maxSlots(
                perShardCapacity(o.capacity, options.shardCount()),
                o.minAvgEntryCharge, o.chargeMetadata, shardBits);
        Admission admission = o.admissionFor(false, shardSlots << shardBits);
        ClockShard[] shards = options.makeShards(context, gate, admission,
                shardContext -> ClockShard.auto(shardSlots, shardContext));
        return new AutoHyperClockCache(context, gate, shards, o.capacity, o.hashSeed, admission);
    }
}
