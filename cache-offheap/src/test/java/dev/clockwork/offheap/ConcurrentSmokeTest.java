package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.checksummed;
import static dev.clockwork.offheap.TestValues.verifyChecksummed;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Several threads insert, look up, pin, erase and release over a small key space in a cache small
 * enough to evict constantly. Every value encodes its key and a checksum, so a hit that returns
 * another key's bytes or freed memory is caught; afterwards the accounting must balance exactly.
 */
class ConcurrentSmokeTest {
    private static final int THREADS = 4;
    private static final int OPS = 200_000;
    private static final int KEYS = 4_000;

    @Test
    void valuesStayIntactAndAccountingBalances() throws Exception {
        try (var cache = HyperClockCache.builder().capacity(512 << 10)
                .estimatedEntryCharge(300).numShardBits(1).build()) {
            runWorkload(cache);
            assertEquals(0, cache.pinnedUsage());
            assertEquals(0, cache.standaloneUsage());
            // Charges equal value lengths and metadata is the table, so usage is native bytes.
            assertEquals(ModelAccess.nativeBytesAtValueLengths(cache)
                    - cache.standaloneRecordBytes(), cache.usage());
            assertTrue(cache.usage() <= cache.capacity() + 64 * 1024,
                    "usage " + cache.usage() + " far over capacity");
            var stats = cache.stats();
            assertTrue(stats.hits() > 0 && stats.misses() > 0 && stats.evictions() > 0,
                    stats::toString);
        }
        assertEquals(0, NativeMemory.outstandingBytes());
    }

    static void runWorkload(Cache cache) throws Exception {
        byte[][] values = new byte[KEYS][];
        for (int k = 0; k < KEYS; k++) {
            values[k] = checksummed(k);
        }
        var barrier = new CyclicBarrier(THREADS);
        var failure = new AtomicReference<Throwable>();
        var verified = new AtomicLong();
        Thread[] threads = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            long seed = 42 + t;
            threads[t] = new Thread(() -> {
                var random = new SplittableRandom(seed);
                var pinned = new ArrayDeque<long[]>();
                try {
                    barrier.await();
                    for (int op = 0; op < OPS; op++) {
                        long key = random.nextInt(KEYS);
                        int dice = random.nextInt(100);
                        byte[] v = values[(int) key];
                        if (dice < 60) {
                            long h = cache.lookup(key, ~key);
                            if (h != Cache.MISS) {
                                verifyChecksummed(cache, h, key);
                                verified.incrementAndGet();
                                cache.release(h, random.nextInt(50) == 0);
                            }
                        } else if (dice < 75) {
                            long h = cache.insertPinned(key, ~key, v, 0, v.length, v.length,
                                    Priority.values()[random.nextInt(3)]);
                            if (h != Cache.MISS) {
                                verifyChecksummed(cache, h, key);
                                pinned.addLast(new long[] {h, key});
                            }
                        } else if (dice < 95) {
                            cache.insert(key, ~key, v, 0, v.length, v.length, Priority.LOW);
                        } else {
                            cache.erase(key, ~key);
                        }
                        while (pinned.size() > 8) {
                            long[] p = pinned.removeFirst();
                            verifyChecksummed(cache, p[0], p[1]);
                            cache.release(p[0]);
                        }
                    }
                    for (long[] p : pinned) {
                        verifyChecksummed(cache, p[0], p[1]);
                        cache.release(p[0]);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("worker failed", failure.get());
        }
        assertTrue(verified.get() > 0);
    }
}
