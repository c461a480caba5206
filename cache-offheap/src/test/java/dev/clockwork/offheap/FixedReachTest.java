package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.clock.ClockSteps;
import dev.clockwork.offheap.clock.FixedClockTable;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fixed table's reach words (see {@code Reach}): after any sequence of inserts, evictions,
 * erases and pinned entries, single-threaded or racing, every home counts exactly the entries
 * homed there and reaches at least as far as the farthest of them, so a lookup that probes only
 * that far finds every entry.
 */
@ExtendWith(NativeLeakCheck.class)
class FixedReachTest {
    private static final byte[] VALUE = new byte[64];

    /** One shard sized for 1 KiB entries, filled with 64-byte ones: the occupancy limit binds. */
    private static FixedHyperClockCache occupancyBound() {
        return HyperClockCache.builder().capacity(1 << 20).estimatedEntryCharge(1024)
                .numShardBits(0).admission(AdmissionPolicy.NONE).build();
    }

    private static FixedClockTable table(FixedHyperClockCache cache) {
        return (FixedClockTable) cache.tables[0];
    }

    @Test
    void churnAtTheOccupancyLimitKeepsEveryReachExact() {
        try (var cache = occupancyBound()) {
            SplittableRandom random = new SplittableRandom(7);
            long[] pinned = new long[16];
            for (int i = 0; i < 200_000; i++) {
                long key = random.nextLong(40_000);
                switch (random.nextInt(8)) {
                    case 0 -> cache.erase(key, 0L);
                    case 1 -> {
                        int p = random.nextInt(pinned.length);
                        if (pinned[p] != Cache.MISS) {
                            cache.release(pinned[p]);
                        }
                        pinned[p] = cache.lookup(key, 0L);
                    }
                    default -> cache.insert(key, 0L, VALUE, 0, 64, 64, Priority.LOW);
                }
            }
            for (long h : pinned) {
                if (h != Cache.MISS) {
                    cache.release(h);
                }
            }
            assertTrue(cache.entryCount() > 0.8 * cache.occupancyLimit(), "at the limit");
            assertNull(ClockSteps.reachMismatch(table(cache)));
            for (long key = 0; key < 40_000; key++) {
                long h = cache.lookup(key, 0L);
                if (h != Cache.MISS) {
                    cache.release(h);
                }
            }
            assertEveryEntryIsFound(cache);
        }
    }

    @Test
    void racingInsertsEvictionsAndErasesLeaveExactReaches() throws Exception {
        try (var cache = occupancyBound()) {
            int threads = 4;
            CountDownLatch start = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                long seed = t;
                workers[t] = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    try {
                        start.await();
                        for (int i = 0; i < 100_000; i++) {
                            long key = random.nextLong(20_000);
                            if (random.nextInt(10) == 0) {
                                cache.erase(key, 0L);
                            } else {
                                cache.insert(key, 0L, VALUE, 0, 64, 64, Priority.LOW);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                workers[t].start();
            }
            start.countDown();
            for (Thread w : workers) {
                w.join();
            }
            assertNull(failure.get());
            assertNull(ClockSteps.reachMismatch(table(cache)));
            assertEveryEntryIsFound(cache);
        }
    }

    /** A lookup of every key the table holds finds an entry of it. */
    private static void assertEveryEntryIsFound(Cache cache) {
        List<Long> keys = new ArrayList<>();
        cache.forEachEntry((key0, key1, value, charge) -> keys.add(key0), 64);
        assertEquals(cache.entryCount(), keys.size());
        for (long key : keys) {
            long h = cache.lookup(key, 0L);
            assertTrue(h != Cache.MISS, "key " + key + " is in the table but not found");
            cache.release(h);
        }
    }
}
