package dev.clockwork.cli.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cli.CacheFactory;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** What the runs allocate up front (workers' buffers, a fixed table) against the memory. */
class SizeChecksTest {
    private static final long GIB = 1L << 30;

    @Test
    void workersFitWithinThreeQuartersOfTheHeapAndTheMachinesMemory() {
        OptionalLong memory = OptionalLong.of(16 * GIB);
        // 4 workers x 192 MiB = 768 MiB: exactly 75% of a 1 GiB heap
        assertNull(SizeChecks.workersFit(4, 192L << 20, "h", 1, "n", GIB, memory));
        String heap = SizeChecks.workersFit(4, (192L << 20) + 1, "the rings", 1, "n", GIB,
                memory);
        assertTrue(heap.startsWith("-threads=4 workers hold 201326593 bytes of heap each (the"
                + " rings), 805306372 in all, more than 75% of the JVM's maximum heap (1024"
                + " MiB): lower -threads or those sizes, or raise the heap"), heap);
        assertNull(SizeChecks.workersFit(16, 1, "h", GIB, "n", GIB, memory));
        assertEquals("-threads=17 workers hold 1073741824 bytes of native memory each (two"
                + " buffers), 18253611008 in all, more than this machine's memory, 17179869184"
                + " bytes: lower -threads or the value size",
                SizeChecks.workersFit(17, 1, "h", GIB, "two buffers", GIB, memory));
        assertNull(SizeChecks.workersFit(17, 1, "h", GIB, "n", GIB, OptionalLong.empty()),
                "memory unknown: not judged");
    }

    /** The largest products the tools allow must not overflow into a "fits". */
    @Test
    void hugeProductsAreRefusedNotWrapped() {
        assertTrue(SizeChecks.workersFit(1 << 16, Long.MAX_VALUE / 1000, "h", 1, "n", GIB,
                OptionalLong.empty()) != null);
        assertTrue(SizeChecks.workersFit(1 << 16, 1, "h", Long.MAX_VALUE / 1000, "n", GIB,
                OptionalLong.of(GIB)) != null);
    }

    private static CacheFactory.Settings fixed(long capacity, long valueBytes) {
        return new CacheFactory.Settings(CacheFactory.FIXED_HYPER_CLOCK, capacity, valueBytes, 0,
                -1, false, 30, 0, 0.5, 0, "none");
    }

    /**
     * A fixed table is allocated whole when the cache is built: 1 TiB of 8 KiB values has a
     * table of 2^28 slots (16 GiB, as measured), 2 TiB twice that.
     */
    @Test
    void fixedTablesAreEstimatedAsTheBuilderSizesThem() {
        assertEquals(16 * GIB, SizeChecks.fixedTableBytes(1L << 40, 8192));
        assertEquals(32 * GIB, SizeChecks.fixedTableBytes(1L << 41, 8192));
        assertEquals(64, SizeChecks.fixedTableBytes(1, 8192));
        assertEquals(Long.MAX_VALUE, SizeChecks.fixedTableBytes(Long.MAX_VALUE, 1));
    }

    @Test
    void fixedTablesLargerThanTheMachineAreRefusedNamingTheFlags() {
        Map<String, String> flags = Map.of("capacity", "-cache_size",
                "estimatedEntryCharge", "-value_bytes");
        OptionalLong memory = OptionalLong.of(24 * GIB);
        assertNull(SizeChecks.fixedTableFits(fixed(1L << 40, 8192), flags, memory));
        assertEquals("-cache_type=fixed_hyper_clock_cache allocates its table up front:"
                + " -cache_size 2199023255552 in entries of -value_bytes 8192 takes about"
                + " 34359738368 bytes of it, more than this machine's memory, 25769803776 bytes:"
                + " lower -cache_size, raise -value_bytes, or use auto_hyper_clock_cache (its"
                + " table grows with what it holds)",
                SizeChecks.fixedTableFits(fixed(1L << 41, 8192), flags, memory));
        CacheFactory.Settings auto = new CacheFactory.Settings(CacheFactory.AUTO_HYPER_CLOCK,
                1L << 50, 8192, 0, -1, false, 30, 0, 0.5, 0, "none");
        assertNull(SizeChecks.fixedTableFits(auto, flags, memory), "the Auto table grows");
    }
}
