package dev.clockwork.offheap;

import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.clock.ClockShard;
import dev.clockwork.offheap.clock.FixedClockTable;
import dev.clockwork.offheap.clock.SlotLayout;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CloseGate;
import java.util.Locale;

/**
 * HyperClockCache over fixed-size open-addressing tables ({@link FixedClockTable}), sized once
 * from the capacity and an estimate of the average entry charge. The estimate matters: too high
 * and the table runs out of slots before the capacity is used (inserts then evict to free
 * slots); too low and slots are wasted (64 bytes each).
 *
 * <pre>{@code
 * try (FixedHyperClockCache cache = HyperClockCache.builder()
 *         .capacity(1L << 30)
 *         .estimatedEntryCharge(8192)
 *         .build()) {
 *     ...
 * }
 * }</pre>
 */
public final class FixedHyperClockCache extends HyperClockCache {
    private FixedHyperClockCache(CacheContext context, CloseGate gate, ClockShard[] shards,
                                 long capacity, long hashSeed, Admission admission) {
        super(context, gate, shards, capacity, hashSeed, admission);
    }

    /**
     * Advice on {@code estimatedEntryCharge} when the table size, not the capacity, is what bounds
     * the cache, in the manner of RocksDB's {@code FixedHyperClockCache::ReportProblems}; null
     * when there is nothing to say.
     *
     * <p>Only shards "at limit" are judged: those using at least 80% of their capacity for entries
     * or holding at least 95% of their occupancy limit. Usage and capacity here leave out the
     * charged table metadata and standalone entries. For each such shard the load factor it would
     * reach if filled to capacity is extrapolated from its current occupancy and usage; the sum
     * over them divided by the number of all shards is the predicted average.
     * <ul>
     *   <li>Above {@link FixedClockTable#LOAD_FACTOR}: the shards that would exceed
     *       {@link FixedClockTable#STRICT_LOAD_FACTOR} lose capacity to full tables. If that loss
     *       exceeds 1% of the whole capacity, the estimate is too high; the advice names the loss
     *       and recommends the smallest average entry charge seen in a shard at limit. (RocksDB
     *       reports losses between 1% and 10% only now and then; here always.)</li>
     *   <li>Below half of the load factor, with every shard at limit also below it and the average
     *       below half the load factor / sqrt 2: the estimate is too low (the table is mostly empty
     *       slots); the advice recommends the same smallest average charge.</li>
     * </ul>
     * Reads the counters without stopping writers, so it is approximate under concurrent use.
     *
     * @return one line of advice naming a recommended {@code estimatedEntryCharge}, or
     *     {@code null}
     */
    public String entryChargeRecommendation() {
        int shardCount = shards.length;
        double sumLoadFactor = 0;
        double maxLoadFactor = 0;
        double lostPortion = 0;
        int overCount = 0;
        int atLimit = 0;
        long recommendation = Long.MAX_VALUE;
        for (ClockShard shard : shards) {
            long metadata = shard.metadataCharge();
            long usage = shard.usage() - shard.standaloneUsage() - metadata;
            long capacity = shard.capacity() - metadata;
            long occupancy = shard.occupancy();
            if (usage <= 0 || occupancy <= 0 || capacity <= 0) {
                continue;
            }
            double usageRatio = (double) usage / capacity;
            double occupancyRatio = (double) occupancy / shard.occupancyLimit();
            if (usageRatio < 0.8 && occupancyRatio < 0.95) {
                continue; // neither full nor out of slots: says little about the estimate
            }
            // The occupancy at full capacity, as a load factor.
            double loadFactor = occupancyRatio / usageRatio * FixedClockTable.STRICT_LOAD_FACTOR;
            atLimit++;
            sumLoadFactor += loadFactor;
            maxLoadFactor = Math.max(maxLoadFactor, loadFactor);
            if (loadFactor > FixedClockTable.STRICT_LOAD_FACTOR) {
                overCount++;
                lostPortion += (loadFactor - FixedClockTable.STRICT_LOAD_FACTOR) / loadFactor
                        / shardCount;
            }
            recommendation = Math.min(recommendation, usage / occupancy);
        }
        if (atLimit == 0) {
            return null;
        }
        double averageLoadFactor = sumLoadFactor / shardCount;
        double lowLoadFactor = FixedClockTable.LOAD_FACTOR / 2;
        if (averageLoadFactor > FixedClockTable.LOAD_FACTOR) {
            if (lostPortion <= 0.01) {
                return null;
            }
            return String.format(Locale.ROOT,
                    "FixedHyperClockCache: about %.1f%% of the capacity cannot be used because"
                            + " %d/%d shards have run out of slots (estimatedEntryCharge is too"
                            + " high). Recommend estimatedEntryCharge=%d",
                    lostPortion * 100.0, overCount, shardCount, recommendation);
        }
        if (averageLoadFactor < lowLoadFactor && maxLoadFactor < lowLoadFactor
                && averageLoadFactor < lowLoadFactor / 1.414) {
            return String.format(Locale.ROOT,
                    "FixedHyperClockCache: the table is sparsely occupied at full capacity; a"
                            + " larger estimatedEntryCharge (about %.1fx) should perform better."
                            + " Recommend estimatedEntryCharge=%d",
                    FixedClockTable.LOAD_FACTOR / 1.414 / averageLoadFactor, recommendation);
        }
        return null;
    }

    /**
     * Options of a {@link FixedHyperClockCache}, as {@link HyperClockCache.Builder}'s
     * {@code estimatedEntryCharge} hands them on; {@link #build()} validates them all.
     */
    public static final class Builder extends HyperClockOptions<Builder> {

        /** A builder over {@code settings}, shared with the builder that made this one. */
        Builder(BuilderSettings settings) {
            super(settings);
        }

        /**
         * Expected average charge per entry, used to size the tables; required, at least 1.
         *
         * <p>Every shard gets a table of {@code 2^k} slots sized for its share of the capacity
         * (see {@link CacheOptions#capacity}) in entries of this charge, allocated and charged up
         * front. {@link #build()} refuses, naming the sizes and what to change:
         * <ul>
         *   <li>a table that could not hold one entry: the estimate is larger than a shard's
         *       share of the capacity, or that share is so small next to the estimate and the
         *       charged slots that the table would get one slot, which holds no entry (its
         *       occupancy limit is 0);</li>
         *   <li>a table of more slots than a shard may have: {@code 2^(31 - numShardBits)} (a
         *       handle names a slot and its shard in 31 bits).
         *       So a fixed cache cannot be "unbounded": {@code capacity(Long.MAX_VALUE)} is
         *       refused unless the estimate is large enough for its tables to fit.</li>
         * </ul>
         *
         * @param bytes the expected average charge per entry, in bytes, {@code >= 1}
         *     ({@link #validate()} refuses less, and an unset one)
         * @return this builder
         */
        public Builder estimatedEntryCharge(long bytes) {
            settings.estimatedEntryCharge = bytes;
            return this;
        }

        @Override
        public void validate() {
            super.validate();
            Args.requirePositive("estimatedEntryCharge", settings.estimatedEntryCharge);
            tableBits();
        }

        @Override
        public FixedHyperClockCache build() {
            validate();
            int lengthBits = tableBits();
            CacheContext context = new CacheContext(settings.recordStats, settings.kindCounts(),
                    "FixedHyperClockCache");
            CloseGate gate = new CloseGate();
            // A table holds at most its occupancy limit, whatever the charges.
            Admission admission = settings.admissionFor(false,
                    FixedClockTable.occupancyLimit(lengthBits) << shardBits());
            ClockShard[] shards = makeShards(context, gate, admission,
                    shardContext -> ClockShard.fixed(lengthBits, shardContext));
            return new FixedHyperClockCache(context, gate, shards, settings.capacity,
                    settings.hashSeed, admission);
        }

        /**
         * log2 of every shard's slot count ({@link FixedClockTable#lengthBits}), once checked that
         * such a table can be made and can hold an entry of the estimated charge.
         *
         * @throws IllegalArgumentException naming capacity, estimatedEntryCharge and
         *     numShardBits, when it cannot
         */
        private int tableBits() {
            int shardBits = shardBits();
            int shards = 1 << shardBits;
            long perShard = perShardCapacity(settings.capacity, shards);
            long estimate = settings.estimatedEntryCharge;
            int bits = FixedClockTable.lengthBits(perShard, estimate, settings.chargeMetadata);
            int maxBits = Long.numberOfTrailingZeros(ClockShard.maxSlotsPerShard(shardBits));
            if (bits > maxBits) {
                throw new IllegalArgumentException("capacity " + settings.capacity
                        + " with estimatedEntryCharge " + estimate + " needs 2^" + bits
                        + " slots per shard, more than the 2^" + maxBits + " a shard may have with "
                        + shardsText(shards) + ": raise estimatedEntryCharge or numShardBits, or"
                        + " lower capacity");
            }
            String share = "each shard's share of capacity, " + perShard + " (capacity "
                    + settings.capacity + " over " + shardsText(shards) + ")";
            if (estimate > perShard) {
                throw new IllegalArgumentException("estimatedEntryCharge " + estimate
                        + " is larger than " + share + ": a table sized for it holds no entry;"
                        + " lower estimatedEntryCharge or numShardBits, or raise capacity");
            }
            if (FixedClockTable.occupancyLimit(bits) == 0) {
                throw new IllegalArgumentException(share + ", is too small for a table that holds"
                        + " an entry of estimatedEntryCharge " + estimate
                        + " next to its slots (charged " + SlotLayout.SLOT_BYTES + " bytes each,"
                        + " see chargeMetadata): raise capacity, or lower numShardBits");
            }
            return bits;
        }

        private static String shardsText(int shards) {
            return shards == 1 ? "1 shard" : shards + " shards";
        }
    }
}
