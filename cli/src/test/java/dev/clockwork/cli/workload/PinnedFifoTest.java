package dev.clockwork.cli.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PinnedFifoTest {

    @Test
    void totalPinCountRoundsUp() {
        // cache_bench defaults: 1 GiB * 0.25 / 8 KiB = 32768 exactly
        assertEquals(32_768, PinnedFifo.totalPinCount(1L << 30, 0.25, 8192));
        // 1 MiB * 0.25 / 256 = 1024
        assertEquals(1024, PinnedFifo.totalPinCount(1 << 20, 0.25, 256));
        // fractions round up: 1000 * 0.25 / 300 = 0.833.. -> 1
        assertEquals(1, PinnedFifo.totalPinCount(1000, 0.25, 300));
        // 10000 * 0.1 / 300 = 3.33.. -> 4
        assertEquals(4, PinnedFifo.totalPinCount(10_000, 0.1, 300));
        // the +0.999999 leaves an excess below one millionth alone
        assertEquals(5, PinnedFifo.totalPinCount(5_000_000, 1.0, 1_000_000));
        assertEquals(6, PinnedFifo.totalPinCount(5_000_010, 1.0, 1_000_000));
        assertEquals(0, PinnedFifo.totalPinCount(1 << 20, 0.0, 256));
    }

    @Test
    void perThreadSharesAddUpToTheTotal() {
        for (long total : new long[] {0, 1, 7, 1024, 32_768, 32_769}) {
            for (int threads : new int[] {1, 2, 3, 16, 17}) {
                long sum = 0;
                for (int tid = 0; tid < threads; tid++) {
                    long share = PinnedFifo.pinCountForThread(total, tid, threads);
                    assertEquals((total + tid) / threads, share);
                    sum += share;
                }
                assertEquals(total, sum, "total " + total + " threads " + threads);
            }
        }
        // 7 over 3 threads: 2, 2, 3 (later threads round up)
        assertEquals(2, PinnedFifo.pinCountForThread(7, 0, 3));
        assertEquals(2, PinnedFifo.pinCountForThread(7, 1, 3));
        assertEquals(3, PinnedFifo.pinCountForThread(7, 2, 3));
    }

    @Test
    void fifoReleasesOldestFirstAndKeepsPinCount() {
        int pinCount = 3;
        PinnedFifo fifo = new PinnedFifo(pinCount);
        StringBuilder released = new StringBuilder();
        for (long h = 1; h <= 10; h++) {
            fifo.push(h);
            while (fifo.size() > pinCount) {
                released.append(fifo.pop()).append(' ');
            }
            assertEquals(Math.min(h, pinCount), fifo.size());
        }
        assertEquals("1 2 3 4 5 6 7 ", released.toString());
        assertEquals(8, fifo.pop());
        assertEquals(9, fifo.pop());
        assertEquals(10, fifo.pop());
        assertEquals(0, fifo.size());
    }

    @Test
    void zeroPinCountReleasesEveryHandleAfterItsOp() {
        PinnedFifo fifo = new PinnedFifo(0);
        fifo.push(5);
        assertEquals(1, fifo.size());
        assertEquals(5, fifo.pop());
        fifo.push(6);
        assertEquals(6, fifo.pop());
    }

    @Test
    void remembersKeysWhenAsked() {
        PinnedFifo f = new PinnedFifo(2, true);
        for (long round = 0; round < 5; round++) { // wraps around the ring
            f.push(10 + round, 20 + round, 30 + round);
            f.push(11 + round, 21 + round, 31 + round);
            assertEquals(10 + round, f.peek());
            assertEquals(20 + round, f.headKey0());
            assertEquals(30 + round, f.headKey1());
            assertEquals(10 + round, f.pop());
            assertEquals(21 + round, f.headKey0());
            assertEquals(31 + round, f.headKey1());
            assertEquals(11 + round, f.pop());
            assertEquals(0, f.size());
        }
        PinnedFifo plain = new PinnedFifo(1);
        plain.push(5, 6, 7); // keys are dropped
        assertEquals(5, plain.pop());
    }
}
