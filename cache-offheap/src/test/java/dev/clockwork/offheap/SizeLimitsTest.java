package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.clock.AutoClockTable;
import dev.clockwork.offheap.clock.FixedClockTable;
import dev.clockwork.offheap.clock.SlotLayout;
import dev.clockwork.offheap.lru.LruRecordLayout;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sizes at their limits: capacities up to {@code Long.MAX_VALUE}, charges whose sums would pass
 * it, fixed tables too small for one entry or too large for a handle, the Auto reservation, and
 * the LRU record limit (see {@link LruShardTest} for the shard-level case). Each either works
 * or is refused with a message naming the arguments; nothing hangs, overflows or leaks.
 */
class SizeLimitsTest {
    private static final Duration NO_HANG = Duration.ofSeconds(30);
    private static final byte[] VALUE = {1, 2, 3, 4, 5, 6, 7, 8};
    private static final long SLOT = SlotLayout.SLOT_BYTES;

    /** The cache types that accept {@code capacity(Long.MAX_VALUE)}. */
    enum Unbounded {
        LRU(() -> LruCache.builder().admission(AdmissionPolicy.NONE).capacity(Long.MAX_VALUE)
                .build()),
        LRU_WITH_POOLS(() -> LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(Long.MAX_VALUE).highPriPoolRatio(0.4)
                .lowPriPoolRatio(0.4).build()),
        AUTO(() -> HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(Long.MAX_VALUE).build()),
        AUTO_BY_DEFAULT(() -> HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(Long.MAX_VALUE).build());

        final Supplier<Cache> maker;

        Unbounded(Supplier<Cache> maker) {
            this.maker = maker;
        }
    }

    /**
     * A cache of {@code kind}, sized to be cheap: a fixed table's estimate is large enough that
     * even a shard of MAX_USAGE needs a small table.
     */
    private static Cache build(CacheKind kind, long capacity, int shardBits) {
        long perShard = ShardedCache.perShardCapacity(capacity, 1 << shardBits);
        return kind.builder(capacity, Math.max(64, perShard >> 6)).numShardBits(shardBits)
                .admission(AdmissionPolicy.NONE).build();
    }

    private static boolean insert(Cache cache, long key, long charge) {
        return cache.insert(key, ~key, VALUE, 0, VALUE.length, charge, Priority.LOW);
    }

    private static long insertPinned(Cache cache, long key, long charge) {
        return cache.insertPinned(key, ~key, VALUE, 0, VALUE.length, charge, Priority.LOW);
    }

    private static boolean found(Cache cache, long key) {
        long handle = cache.lookup(key, ~key);
        if (handle == Cache.MISS) {
            return false;
        }
        byte[] copy = new byte[VALUE.length];
        cache.copyValue(handle, copy, 0);
        cache.release(handle);
        return Arrays.equals(VALUE, copy);
    }

    /** Table metadata charged to usage: what usage may hold beyond the entries' charges. */
    private static long metadata(Cache cache) {
        return cache instanceof HyperClockCache hcc ? hcc.tableSlots() * SLOT : 0;
    }

    // ---------------------------------------------------------------- per-shard capacity

    @Test
    void perShardCapacityIsTheRoundedUpShareWithoutOverflow() {
        assertEquals(1, ShardedCache.perShardCapacity(1, 64));
        assertEquals(2, ShardedCache.perShardCapacity(65, 64));
        assertEquals((1L << 38) + 1, ShardedCache.perShardCapacity((1L << 40) + 1, 4));
        // Long.MAX_VALUE overflowed (capacity + shards - 1) into a negative share.
        for (int bits = 0; bits <= CacheOptions.MAX_SHARD_BITS; bits++) {
            int shards = 1 << bits;
            assertEquals(CacheOptions.MAX_USAGE >> bits,
                    ShardedCache.perShardCapacity(Long.MAX_VALUE, shards), "bits " + bits);
            assertEquals(CacheOptions.MAX_USAGE >> bits,
                    ShardedCache.perShardCapacity(CacheOptions.MAX_USAGE, shards), "bits " + bits);
        }
        SplittableRandom random = new SplittableRandom(13);
        for (int i = 0; i < 10_000; i++) {
            long capacity = random.nextLong(1, CacheOptions.MAX_USAGE);
            int shards = 1 << random.nextInt(CacheOptions.MAX_SHARD_BITS + 1);
            BigInteger[] qr = BigInteger.valueOf(capacity).divideAndRemainder(
                    BigInteger.valueOf(shards));
            long ceiling = qr[0].longValueExact() + (qr[1].signum() == 0 ? 0 : 1);
            assertEquals(Math.min(ceiling, CacheOptions.MAX_USAGE / shards),
                    ShardedCache.perShardCapacity(capacity, shards), capacity + " / " + shards);
        }
    }

    // ---------------------------------------------------------------- "unbounded" caches

    @ParameterizedTest
    @EnumSource(Unbounded.class)
    void maxValueCapacityBuildsAWorkingCache(Unbounded kind) {
        long outstanding = NativeMemory.outstandingBytes();
        try (Cache cache = assertTimeoutPreemptively(NO_HANG, kind.maker::get)) {
            assertEquals(Long.MAX_VALUE, cache.capacity());
            for (long k = 0; k < 1000; k++) {
                assertTrue(insert(cache, k, 1L << 40), "insert " + k);
            }
            for (long k = 0; k < 1000; k++) {
                assertTrue(found(cache, k), "key " + k + " was evicted by a cache of no bound");
            }
            assertEquals(1000, cache.entryCount());
            assertEquals(1000L << 40, cache.usage() - metadata(cache) - 1000 * metaPerEntry(cache));
            assertTimeoutPreemptively(NO_HANG, () -> cache.setCapacity(Long.MAX_VALUE));
            assertTimeoutPreemptively(NO_HANG, () -> cache.setCapacity(1L << 52));
            assertEquals(1000, cache.entryCount());
        }
        assertEquals(outstanding, NativeMemory.outstandingBytes());
        assertEquals(0, NativeMemory.reservedBytes());
    }

    private static long metaPerEntry(Cache cache) {
        return cache instanceof LruCache ? LruRecordLayout.ENTRY_BYTES : 0;
    }

    @Test
    void anUnboundedAutoCacheReservesAtMostTheSlotsHandlesCanName() {
        try (AutoHyperClockCache cache = HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE).capacity(Long.MAX_VALUE)
                .build()) {
            assertEquals(64, cache.numShards());
            assertEquals(AutoClockTable.MAX_RESERVATION_BYTES, cache.reservedBytes());
            assertEquals(AutoClockTable.MAX_RESERVATION_BYTES, NativeMemory.reservedBytes());
        }
        for (int bits : new int[] {0, 2, 3, 9}) {
            try (AutoHyperClockCache cache = HyperClockCache.builder()
                    .admission(AdmissionPolicy.NONE)
                    .capacity(Long.MAX_VALUE).numShardBits(bits).build()) {
                long perShard = cache.reservedBytes() >> bits;
                assertEquals(SLOT * AutoClockTable.maxReservedSlots(bits), perShard,
                        "bits " + bits);
                assertTrue(cache.reservedBytes() <= AutoClockTable.MAX_RESERVATION_BYTES);
                assertTrue(insert(cache, 1, 1000));
                assertTrue(found(cache, 1));
            }
        }
    }

    @Test
    void theAutoReservationIsBoundedByHandlesAndTheTotal() {
        for (int bits = 0; bits <= CacheOptions.MAX_SHARD_BITS; bits++) {
            long limit = AutoClockTable.maxReservedSlots(bits);
            assertEquals((1L << 31) >> bits, limit, "bits " + bits);
            assertTrue(limit <= 1L << (CacheOptions.MAX_LOCATION_BITS - bits));
            assertEquals(0, limit % (4096 / SLOT), "whole pages");
            for (long minAvg : new long[] {1, 450, Long.MAX_VALUE}) {
                for (boolean charged : new boolean[] {false, true}) {
                    long slots = AutoClockTable.maxSlots(Long.MAX_VALUE, minAvg, charged, bits);
                    assertTrue(slots > 0 && slots <= limit, slots + " slots, bits " + bits);
                }
            }
            assertEquals(limit, AutoClockTable.maxSlots(Long.MAX_VALUE, 1, true, bits));
            assertEquals(limit, AutoClockTable.maxSlots(CacheOptions.MAX_USAGE >> bits, 450,
                    true, bits));
        }
        // Below the bounds nothing changed: capacity / (0.6 minAvg + 64) + 1, in whole pages.
        assertEquals(128, AutoClockTable.maxSlots(256 << 10, 4096, true, 0));
        assertEquals(64, AutoClockTable.maxSlots(1, 450, true, 16));
    }

    @Test
    void fixedCachesAreRefusedAnUnboundedCapacityUnlessTheEstimateKeepsTheTableSmall() {
        for (Supplier<Cache> maker : List.<Supplier<Cache>>of(
                () -> HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                        .capacity(Long.MAX_VALUE)
                        .estimatedEntryCharge(8192).build(),
                () -> HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                        .capacity(Long.MAX_VALUE)
                        .estimatedEntryCharge(8192).build())) {
            long outstanding = NativeMemory.outstandingBytes();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    maker::get);
            assertEquals("capacity 9223372036854775807 with estimatedEntryCharge 8192 needs 2^38"
                    + " slots per shard, more than the 2^25 a shard may have with 64 shards:"
                    + " raise estimatedEntryCharge or numShardBits, or lower capacity",
                    e.getMessage());
            assertEquals(outstanding, NativeMemory.outstandingBytes(), "nothing allocated");
        }
        try (Cache cache = HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(Long.MAX_VALUE)
                .estimatedEntryCharge(1L << 40).build()) {
            assertTrue(((FixedHyperClockCache) cache).tableSlots() <= 64 * 2048);
            assertTrue(insert(cache, 7, 1L << 40));
            assertTrue(found(cache, 7));
        }
    }

    @Test
    void fixedTablesBeyondTheSlotsAHandleCanNameAreRefused() {
        var builder = HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(1L << 40).estimatedEntryCharge(1)
                .numShardBits(0).chargeMetadata(false);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
        assertEquals("capacity 1099511627776 with estimatedEntryCharge 1 needs 2^41 slots per"
                + " shard, more than the 2^31 a shard may have with 1 shard: raise"
                + " estimatedEntryCharge or numShardBits, or lower capacity", e.getMessage());
        // With 2^16 shards a handle leaves 15 bits for the slot.
        e = assertThrows(IllegalArgumentException.class, () -> HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE)
                .capacity(1L << 50).estimatedEntryCharge(1).numShardBits(16)
                .chargeMetadata(false).validate());
        assertTrue(e.getMessage().contains("needs 2^35 slots per shard, more than the 2^15 a"
                + " shard may have with 65536 shards"), e.getMessage());
    }

    // ---------------------------------------------------------------- a fixed table's first entry

    @Test
    void aFixedTableThatHoldsNoEntryIsRefusedWithAdvice() {
        long outstanding = NativeMemory.outstandingBytes();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                        .capacity(1 << 20)
                        .estimatedEntryCharge(2 << 20).build());
        assertEquals("estimatedEntryCharge 2097152 is larger than each shard's share of capacity,"
                + " 1048576 (capacity 1048576 over 1 shard): a table sized for it holds no entry;"
                + " lower estimatedEntryCharge or numShardBits, or raise capacity",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE)
                .capacity(4 << 20).estimatedEntryCharge(1 << 20).numShardBits(3).build());
        assertEquals("estimatedEntryCharge 1048576 is larger than each shard's share of capacity,"
                + " 524288 (capacity 4194304 over 8 shards): a table sized for it holds no entry;"
                + " lower estimatedEntryCharge or numShardBits, or raise capacity",
                e.getMessage());
        // An estimate within the share, but too large next to the charged slots: one slot.
        e = assertThrows(IllegalArgumentException.class, () -> HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE)
                .capacity(300).estimatedEntryCharge(300).validate());
        assertEquals("each shard's share of capacity, 300 (capacity 300 over 1 shard), is too"
                + " small for a table that holds an entry of estimatedEntryCharge 300 next to its"
                + " slots (charged 64 bytes each, see chargeMetadata): raise capacity, or lower"
                + " numShardBits", e.getMessage());
        assertEquals(0, FixedClockTable.lengthBits(300, 300, true));
        assertEquals(outstanding, NativeMemory.outstandingBytes(), "nothing allocated");
    }

    @Test
    void theSmallestFixedTablesWork() {
        // 2 slots (occupancy limit 1), 128 bytes charged, 872 left for one 800-byte entry.
        try (FixedHyperClockCache cache = HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE).capacity(1000)
                .estimatedEntryCharge(800).strictCapacityLimit(true).build()) {
            assertEquals(2, cache.tableSlots());
            assertEquals(1, cache.occupancyLimit());
            assertTrue(insert(cache, 1, 800));
            assertTrue(found(cache, 1));
            assertTrue(insert(cache, 2, 800), "evicts the first");
            assertTrue(found(cache, 2));
            assertFalse(found(cache, 1));
        }
        // The estimate may be the whole share: 2 slots; such an entry then takes the shard over
        // its capacity (not strict) or is refused (strict), as any entry too large would be.
        for (boolean strict : new boolean[] {false, true}) {
            try (FixedHyperClockCache cache = HyperClockCache.builder()
                    .admission(AdmissionPolicy.NONE).capacity(1000)
                    .estimatedEntryCharge(1000).strictCapacityLimit(strict).build()) {
                assertEquals(1, cache.occupancyLimit());
                assertEquals(!strict, insert(cache, 1, 1000));
                assertEquals(!strict, found(cache, 1));
                assertTrue(insert(cache, 2, 500));
                assertTrue(found(cache, 2));
            }
        }
        try (FixedHyperClockCache cache = HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE).capacity(1000)
                .estimatedEntryCharge(1000).chargeMetadata(false).strictCapacityLimit(true)
                .build()) {
            assertTrue(insert(cache, 1, 1000));
            assertTrue(found(cache, 1));
        }
    }

    // ---------------------------------------------------------------- the usage limit

    /** Charges above a shard's share of MAX_USAGE are refused like a strict limit's refusals. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void chargesBeyondTheUsageLimitAreRefusedAndCounted(CacheKind kind) {
        try (Cache cache = build(kind, Long.MAX_VALUE, 0)) {
            long usage = cache.usage();
            for (long charge : new long[] {Long.MAX_VALUE, CacheOptions.MAX_USAGE + 1}) {
                assertFalse(insert(cache, 1, charge), "charge " + charge);
                assertEquals(Cache.MISS, insertPinned(cache, 2, charge), "charge " + charge);
            }
            assertEquals(4, cache.stats().memoryLimitRejects());
            assertEquals(usage, cache.usage());
            assertEquals(0, cache.entryCount());
            // The largest charge that fits: the limit less the record an LRU entry adds.
            long largest = CacheOptions.MAX_USAGE - metaPerEntry(cache) - metadata(cache);
            assertTrue(insert(cache, 3, largest));
            assertTrue(found(cache, 3));
            assertEquals(CacheOptions.MAX_USAGE, cache.usage());
        }
    }

    /**
     * Pinned entries over capacity stop at the usage limit: each further insert is refused and
     * counted, and usage (each shard's and their sum) stays between 0 and the limit.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void pinnedChargesStopAtTheUsageLimitWithoutOverflow(CacheKind kind) {
        int shardBits = 6;
        long shardLimit = CacheOptions.MAX_USAGE >> shardBits;
        try (Cache cache = build(kind, Long.MAX_VALUE, shardBits)) {
            long[] handles = new long[64 * 8];
            int pinned = 0;
            long refused = 0;
            for (long k = 0; k < handles.length; k++) {
                // Each legal on its own (below capacity); 3 fit a shard, the 4th passes its share.
                long handle = insertPinned(cache, k, shardLimit / 3 - 1024);
                if (handle == Cache.MISS) {
                    refused++;
                } else {
                    handles[pinned++] = handle;
                }
                long usage = cache.usage();
                assertTrue(usage > 0 && usage <= CacheOptions.MAX_USAGE, "usage " + usage);
            }
            assertTrue(refused > 0, "no insert reached the limit");
            assertEquals(refused, cache.stats().memoryLimitRejects());
            assertTrue(pinned <= 3 * 64, pinned + " pinned");
            assertTrue(cache.pinnedUsage() <= CacheOptions.MAX_USAGE);
            for (int i = 0; i < pinned; i++) {
                cache.release(handles[i]);
            }
            // Unpinned, the same charges evict each other at capacity instead.
            for (long k = 0; k < 1000; k++) {
                assertTrue(insert(cache, 10_000 + k, shardLimit / 3));
                long usage = cache.usage();
                assertTrue(usage > 0 && usage <= CacheOptions.MAX_USAGE, "usage " + usage);
            }
            assertEquals(refused, cache.stats().memoryLimitRejects());
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void setCapacityAcceptsEveryPositiveLong(CacheKind kind) {
        long capacity = 1 << 20;
        try (Cache cache = build(kind, capacity, 2)) {
            for (long k = 0; k < 100; k++) {
                insert(cache, k, 1000);
            }
            assertTimeoutPreemptively(NO_HANG, () -> cache.setCapacity(Long.MAX_VALUE));
            assertEquals(Long.MAX_VALUE, cache.capacity());
            assertTrue(insert(cache, 1000, 1L << 40), "a charge beyond the old capacity fits");
            assertTrue(found(cache, 1000));
            assertTimeoutPreemptively(NO_HANG, () -> cache.setCapacity(capacity));
            // Later inserts (at once for LRU) evict back under the capacity.
            for (long k = 0; k < 2000; k++) {
                insert(cache, 2000 + k, 1000);
            }
            assertTrue(cache.usage() <= capacity + 4 * (1000 + SLOT), "usage " + cache.usage());
            assertNotEquals(0, cache.entryCount());
        }
    }
}
