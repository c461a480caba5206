package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AutoHyperClockCacheTest {
    private final List<Cache> caches = new ArrayList<>();

    private AutoHyperClockCache cache(long capacity, int shardBits) {
        return track(AutoHyperClockCache.builder().capacity(capacity).numShardBits(shardBits).build());
    }

    private <C extends Cache> C track(C cache) {
        caches.add(cache);
        return cache;
    }

    @AfterEach
    void closeAllAndCheckNativeMemory() {
        caches.forEach(Cache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
        assertEquals(0, NativeMemory.reservedBytes(), "address space reservation not released");
    }

    @Test
    void insertLookupReleaseErase() {
        var cache = cache(1 << 20, 0);
        byte[] value = FixedHyperClockCacheTest.bytes(100, 7);
        assertTrue(cache.insert(1, 2, value, 0, value.length, 100, Priority.LOW));
        long h = cache.lookup(1, 2);
        assertNotEquals(Cache.MISS, h);
        assertArrayEquals(value, FixedHyperClockCacheTest.read(cache, h));
        cache.release(h);
        assertEquals(Cache.MISS, cache.lookup(1, 3));
        assertTrue(cache.erase(1, 2));
        assertEquals(Cache.MISS, cache.lookup(1, 2));
        assertFalse(cache.erase(1, 2));
        assertEquals(0, cache.entryCount());
    }

    @Test
    void builderPicksAutoWithoutEstimateAndFixedWithOne() {
        assertInstanceOf(AutoHyperClockCache.class,
                track(HyperClockCache.newBuilder().capacity(1 << 20).build()));
        assertInstanceOf(FixedHyperClockCache.class,
                track(HyperClockCache.newBuilder().capacity(1 << 20).estimatedEntryCharge(1000).build()));
    }

    @Test
    void growsFromOnePageToFitEntriesAndFindsThemAll() {
        var cache = cache(256L << 20, 0);
        long startSlots = cache.tableSlots();
        assertEquals(64, startSlots);
        int n = 100_000;
        for (long k = 0; k < n; k++) {
            assertTrue(cache.insert(k, k * 7, new byte[8], 0, 8, 8, Priority.LOW));
        }
        assertEquals(n, cache.entryCount());
        // Grown just enough: the occupancy limit (0.6 of the slots) covers the entries.
        assertTrue(cache.occupancyLimit() >= n, "table did not grow: " + cache.tableSlots());
        assertTrue(cache.tableSlots() < n / AutoClockTable.MAX_LOAD_FACTOR + 64,
                "table grew too far: " + cache.tableSlots());
        for (long k = 0; k < n; k++) {
            long h = cache.lookup(k, k * 7);
            assertNotEquals(Cache.MISS, h, "lost key " + k);
            cache.release(h);
        }
        var report = cache.chainReport();
        assertEquals(n, report.entries());
        assertEquals(cache.tableSlots(), report.homes());
    }

    @Test
    void concurrentInsertsAndLookupsWhileGrowingLoseNothing() throws Exception {
        var cache = cache(1L << 30, 1);
        int threads = 4;
        int perThread = 60_000;
        var barrier = new CyclicBarrier(threads);
        var failure = new AtomicReference<Throwable>();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            long base = (long) t << 40;
            workers[t] = new Thread(() -> {
                try {
                    barrier.await();
                    for (long i = 0; i < perThread; i++) {
                        long key = base + i;
                        assertTrue(cache.insert(key, ~key, new byte[16], 0, 16, 16, Priority.LOW));
                        // Everything this thread inserted so far must be found mid-growth.
                        long probe = base + (i * 7919) % (i + 1);
                        long h = cache.lookup(probe, ~probe);
                        if (h == Cache.MISS) {
                            throw new AssertionError("key " + probe + " not found while growing");
                        }
                        cache.release(h);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals((long) threads * perThread, cache.entryCount());
        for (int t = 0; t < threads; t++) {
            for (long i = 0; i < perThread; i++) {
                long key = ((long) t << 40) + i;
                long h = cache.lookup(key, ~key);
                assertNotEquals(Cache.MISS, h, "lost key " + key);
                cache.release(h);
            }
        }
        assertEquals((long) threads * perThread, cache.chainReport().entries());
    }

    @Test
    void concurrentChurnKeepsValuesIntactAndAccountingExact() throws Exception {
        var cache = track(AutoHyperClockCache.builder().capacity(512 << 10).numShardBits(1)
                .minAvgEntryCharge(200).build());
        ConcurrentSmokeTest.runWorkload(cache);
        assertEquals(0, cache.pinnedUsage());
        assertEquals(0, cache.standaloneUsage());
        long metadata = cache.tableSlots() * SlotLayout.SLOT_BYTES;
        assertEquals(NativeMemory.outstandingBytes() + metadata, cache.usage());
        var stats = cache.stats();
        assertTrue(stats.hits() > 0 && stats.misses() > 0 && stats.evictions() > 0, stats::toString);
        assertEquals(cache.entryCount(), cache.chainReport().entries());
    }
}
