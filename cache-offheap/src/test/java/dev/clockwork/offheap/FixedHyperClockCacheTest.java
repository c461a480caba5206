package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.clock.ClockProtocol;
import dev.clockwork.offheap.clock.ClockSteps;
import dev.clockwork.offheap.clock.FixedClockTable;
import dev.clockwork.offheap.clock.SlotLayout;
import dev.clockwork.offheap.shard.ShardSizing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FixedHyperClockCacheTest {
    private final List<Cache> caches = new ArrayList<>();

    private FixedHyperClockCache cache(long capacity, long estimate) {
        return track(HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(capacity)
                .estimatedEntryCharge(estimate).numShardBits(0).build());
    }

    private <C extends Cache> C track(C cache) {
        caches.add(cache);
        return cache;
    }

    @AfterEach
    void closeAllAndCheckNativeMemory() {
        caches.forEach(Cache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    static byte[] read(Cache cache, long handle) {
        return cache.value(handle).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void anEstimateNearTheSlotSizeStillLeavesRoomForValues() {
        // RocksDB's rounding up would make the table all of the 8 MiB (2^17 slots of 64 bytes).
        FixedHyperClockCache c = cache(8L << 20, 64);
        assertEquals(1L << 16, c.tableSlots(), "a table of half the capacity");
        byte[] v = pattern(1, 64);
        for (long k = 0; k < 200_000; k++) {
            c.insert(k, 0, v, 0, v.length, v.length, Priority.LOW);
        }
        assertTrue(c.entryCount() > 40_000, "holds " + c.entryCount() + " 64-byte values");
        assertTrue(c.usage() <= c.capacity(), "usage " + c.usage());
    }

    @Test
    void realisticEstimatesKeepRocksDbsTableSize() {
        // ceil(log2(capacity / (estimate * 0.7 + 64))), as RocksDB's CalcHashBits
        for (long estimate : new long[] {512, 4096, 8192, 65536}) {
            long capacity = 64L << 20;
            long slots = (long) Math.ceil(capacity / (estimate * 0.7 + 64));
            int rocksDb = 64 - Long.numberOfLeadingZeros(slots - 1);
            assertEquals(rocksDb, FixedClockTable.lengthBits(capacity, estimate, true),
                    "estimate " + estimate);
        }
        assertEquals(0, FixedClockTable.lengthBits(32, 8192, true), "capacity below one slot");
    }

    @Test
    void insertLookupRelease() {
        var cache = cache(1 << 20, 1024);
        byte[] value = pattern(7, 100);
        assertTrue(cache.insert(1, 2, value, 0, value.length, 100, Priority.LOW));
        long h = cache.lookup(1, 2);
        assertNotEquals(Cache.MISS, h);
        assertArrayEquals(value, read(cache, h));
        assertEquals(100, cache.valueSize(h));
        assertEquals(100, cache.charge(h));
        byte[] copy = new byte[120];
        assertEquals(100, cache.copyValue(h, copy, 20));
        assertEquals(value[99], copy[119]);
        assertTrue(cache.value(h).isReadOnly());
        try (var arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(110);
            assertEquals(100, cache.copyValue(h, dst, 10));
            assertArrayEquals(value, dst.asSlice(10, 100).toArray(ValueLayout.JAVA_BYTE));
            var e = assertThrows(IllegalArgumentException.class, () -> cache.copyValue(h, dst, 11));
            assertTrue(e.getMessage().contains("dst"));
        }
        assertFalse(cache.release(h));
        assertEquals(Cache.MISS, cache.lookup(2, 1));
        assertEquals(Cache.MISS, cache.lookup(1, 3));
        assertEquals(1, cache.entryCount());
        var stats = cache.stats();
        assertEquals(1, stats.hits());
        assertEquals(2, stats.misses());
        assertEquals(1, stats.inserts());
    }

    @Test
    void lookupsAreNotCountedWhenStatsAreOff() {
        var cache = track(HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(1 << 20).estimatedEntryCharge(64)
                .recordStats(false).build());
        cache.insert(1, 1, pattern(1, 8), 0, 8, 8, Priority.LOW);
        cache.release(cache.lookup(1, 1));
        cache.lookup(2, 2);
        assertEquals(0, cache.stats().hits());
        assertEquals(0, cache.stats().misses());
        assertEquals(1, cache.stats().inserts());
    }

    @Test
    void insertFromSegmentAndPinnedHandle() {
        var cache = cache(1 << 20, 1024);
        MemorySegment value = MemorySegment.ofArray(pattern(3, 64));
        long h = cache.insertPinned(5, 6, value, 64, Priority.HIGH);
        assertNotEquals(Cache.MISS, h);
        assertEquals(64 + 64, cache.pinnedUsage());
        assertArrayEquals(value.toArray(ValueLayout.JAVA_BYTE), read(cache, h));
        cache.release(h);
        assertEquals(0, cache.pinnedUsage());
    }

    @Test
    void duplicateInsertKeepsTheFirstAndPinnedDuplicateIsStandalone() {
        var cache = cache(1 << 20, 1024);
        byte[] first = pattern(1, 10);
        byte[] second = pattern(2, 20);
        assertTrue(cache.insert(9, 9, first, 0, 10, 10, Priority.LOW));
        assertTrue(cache.insert(9, 9, second, 0, 20, 20, Priority.LOW));
        long h = cache.lookup(9, 9);
        assertArrayEquals(first, read(cache, h));
        cache.release(h);

        long standalone = cache.insertPinned(9, 9, second, 0, 20, 20, Priority.LOW);
        assertNotEquals(Cache.MISS, standalone);
        assertArrayEquals(second, read(cache, standalone));
        assertEquals(20, cache.standaloneUsage());
        assertEquals(1, cache.stats().standaloneInserts());
        long again = cache.lookup(9, 9);
        assertArrayEquals(first, read(cache, again), "lookups never find a standalone entry");
        cache.release(again);
        long usageBefore = cache.usage();
        assertTrue(cache.release(standalone), "last release frees a standalone entry");
        assertEquals(usageBefore - 20, cache.usage());
        assertEquals(0, cache.standaloneUsage());
        assertThrows(IllegalStateException.class, () -> cache.release(standalone));
        // A released (freed) standalone handle, or a made-up one, is refused before any read:
        // its address part could name any memory.
        assertThrows(IllegalStateException.class, () -> cache.value(standalone));
        assertThrows(IllegalStateException.class, () -> cache.valueSize(standalone));
        long madeUp = 0x10; // without the kind bit: a standalone record's index
        assertThrows(IllegalStateException.class, () -> cache.value(madeUp));
        assertThrows(IllegalStateException.class,
                () -> cache.copyValue(madeUp, new byte[64], 0));
    }

    @Test
    void eraseUnpinnedAndPinned() {
        var cache = cache(1 << 20, 1024);
        byte[] v = pattern(4, 50);
        cache.insert(1, 1, v, 0, 50, 50, Priority.LOW);
        cache.insert(2, 2, v, 0, 50, 50, Priority.LOW);
        long usage = cache.usage();
        assertTrue(cache.erase(1, 1));
        assertFalse(cache.erase(1, 1));
        assertEquals(Cache.MISS, cache.lookup(1, 1));
        assertEquals(usage - 50, cache.usage());

        long h = cache.lookup(2, 2);
        assertTrue(cache.erase(2, 2));
        assertEquals(Cache.MISS, cache.lookup(2, 2), "erased entries are not found");
        assertArrayEquals(v, read(cache, h), "but stay readable through a handle");
        assertEquals(1, cache.entryCount());
        assertTrue(cache.release(h), "last release of an erased entry frees it");
        assertEquals(0, cache.entryCount());
        assertEquals(usage - 100, cache.usage());
    }

    @Test
    void releaseWithEraseIfLastRef() {
        var cache = cache(1 << 20, 1024);
        byte[] v = pattern(1, 8);
        long h1 = cache.insertPinned(3, 3, v, 0, 8, 8, Priority.LOW);
        long h2 = cache.lookup(3, 3);
        assertFalse(cache.release(h1, true), "another reference is still held");
        assertTrue(cache.release(h2, true));
        assertEquals(Cache.MISS, cache.lookup(3, 3));
        assertEquals(0, cache.entryCount());
    }

    @Test
    void refTakesAnotherReference() {
        var cache = cache(1 << 20, 1024);
        long h = cache.insertPinned(3, 4, pattern(1, 8), 0, 8, 8, Priority.LOW);
        cache.ref(h);
        cache.release(h);
        cache.release(h);
        assertThrows(IllegalStateException.class, () -> cache.release(h));
    }

    @Test
    void usageStaysWithinCapacityWhenNothingIsPinned() {
        long capacity = 1 << 20;
        var cache = cache(capacity, 1000);
        long tableBytes = cache.tableSlots() * 64;
        assertEquals(tableBytes, cache.usage(), "table metadata is charged up front");
        byte[] v = pattern(5, 1000);
        for (int i = 0; i < 10_000; i++) {
            assertTrue(cache.insert(i, -i, v, 0, v.length, v.length, Priority.LOW));
            assertTrue(cache.usage() <= capacity, "usage " + cache.usage() + " at insert " + i);
        }
        assertTrue(cache.stats().evictions() > 0);
        long expectedEntries = (capacity - tableBytes) / 1000;
        assertTrue(cache.entryCount() >= expectedEntries * 9 / 10,
                cache.entryCount() + " entries, expected about " + expectedEntries);
        assertEquals(tableBytes + cache.entryCount() * 1000, cache.usage());
    }

    @Test
    void occupancyLimitEvictsForSlotsWhenEntriesAreSmallerThanEstimated() {
        var cache = cache(1 << 20, 4096);
        for (int i = 0; i < 5_000; i++) {
            cache.insert(i, 0, pattern(i, 16), 0, 16, 16, Priority.LOW);
        }
        assertTrue(cache.entryCount() <= cache.occupancyLimit());
        assertTrue(cache.stats().evictions() > 0);
    }

    @Test
    void strictLimitRefusesWhenPinnedUsageLeavesNoRoom() {
        long capacity = 256 << 10;
        var cache = cache(capacity, 4096);
        cache.setStrictCapacityLimit(true);
        assertTrue(cache.strictCapacityLimit());
        byte[] v = pattern(1, 4096);
        List<Long> pinned = new ArrayList<>();
        long h;
        int key = 0;
        while ((h = cache.insertPinned(key, 0, v, 0, v.length, v.length, Priority.LOW))
                != Cache.MISS) {
            pinned.add(h);
            key++;
        }
        assertTrue(cache.usage() <= capacity);
        assertFalse(cache.insert(key, 0, v, 0, v.length, v.length, Priority.LOW));
        assertTrue(cache.stats().memoryLimitRejects() >= 2);
        pinned.forEach(cache::release);
        assertTrue(cache.insert(key, 0, v, 0, v.length, v.length, Priority.LOW),
                "after releasing, eviction makes room");
    }

    @Test
    void nonStrictLimitLetsPinnedEntriesExceedCapacity() {
        long capacity = 256 << 10;
        var cache = cache(capacity, 4096);
        byte[] v = pattern(1, 4096);
        List<Long> pinned = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            long h = cache.insertPinned(i, 0, v, 0, v.length, v.length, Priority.LOW);
            assertNotEquals(Cache.MISS, h);
            pinned.add(h);
        }
        assertTrue(cache.usage() > capacity);
        assertTrue(cache.pinnedUsage() >= 100 * 4096L);
        pinned.forEach(cache::release);
        for (int i = 100; i < 300; i++) {
            cache.insert(i, 0, v, 0, v.length, v.length, Priority.LOW);
        }
        assertTrue(cache.usage() <= capacity, "inserts evict back under capacity");
    }

    @Test
    void higherPrioritySurvivesMoreSweeps() {
        long capacity = 1 << 20;
        var cache = cache(capacity, 1024);
        byte[] v = pattern(1, 1024);
        int each = 200;
        for (int i = 0; i < each; i++) {
            cache.insert(i, 1, v, 0, v.length, v.length, Priority.HIGH);
            cache.insert(i, 2, v, 0, v.length, v.length, Priority.BOTTOM);
        }
        // The cache holds ~890 such entries: push enough LOW ones through to evict ~300.
        for (int i = 0; i < 800; i++) {
            cache.insert(i, 3, v, 0, v.length, v.length, Priority.LOW);
        }
        int high = 0;
        int bottom = 0;
        for (int i = 0; i < each; i++) {
            long h = cache.lookup(i, 1);
            if (h != Cache.MISS) {
                high++;
                cache.release(h);
            }
            h = cache.lookup(i, 2);
            if (h != Cache.MISS) {
                bottom++;
                cache.release(h);
            }
        }
        assertTrue(high > bottom + each / 4, "HIGH survivors " + high + ", BOTTOM " + bottom);
    }

    @Test
    void fullTableGivesStandaloneHandles() {
        // 64 slots, 53 usable; entries far smaller than estimated fill slots, not bytes.
        var cache = track(HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(1 << 20)
                .estimatedEntryCharge(1 << 20).numShardBits(0).build());
        assertEquals(2, cache.tableSlots());
        List<Long> pinned = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long h = cache.insertPinned(i, 7, pattern(i, 8), 0, 8, 8, Priority.LOW);
            assertNotEquals(Cache.MISS, h);
            pinned.add(h);
        }
        assertTrue(cache.stats().standaloneInserts() >= 3);
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(pattern(i, 8), read(cache, pinned.get(i)));
        }
        pinned.forEach(cache::release);
        assertEquals(0, cache.standaloneUsage());
    }

    @Test
    void setCapacityShrinksThroughLaterInserts() {
        var cache = cache(1 << 20, 1024);
        byte[] v = pattern(1, 1024);
        for (int i = 0; i < 2000; i++) {
            cache.insert(i, 0, v, 0, v.length, v.length, Priority.LOW);
        }
        cache.setCapacity(512 << 10);
        assertEquals(512 << 10, cache.capacity());
        for (int i = 2000; i < 4000; i++) {
            cache.insert(i, 0, v, 0, v.length, v.length, Priority.LOW);
        }
        assertTrue(cache.usage() <= (512 << 10), "usage " + cache.usage());
    }

    @Test
    void badInputIsRejectedWithTheArgumentNamed() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> HyperClockCache.builder().admission(AdmissionPolicy.NONE).capacity(-1)
                        .estimatedEntryCharge(1).build());
        assertTrue(e.getMessage().contains("capacity"), e.getMessage());
        for (long bad : new long[] {0, -1}) {
            e = assertThrows(IllegalArgumentException.class,
                    () -> HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                            .capacity(1 << 20).estimatedEntryCharge(bad).build());
            assertTrue(e.getMessage().contains("estimatedEntryCharge"), e.getMessage());
        }
        e = assertThrows(IllegalArgumentException.class, () -> HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE)
                .capacity(1 << 20).estimatedEntryCharge(10).numShardBits(17).build());
        assertTrue(e.getMessage().contains("numShardBits"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE)
                .capacity(1 << 20).estimatedEntryCharge(10).evictionEffortCap(0).build());
        assertTrue(e.getMessage().contains("evictionEffortCap"), e.getMessage());

        var cache = cache(1 << 20, 1024);
        byte[] v = pattern(1, 10);
        e = assertThrows(IllegalArgumentException.class,
                () -> cache.insert(1, 1, v, 0, 10, -5, Priority.LOW));
        assertTrue(e.getMessage().contains("charge"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> cache.insert(1, 1, v, 0, 10, 2 << 20, Priority.LOW));
        assertTrue(e.getMessage().contains("capacity"), e.getMessage());
        var npe = assertThrows(NullPointerException.class,
                () -> cache.insert(1, 1, (byte[]) null, 0, 10, 10, Priority.LOW));
        assertTrue(npe.getMessage().contains("value"));
        npe = assertThrows(NullPointerException.class,
                () -> cache.insert(1, 1, v, 0, 10, 10, null));
        assertTrue(npe.getMessage().contains("placement"));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cache.insert(1, 1, v, 5, 10, 10, Priority.LOW));
        assertThrows(IllegalArgumentException.class, () -> cache.setCapacity(0));

        assertThrows(IllegalStateException.class, () -> cache.release(12345)); // made up
        var other = cache(1 << 20, 1024);
        long foreign = other.insertPinned(1, 1, v, 0, 10, 10, Priority.LOW);
        long ours = cache.insertPinned(1, 1, v, 0, 10, 10, Priority.LOW);
        cache.release(ours);
        assertThrows(IllegalStateException.class, () -> cache.release(ours), "double release");
        other.release(foreign);
        long h = cache.lookup(1, 1);
        byte[] small = new byte[4];
        e = assertThrows(IllegalArgumentException.class, () -> cache.copyValue(h, small, 0));
        assertTrue(e.getMessage().contains("dst"));
        cache.release(h);
    }

    /**
     * RocksDB's FIXME in Release, replayed step by step (white-box): an erasing release drops the
     * last reference to A v1, erase frees A v1, and A v2 takes the same slot before the release's
     * CAS. The release must notice the slot's new stamp and stand down, not free A v2.
     */
    @Test
    void anErasingReleaseDoesNotFreeTheEntryThatReplacedItsOwn() {
        var cache = cache(1 << 20, 1024);
        cache.insert(1, 1, pattern(1, 10), 0, 10, 10, Priority.LOW);
        long h = cache.lookup(1, 1);
        ClockProtocol table = cache.tables[0];
        long slot = cache.slotOf(h);
        int stamp = SlotLayout.stamp(table.slots, slot);

        long old = ClockSteps.releaseCountOnly(table, slot); // the release's drop
        assertTrue(cache.erase(1, 1), "erase frees A v1: no reference is left");
        assertTrue(cache.insert(1, 1, pattern(2, 10), 0, 10, 10, Priority.LOW));
        long h2 = cache.lookup(1, 1);
        assertEquals(slot, cache.slotOf(h2), "same slot");
        cache.release(h2);

        assertFalse(ClockSteps.freeIfUnreferenced(table, slot, old, old + ClockSteps.RELEASE_ONE,
                stamp),
                "the release freed the newcomer");
        long h3 = cache.lookup(1, 1);
        assertArrayEquals(pattern(2, 10), read(cache, h3));
        cache.release(h3);
        assertEquals(1, cache.entryCount());
    }

    @Test
    void closeFreesEntriesPinnedAndStandalone() {
        var cache = cache(1 << 20, 1024);
        byte[] v = pattern(1, 100);
        for (int i = 0; i < 100; i++) {
            cache.insert(i, 0, v, 0, 100, 100, Priority.LOW);
        }
        cache.insertPinned(1000, 0, v, 0, 100, 100, Priority.LOW);
        cache.insertPinned(1000, 0, v, 0, 100, 100, Priority.LOW); // standalone duplicate
        assertTrue(NativeMemory.outstandingBytes() > 0);
        cache.close();
        assertEquals(0, NativeMemory.outstandingBytes());
    }

    @Test
    void defaultShardingFollowsRocksDb() {
        assertEquals(5, ShardSizing.defaultShardBits(1L << 30, 32L << 20));
        assertEquals(6, ShardSizing.defaultShardBits(64L << 30, 32L << 20));
        assertEquals(0, ShardSizing.defaultShardBits(8_000_000, 32L << 20));
        // 1 GiB, 8 KiB estimate: 32 shards of 8192 slots, as RocksDB's cache_bench reports.
        var cache = track(HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(1L << 30)
                .estimatedEntryCharge(8192).build());
        assertEquals(32, cache.numShards());
        assertEquals(262_144, cache.tableSlots());
    }
}
