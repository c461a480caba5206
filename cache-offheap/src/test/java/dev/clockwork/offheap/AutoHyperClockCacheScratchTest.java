package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.RepeatedTest;

class AutoHyperClockCacheScratchTest {
    @RepeatedTest(20)
    void diag() throws Exception {
        try (var cache = AutoHyperClockCache.builder().capacity(1L << 30).numShardBits(1).build()) {
            int threads = 4;
            int perThread = 60_000;
            var barrier = new CyclicBarrier(threads);
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                long base = (long) t << 40;
                workers[t] = new Thread(() -> {
                    try {
                        barrier.await();
                        for (long i = 0; i < perThread; i++) {
                            long key = base + i;
                            if (!cache.insert(key, ~key, new byte[16], 0, 16, 16, Priority.LOW)) throw new AssertionError();
                            long probe = base + (i * 7919) % (i + 1);
                            long h = cache.lookup(probe, ~probe);
                            if (h != Cache.MISS) cache.release(h); else System.out.println("MISS during " + probe);
                        }
                    } catch (Exception e) { throw new RuntimeException(e); }
                });
                workers[t].start();
            }
            for (Thread w : workers) w.join();
            long missing = 0;
            StringBuilder sb = new StringBuilder();
            for (int t = 0; t < threads; t++) {
                for (long i = 0; i < perThread; i++) {
                    long key = ((long) t << 40) + i;
                    long h = cache.lookup(key, ~key);
                    if (h == Cache.MISS) { missing++; if (missing < 10) sb.append(key).append(' '); }
                    else cache.release(h);
                }
            }
            System.out.println("entryCount=" + cache.entryCount() + " missing=" + missing + " " + sb
                + " stats=" + cache.stats() + " chain=" + cache.chainReport() + " slots=" + cache.tableSlots()
                + " occLimit=" + cache.occupancyLimit());
        }
    }
}
