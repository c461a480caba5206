package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.checksummed;
import static dev.clockwork.offheap.TestValues.checksummedLength;
import static dev.clockwork.offheap.TestValues.verifyChecksummed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.util.ArrayDeque;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * LRU under four threads on overlapping keys: values stay intact and, once quiet, the accounting
 * is exact.
 */
class LruThreadsTest extends LruCacheTestBase {
    /** The key's {@link TestValues#checksummed} value, charged its length. */
    private static void verifyThreadValue(Cache cache, long handle, long key) {
        verifyChecksummed(cache, handle, key);
        if (cache.charge(handle) != checksummedLength(key)) {
            throw new AssertionError("charge of key " + key + " is " + cache.charge(handle));
        }
    }

    @Test
    void fourThreadsOnOverlappingKeysKeepValuesAndAccountingIntact() throws Exception {
        final int threads = 4;
        final int ops = 200_000;
        final int keys = 3_000;
        LruCache cache = track(LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(256 << 10).numShardBits(2)
                .highPriPoolRatio(0.3).lowPriPoolRatio(0.3).build());
        byte[][] values = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            values[k] = checksummed(k);
        }
        var barrier = new CyclicBarrier(threads);
        var failure = new AtomicReference<Throwable>();
        var verified = new AtomicLong();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            long seed = 1000 + t;
            workers[t] = new Thread(() -> {
                var random = new SplittableRandom(seed);
                var held = new ArrayDeque<long[]>();
                try {
                    barrier.await();
                    for (int op = 0; op < ops; op++) {
                        long key = random.nextInt(keys);
                        byte[] v = values[(int) key];
                        Priority priority = Priority.values()[random.nextInt(3)];
                        int dice = random.nextInt(100);
                        if (dice < 50) {
                            long h = cache.lookup(key, key1(key));
                            if (h != Cache.MISS) {
                                verifyThreadValue(cache, h, key);
                                verified.incrementAndGet();
                                if (random.nextInt(4) == 0) {
                                    held.addLast(new long[] {h, key});
                                } else {
                                    cache.release(h, random.nextInt(50) == 0);
                                }
                            }
                        } else if (dice < 60) {
                            long h = cache.insertPinned(key, key1(key), v, 0, v.length,
                                    v.length, priority);
                            if (h != Cache.MISS) {
                                verifyThreadValue(cache, h, key);
                                if (random.nextBoolean()) {
                                    cache.ref(h);
                                    held.addLast(new long[] {h, key});
                                }
                                held.addLast(new long[] {h, key});
                            }
                        } else if (dice < 92) {
                            if (!cache.insert(key, key1(key), v, 0, v.length, v.length,
                                    priority)) {
                                throw new AssertionError("a plain insert was refused");
                            }
                        } else {
                            cache.erase(key, key1(key));
                        }
                        while (held.size() > 6) {
                            long[] p = held.removeFirst();
                            verifyThreadValue(cache, p[0], p[1]); // erased or not, still intact
                            cache.release(p[0]);
                        }
                    }
                    for (long[] p : held) {
                        verifyThreadValue(cache, p[0], p[1]);
                        cache.release(p[0]);
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
            throw new AssertionError("worker failed", failure.get());
        }
        assertTrue(verified.get() > 10_000, "too few hits to mean anything: " + verified.get());

        // Quiescent: nothing pinned, and usage is exactly what the entries found charge.
        assertEquals(0, cache.pinnedUsage());
        LruCache.PoolUsage pools = cache.poolUsage();
        assertEquals(0, pools.pinned());
        assertEquals(cache.usage(), pools.total());
        assertTrue(cache.usage() <= cache.capacity(),
                "usage " + cache.usage() + " over capacity with nothing pinned");
        long charged = 0;
        long found = 0;
        for (long k = 0; k < keys; k++) {
            long h = cache.lookup(k, key1(k));
            if (h != Cache.MISS) {
                verifyThreadValue(cache, h, k);
                charged += cache.charge(h) + 64;
                found++;
                assertFalse(cache.release(h));
            }
        }
        assertEquals(cache.entryCount(), found);
        assertEquals(cache.usage(), charged, "usage is not the sum of the entries' charges");
        var stats = cache.stats();
        assertTrue(stats.evictions() > 0 && stats.misses() > 0, stats.toString());
        assertEquals(0, stats.memoryLimitRejects());
    }
}
