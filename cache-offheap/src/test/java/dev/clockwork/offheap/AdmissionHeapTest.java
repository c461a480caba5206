package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.admission.TinyLfu;
import dev.clockwork.offheap.clock.FixedClockTable;
import dev.clockwork.offheap.clock.SlotLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TinyLFU's heap is bounded by what the cache can hold and follows what it was given, never its
 * capacity: a cache of {@code Long.MAX_VALUE} or 1 TiB with {@code TINY_LFU} allocates a small
 * sketch at build (it allocated one for 2^26 entries, about 900 MiB, so it ran out of memory in
 * the tests' 512 MiB heap), grows it with the entries inserted, and never past the entries its
 * table or slabs can hold.
 */
class AdmissionHeapTest {
    private static final long TIB = 1L << 40;
    /** Heap per entry covered: 8 bytes of sketch, 6 of ghosts. */
    private static final long BYTES_PER_ENTRY = 14;
    /** More than the policy's record buffers take, whatever the size. */
    private static final long BUFFER_BYTES = 16 << 10;
    /** What a cache built at any capacity may hold on the heap for admission. */
    private static final long BUILD_BYTES =
            BYTES_PER_ENTRY * TinyLfu.INITIAL_ENTRIES + BUFFER_BYTES;
    private static final int INSERTED = 20_000;
    private static final byte[] VALUE = new byte[8];

    /**
     * A cache of {@code kind} with TinyLFU. Fixed tables are sized from the estimate: one large
     * enough keeps them at 2,048 slots.
     */
    private static ShardedCache build(CacheKind kind, long capacity) {
        return kind.builder(capacity, capacity == TIB ? 1L << 24 : 1L << 40)
                .admission(AdmissionPolicy.TINY_LFU).build();
    }

    private static TinyLfu policyOf(ShardedCache cache) {
        return (TinyLfu) cache.admission();
    }

    private static void insert(ShardedCache cache, long entries, long charge) {
        for (long k = 0; k < entries; k++) {
            cache.insert(k, ~k, VALUE, 0, VALUE.length, charge, Priority.LOW);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void anUnboundedOrHugeCacheStartsSmallAndGrowsWithItsEntries(CacheKind kind) {
        for (long capacity : new long[] {Long.MAX_VALUE, TIB}) {
            try (ShardedCache cache = build(kind, capacity)) {
                TinyLfu policy = policyOf(cache);
                assertTrue(policy.bytes() <= BUILD_BYTES, kind + " at " + capacity + ": "
                        + policy.bytes() + " bytes at build");
                assertTrue(policy.sketchEntries() <= TinyLfu.INITIAL_ENTRIES);

                insert(cache, INSERTED, 100);
                long covered = policy.sketchEntries();
                assertTrue(covered >= INSERTED && covered < 2 * INSERTED,
                        kind + " at " + capacity + ": " + covered + " entries covered");
                assertTrue(policy.bytes() <= BYTES_PER_ENTRY * covered + BUFFER_BYTES,
                        kind + " at " + capacity + ": " + policy.bytes() + " bytes");
            }
        }
    }

    /**
     * A table of about 2,000 slots under 1 TiB: the sketch is sized for what the table holds from
     * the start, and stays there however small the charges inserted.
     */
    @ParameterizedTest
    @EnumSource(value = CacheKind.class, names = {"FIXED", "AUTO"})
    void aSmallTableUnderAHugeCapacityBoundsTheSketch(CacheKind kind) {
        ShardedCache built = kind == CacheKind.FIXED
                ? HyperClockCache.builder().capacity(TIB).estimatedEntryCharge(1L << 30)
                        .numShardBits(0).admission(AdmissionPolicy.TINY_LFU).build()
                : HyperClockCache.builder().capacity(TIB).minAvgEntryCharge(1L << 30)
                        .numShardBits(0).admission(AdmissionPolicy.TINY_LFU).build();
        try (ShardedCache cache = built) {
            long holds = cache instanceof FixedHyperClockCache fixed
                    ? FixedClockTable.occupancyLimit(Long.numberOfTrailingZeros(fixed.tableSlots()))
                    : ((AutoHyperClockCache) cache).reservedBytes() / SlotLayout.SLOT_BYTES;
            assertTrue(holds < TinyLfu.INITIAL_ENTRIES, kind + ": premise, " + holds);
            TinyLfu policy = policyOf(cache);
            assertEquals(holds, policy.entryLimit(), kind + ": the table's bound");
            assertEquals(holds, policy.sketchEntries(), kind + ": at build");
            insert(cache, 4 * holds, 1); // charges that say 2^40 entries would fit
            assertEquals(holds, policy.sketchEntries(), kind + ": after inserts");
        }
    }

    @Test
    void anLrusSlabsNameMoreRecordsThanTheSketchCovers() {
        try (ShardedCache cache = LruCache.builder().capacity(TIB).numShardBits(4)
                .admission(AdmissionPolicy.TINY_LFU).build()) {
            // 16 shards of up to 2^31 records each: far above the sketch's own cap of 2^26.
            assertEquals(1L << 26, policyOf(cache).entryLimit());
        }
    }
}
