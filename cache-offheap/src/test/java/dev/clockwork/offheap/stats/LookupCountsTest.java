package dev.clockwork.offheap.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

class LookupCountsTest {

    @Test
    void stripesArePowersOfTwoAtOrAboveTheAsk() {
        assertEquals(1, new LookupCounts(1).stripes());
        assertEquals(4, new LookupCounts(3).stripes());
        assertEquals(4, new LookupCounts(4).stripes());
        assertEquals(256, new LookupCounts(10_000).stripes());
        int machine = new LookupCounts().stripes();
        assertTrue(machine >= 2 * Runtime.getRuntime().availableProcessors() || machine == 256);
    }

    @Test
    void oneThreadCountsExactly() {
        LookupCounts counts = new LookupCounts(8);
        for (int i = 0; i < 1000; i++) {
            counts.hit();
        }
        for (int i = 0; i < 7; i++) {
            counts.miss();
        }
        assertEquals(1000, counts.hits());
        assertEquals(7, counts.misses());
    }

    /** Threads on distinct stripes never lose a count, however hard they race. */
    @Test
    void threadsOnDistinctStripesCountExactly() throws Exception {
        LookupCounts counts = new LookupCounts(8);
        int threads = 4;
        int perThread = 200_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        Set<Integer> stripesTaken = new HashSet<>();
        List<Thread> chosen = new ArrayList<>();
        for (int tries = 0; chosen.size() < threads; tries++) {
            assertTrue(tries < 1000, "consecutive thread ids should fill distinct stripes");
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                for (int i = 0; i < perThread; i++) {
                    counts.hit();
                    counts.miss();
                }
            });
            if (stripesTaken.add(counts.stripeOf(t.threadId()))) {
                chosen.add(t); // a thread on a stripe already taken is never started
            }
        }
        chosen.forEach(Thread::start);
        for (Thread t : chosen) {
            t.join();
        }
        assertEquals((long) threads * perThread, counts.hits());
        assertEquals((long) threads * perThread, counts.misses());
    }
}
