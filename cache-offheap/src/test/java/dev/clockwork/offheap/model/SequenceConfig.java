package dev.clockwork.offheap.model;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A cache configuration and its key space, drawn from a sequence's seed: small capacities (a few
 * to a few dozen entries per shard), 1, 2 or 4 shards, metadata charged or not, either strict
 * setting, and for the fixed table an entry-charge estimate that may be off by 2x either way, so
 * that both capacity and the slot count bound the cache.
 *
 * @param typicalCharge the charges drawn are mostly in {@code 1..2 x typicalCharge}
 * @param entryCharge Fixed: estimatedEntryCharge; Auto: minAvgEntryCharge; LRU: unused
 */
record SequenceConfig(CacheType type, int shardBits, long capacity, long entryCharge,
                      boolean chargeMetadata, boolean strict, int evictionEffortCap,
                      double highPriPoolRatio, double lowPriPoolRatio, long hashSeed, int keys,
                      long typicalCharge) {

    enum CacheType { FIXED, AUTO, LRU }

    private static final int[] SHARD_BITS = {0, 0, 0, 1, 2};
    private static final double[][] POOL_RATIOS = {
            {0, 0}, {0.5, 0}, {0, 0.5}, {0.3, 0.3}, {0.2, 0.6}, {1, 0}, {0, 1}, {0.5, 0.5}};

    static SequenceConfig draw(CacheType type, SplittableRandom r) {
        int shardBits = SHARD_BITS[r.nextInt(SHARD_BITS.length)];
        int shards = 1 << shardBits;
        boolean meta = r.nextBoolean();
        boolean strict = r.nextInt(3) == 0;
        int effortCap = r.nextBoolean() ? 30 : 1 + r.nextInt(4);
        long typical = 8 + r.nextInt(300);
        int keys = r.nextInt(6) == 0 ? 50 + r.nextInt(200) : 3 + r.nextInt(46);
        long hashSeed = r.nextLong();
        long perShard;
        long entryCharge = 0;
        double high = 0;
        double low = 0;
        switch (type) {
            case FIXED -> {
                // An estimate off by up to 2x: too high leaves the table short of slots.
                entryCharge = Math.max(1, (long) (typical * (0.5 + 1.5 * r.nextDouble())));
                long slots = 4 + r.nextInt(61);
                perShard = (long) (slots * (entryCharge * 0.7 + (meta ? 64 : 0)));
            }
            case AUTO -> {
                entryCharge = 16 + r.nextInt(450);
                perShard = r.nextBoolean()
                        ? 256 + r.nextInt(3841)      // <= 4 KiB: the table starts at 4 homes
                        : typical * (2 + r.nextInt(60)) + (meta ? 64L * 32 : 0);
            }
            case LRU -> {
                double[] ratios = POOL_RATIOS[r.nextInt(POOL_RATIOS.length)];
                high = ratios[0];
                low = ratios[1];
                perShard = (typical + (meta ? 64 : 0)) * (2 + r.nextInt(30));
            }
            default -> throw new AssertionError(type);
        }
        long capacity = Math.max(1, perShard * shards - r.nextInt(shards)); // odd splits too
        return new SequenceConfig(type, shardBits, capacity, entryCharge, meta, strict, effortCap,
                high, low, hashSeed, keys, typical);
    }

    Cache build() {
        return switch (type) {
            case FIXED -> HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                    .capacity(capacity)
                    .estimatedEntryCharge(entryCharge).numShardBits(shardBits)
                    .strictCapacityLimit(strict).chargeMetadata(chargeMetadata)
                    .evictionEffortCap(evictionEffortCap).hashSeed(hashSeed).build();
            case AUTO -> HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                    .capacity(capacity)
                    .minAvgEntryCharge(entryCharge).numShardBits(shardBits)
                    .strictCapacityLimit(strict).chargeMetadata(chargeMetadata)
                    .evictionEffortCap(evictionEffortCap).hashSeed(hashSeed).build();
            case LRU -> LruCache.builder().admission(AdmissionPolicy.NONE).capacity(capacity)
                    .numShardBits(shardBits)
                    .highPriPoolRatio(highPriPoolRatio).lowPriPoolRatio(lowPriPoolRatio)
                    .strictCapacityLimit(strict).chargeMetadata(chargeMetadata)
                    .hashSeed(hashSeed).build();
        };
    }

    long key0(int key) {
        return 0xC10C_0000_0000L + key;
    }

    long key1(int key) {
        return key * 0x9E3779B97F4A7C15L ^ 0x5EED;
    }

    // ---------------------------------------------------------------- operations

    /** Mixes of operations, switched every few dozen steps so that pins pile up and drain. */
    private enum Phase {
        //            ins pin look rel ref read erase cap strict audit dbl | hold
        NORMAL(new int[]{24, 6, 24, 12, 2, 4, 7, 2, 2, 2, 1}, 0.3),
        PINNING(new int[]{14, 14, 20, 6, 4, 3, 5, 2, 1, 1, 1}, 0.8),
        DRAINING(new int[]{16, 2, 16, 40, 1, 4, 6, 2, 2, 3, 2}, 0.1),
        CHURN(new int[]{40, 3, 25, 8, 1, 2, 12, 3, 1, 2, 1}, 0.2);

        final int[] weights;
        final int total;
        final double hold;

        Phase(int[] weights, double hold) {
            this.weights = weights;
            int t = 0;
            for (int w : weights) {
                t += w;
            }
            this.total = t;
            this.hold = hold;
        }
    }

    List<Op> drawOps(SplittableRandom r, int count) {
        List<Op> ops = new ArrayList<>(count);
        Phase phase = Phase.NORMAL;
        int phaseLeft = 20 + r.nextInt(60);
        Priority[] priorities = Priority.values();
        for (int i = 0; i < count; i++) {
            if (--phaseLeft == 0) {
                phase = Phase.values()[r.nextInt(Phase.values().length)];
                phaseLeft = 20 + r.nextInt(60);
            }
            int x = r.nextInt(phase.total);
            int kind = 0;
            while (x >= phase.weights[kind]) {
                x -= phase.weights[kind++];
            }
            int key = r.nextInt(keys);
            ops.add(switch (kind) {
                case 0 -> Op.insert(key, drawCharge(r), drawLength(r),
                        priorities[r.nextInt(3)]);
                case 1 -> Op.insertPinned(key, drawCharge(r), drawLength(r),
                        priorities[r.nextInt(3)]);
                case 2 -> Op.lookup(key, r.nextDouble() < phase.hold);
                case 3 -> Op.release(r.nextInt(1 << 16), r.nextInt(4) == 0);
                case 4 -> Op.ref(r.nextInt(1 << 16));
                case 5 -> Op.read(r.nextInt(1 << 16));
                case 6 -> Op.erase(key);
                case 7 -> Op.setCapacity(r.nextInt(10) == 0 ? 1 + r.nextInt(256)
                        : Math.max(1, (long) (capacity * (0.2 + 1.8 * r.nextDouble()))));
                case 8 -> Op.setStrict(r.nextBoolean());
                case 9 -> Op.audit();
                case 10 -> Op.doubleRelease();
                default -> throw new AssertionError(kind);
            });
        }
        return ops;
    }

    private long drawCharge(SplittableRandom r) {
        int p = r.nextInt(100);
        if (p < 4) {
            return 0;
        }
        if (p < 8) {
            // Up to a quarter over the whole capacity: some exceed a shard's or all of it.
            return r.nextLong(capacity + capacity / 4 + 1);
        }
        return 1 + r.nextLong(2 * typicalCharge);
    }

    private static int drawLength(SplittableRandom r) {
        return Values.HEADER + (r.nextInt(20) == 0 ? r.nextInt(2000) : r.nextInt(100));
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(type.toString()).append("{capacity=").append(capacity)
                .append(", numShardBits=").append(shardBits);
        switch (type) {
            case FIXED -> b.append(", estimatedEntryCharge=").append(entryCharge);
            case AUTO -> b.append(", minAvgEntryCharge=").append(entryCharge);
            case LRU -> b.append(", highPriPoolRatio=").append(highPriPoolRatio)
                    .append(", lowPriPoolRatio=").append(lowPriPoolRatio);
        }
        b.append(", chargeMetadata=").append(chargeMetadata).append(", strict=").append(strict);
        if (type != CacheType.LRU) {
            b.append(", evictionEffortCap=").append(evictionEffortCap);
        }
        return b.append(", hashSeed=").append(hashSeed).append("L, keys=").append(keys)
                .append(", typicalCharge=").append(typicalCharge).append('}').toString();
    }
}
