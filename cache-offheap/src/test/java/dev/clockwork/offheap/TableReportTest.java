package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.clock.ClockSteps;
import dev.clockwork.offheap.clock.FixedClockTable;
import dev.clockwork.offheap.clock.SlotLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TableReportTest {
    private final List<Cache> caches = new ArrayList<>();

    private FixedHyperClockCache cache(long capacity, long estimate, int shardBits) {
        FixedHyperClockCache cache = HyperClockCache.builder().capacity(capacity)
                .estimatedEntryCharge(estimate).numShardBits(shardBits).build();
        caches.add(cache);
        return cache;
    }

    @AfterEach
    void closeAll() {
        caches.forEach(Cache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    /** Inserts {@code count} distinct keys, each with a small value and the given charge. */
    private static void fill(Cache cache, int count, long charge) {
        byte[] value = new byte[8];
        for (int i = 0; i < count; i++) {
            cache.insert(i, 12345, value, 0, value.length, charge, Priority.LOW);
        }
    }

    @Test
    void emptyCache() {
        // 1 MiB at an estimate of 1 KiB: 2048 slots in one shard
        var cache = cache(1 << 20, 1024, 0);
        TableReport r = cache.tableReport();
        assertEquals(new TableReport(2048, 0, 500, 0, 0, 0, 2048, 0), r);
        assertEquals(0.0, r.occupancy());
        assertEquals("Overall 0% (0/2048), Min/Max/Window = 0%/0%/500, MaxRun{Pos/Neg} = 0/2048",
                r.occupancySummary());
        assertNull(cache.entryChargeRecommendation());
    }

    @Test
    void emptyCacheWithShardsReportsRunsPerShard() {
        var cache = cache(4 << 20, 1024, 2);
        TableReport r = cache.tableReport();
        assertEquals(4 * 2048, r.slots());
        assertEquals(0, r.occupied());
        assertEquals(2048, r.maxEmptyRun(), "runs do not span shards");
    }

    @Test
    void smallShardShrinksTheWindow() {
        // 64 KiB at 1 KiB: 128 slots, fewer than a default window
        var cache = cache(64 << 10, 1024, 0);
        fill(cache, 10, 64);
        TableReport r = cache.tableReport();
        assertEquals(128, r.window());
        assertEquals(10, r.minWindowOccupied());
        assertEquals(10, r.maxWindowOccupied());
    }

    @Test
    void entriesMuchSmallerThanTheEstimate() {
        var cache = cache(1 << 20, 1024, 0);
        FixedClockTable table = (FixedClockTable) cache.tables[0];
        fill(cache, 10_000, 64);
        TableReport r = cache.tableReport();

        assertEquals(cache.entryCount(), r.occupied());
        // the table is the bound, not capacity (an eviction step may free a few slots at once)
        assertTrue(r.occupied() <= cache.occupancyLimit() && r.occupied() > cache.occupancyLimit()
                - 8, r.occupied() + " of limit " + cache.occupancyLimit());
        assertEquals(expected(cache, table, 500), r);
        assertTrue(r.maxWindowOccupied() >= Math.min(r.maxOccupiedRun(), r.window()));
        assertTrue(r.minWindowOccupied() <= r.window() - Math.min(r.maxEmptyRun(), r.window()));
        assertTrue(r.maxOccupiedRun() + r.maxEmptyRun() <= r.slots());

        String advice = cache.entryChargeRecommendation();
        assertNotNull(advice);
        assertTrue(advice.contains("1/1 shards"), advice);
        assertTrue(advice.endsWith("Recommend estimatedEntryCharge=64"), advice);
    }

    @Test
    void rightEstimateGivesNoAdvice() {
        var cache = cache(1 << 20, 1024, 0);
        fill(cache, 10_000, 1024);
        assertTrue(cache.usage() >= 0.99 * cache.capacity(), "filled to capacity");
        assertEquals(expected(cache, (FixedClockTable) cache.tables[0], 500),
                cache.tableReport());
        assertNull(cache.entryChargeRecommendation());
    }

    @Test
    void entriesMuchLargerThanTheEstimate() {
        // 4 MiB at 256: 32768 slots (2 MiB of them charged); 8 KiB entries fill 256 of them
        var cache = cache(4 << 20, 256, 0);
        fill(cache, 2_000, 8192);
        String advice = cache.entryChargeRecommendation();
        assertNotNull(advice);
        assertTrue(advice.contains("sparsely occupied"), advice);
        assertTrue(advice.endsWith("Recommend estimatedEntryCharge=8192"), advice);
    }

    @Test
    void evictionEffortExceededIsReported() {
        var cache = cache(1 << 20, 1024, 0);
        byte[] value = new byte[8];
        // pin everything, then ask for more: evictions find only pinned entries and give up
        for (int i = 0; i < 2_000; i++) {
            long h = cache.insertPinned(i, 1, value, 0, value.length, 1024, Priority.LOW);
            assertTrue(h != Cache.MISS);
        }
        assertTrue(cache.tableReport().evictionEffortExceeded() > 0);
        assertEquals(cache.stats().evictionEffortExceeded(),
                cache.tableReport().evictionEffortExceeded());
    }

    /** The report for one table, computed the slow, obvious way from its meta words. */
    private static TableReport expected(HyperClockCache cache, FixedClockTable table, int window) {
        int n = (int) table.slotCount;
        boolean[] occupied = new boolean[n];
        long count = 0;
        for (int i = 0; i < n; i++) {
            occupied[i] = !ClockSteps.isEmpty(ClockSteps.meta(table, SlotLayout.slotOffset(i)));
            count += occupied[i] ? 1 : 0;
        }
        long min = window;
        long max = 0;
        for (int start = 0; start + window <= n; start++) {
            long inWindow = 0;
            for (int i = start; i < start + window; i++) {
                inWindow += occupied[i] ? 1 : 0;
            }
            min = Math.min(min, inWindow);
            max = Math.max(max, inWindow);
        }
        long maxPos = 0;
        long maxNeg = 0;
        for (int i = 0; i < n; ) {
            int j = i;
            while (j < n && occupied[j] == occupied[i]) {
                j++;
            }
            if (occupied[i]) {
                maxPos = Math.max(maxPos, j - i);
            } else {
                maxNeg = Math.max(maxNeg, j - i);
            }
            i = j;
        }
        return new TableReport(n, count, window, min, max, maxPos, maxNeg,
                cache.context.stats.evictionEffortExceeded.sum());
    }
}
