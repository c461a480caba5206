package dev.clockwork.cli.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class JvmBillTest {

    /** A requested collection is a pause of the running collector, with the heap it left. */
    @Test
    void countsTheCollectionsOfThePhaseAndItsCpu() throws InterruptedException {
        JvmBill bill = new JvmBill().start();
        long sink = 0;
        for (int i = 0; i < 2_000; i++) {
            sink += new byte[64 << 10].length; // 128 MiB of garbage
        }
        System.gc();
        Thread.sleep(200); // the notification comes from the JVM's own thread
        JvmBill.Bill b = bill.stop();
        assertTrue(sink > 0);
        assertTrue(b.pauses() >= 1, b.toString());
        assertTrue(b.maxPauseMillis() <= b.pauseMillis(), b.toString());
        assertTrue(b.heapAfterLastGcBytes() >= 0 && b.heapAfterLastGcBytes() < b.maxHeapBytes(),
                b.toString());
        assertTrue(b.cpuNanos() > 0, b.toString());
        assertTrue(b.describe(1000).startsWith("GC: "), b.describe(1000));
        // a second phase starts from zero
        JvmBill.Bill quiet = new JvmBill().start().stop();
        assertEquals(0, quiet.pauses(), quiet.toString());
        assertEquals(-1, quiet.heapAfterLastGcBytes());
    }

    @Test
    void concurrentCycleBeansAreNotPauses() {
        assertTrue(JvmBill.isCycles("ZGC Major Cycles"));
        assertTrue(JvmBill.isCycles("Shenandoah Cycles"));
        assertFalse(JvmBill.isCycles("ZGC Major Pauses"));
        assertFalse(JvmBill.isCycles("G1 Concurrent GC"));
        assertFalse(JvmBill.isCycles("G1 Young Generation"));
    }
}
