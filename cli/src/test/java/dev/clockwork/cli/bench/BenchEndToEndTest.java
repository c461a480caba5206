package dev.clockwork.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A tiny real run against the real cache. */
class BenchEndToEndTest {

    @Test
    void tinyRun() {
        Object[] r = BenchFlagsTest.runMain("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-seed=1");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Population complete ("), out);
        assertTrue(out.contains("Cache impl name     : FixedHyperClockCache"), out);
        assertTrue(out.contains("Rough parallel ops/sec = "), out);
        assertTrue(out.contains("Thread ops/sec = "), out);
        assertTrue(out.contains("Lookup hit ratio: "), out);
        assertTrue(out.contains("Final load factor: "), out);
        assertTrue(out.contains("Final pinned count: "), out);
        assertTrue(out.contains("Operation latency (ns):"), out);
        assertTrue(out.contains("Percentiles: P50: "), out);
        assertTrue(out.contains("Max RSS: "), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        String err = (String) r[2];
        assertTrue(err.matches("(?s).*Slot occupancy stats: Overall \\d+% \\(\\d+/\\d+\\),"
                + " Min/Max/Window = \\d+%/\\d+%/\\d+, MaxRun\\{Pos/Neg\\} = \\d+/\\d+\n.*"), err);
        assertTrue(err.contains("Eviction effort exceeded: "), err);
    }

    @Test
    void leanWithoutPopulationOrHistograms() {
        Object[] r = BenchFlagsTest.runMain("bench", "-cache_size=1048576", "-threads=3",
                "-ops_per_thread=1000", "-value_bytes=1000", "-lean", "-populate_cache=0",
                "-histograms=false", "-pinned_ratio=0", "-noreport_problems");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.startsWith("Using seed = " + (ProcessHandle.current().pid() & 0xFFFFFFFFL)),
                out);
        assertTrue(!out.contains("Population complete"), out);
        assertTrue(!out.contains("Operation latency"), out);
        assertTrue(out.contains("Final pinned count: 0"), out);
        assertTrue(!((String) r[2]).contains("Slot occupancy stats"), (String) r[2]);
        assertTrue(out.contains("Rough parallel ops/sec = "), out);
    }
}
