package dev.clockwork.offheap.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Stranded bytes (free blocks whose pages a live neighbour keeps resident) as a trim counts them,
 * and the capacity cut they set ({@link ValueSlabs#capacityCut}).
 */
class StrandedBytesTest extends SlabsFixture {
    /** Under a page: every page a block covers holds a part of a neighbour too. */
    private static final int LENGTH = 2560;

    private List<Long> fillChunks(int chunks) {
        int c = SizeClasses.classOf(LENGTH);
        List<Long> blocks = new ArrayList<>();
        for (int i = 0; i < chunks * SizeClasses.blocksPerChunk(c); i++) {
            long block = slabs.allocate(LENGTH);
            RAW.asSlice(block, LENGTH).fill((byte) 0x5A);
            blocks.add(block);
        }
        return blocks;
    }

    /** The cut (a share of capacity) a share {@code r} of stranded bytes asks for. */
    private static double expectedCut(double r) {
        int a = ChunkReserve.STRANDED_ALLOWANCE;
        return Math.max(0, (r * (a + 1) - 1) / a);
    }

    @Test
    void theCutIsZeroUpToTheAllowanceThenGrowsToItsCap() {
        long floor = ChunkReserve.STRANDED_FLOOR;
        long resident = 100 * MIB;
        long atAllowance = resident / (ChunkReserve.STRANDED_ALLOWANCE + 1);
        assertEquals(0, ChunkReserve.cutOf(0, resident));
        assertEquals(0, ChunkReserve.cutOf(floor, 0), "the floor alone");
        assertEquals(0, ChunkReserve.cutOf(floor + atAllowance, resident - atAllowance));
        assertTrue(ChunkReserve.cutOf(floor + 2 * atAllowance, resident - atAllowance) > 0);
        int half = ChunkReserve.cutOf(floor + resident / 2, resident / 2);
        assertEquals(expectedCut(0.5), half / (double) ChunkReserve.CUT_ONE, 1e-4);
        assertEquals(ChunkReserve.MAX_CUT, ChunkReserve.cutOf(floor + resident, 0), "all");
        assertEquals(ChunkReserve.MAX_CUT, ChunkReserve.cutOf(floor + resident, -1),
                "no live estimate");
    }

    /**
     * Every other block freed: no page of a freed block is free of a live one, so all of it is
     * stranded, and the cut holds back what puts the live blocks plus the stranded ones beyond
     * the floor within 1/32 over capacity. Once the live ones go too, the chunks empty and the
     * cut is 0.
     */
    @Test
    void blocksFreedAmongLiveOnesAreStrandedAndCutCapacity() {
        List<Long> blocks = fillChunks(24);
        long freed = 0;
        for (int i = 0; i < blocks.size(); i += 2) {
            slabs.freeGuarded(blocks.get(i), LENGTH);
            freed += LENGTH;
        }
        assertEquals(0, slabs.capacityCut(MIB), "no trim yet");
        slabs.trim();
        assertEquals(freed, slabs.strandedBytes());
        long live = blocks.size() / 2 * (long) LENGTH;
        long over = freed - ChunkReserve.STRANDED_FLOOR;
        long cut = slabs.capacityCut(256 * MIB);
        long expected = (long) (256 * MIB * expectedCut(over / (double) (over + live)));
        assertTrue(expected > 0);
        assertEquals(expected, cut, 256 * MIB / 1000.0, "cut " + cut);
        for (int i = 1; i < blocks.size(); i += 2) {
            slabs.freeGuarded(blocks.get(i), LENGTH);
        }
        slabs.trim();
        assertEquals(0, slabs.strandedBytes());
        assertEquals(0, slabs.capacityCut(256 * MIB));
        assertEquals(slabs.chunkBytes(), slabs.emptyChunkBytes(), "every chunk emptied");
    }

    /** Free runs whose whole pages went back are not stranded; their edges are. */
    @Test
    void runsOfFreeBlocksStrandOnlyTheirEdgePages() {
        List<Long> blocks = fillChunks(1);
        int kept = blocks.size() / 2;
        for (int i = 0; i < blocks.size(); i++) {
            if (i != kept) {
                slabs.freeGuarded(blocks.get(i), LENGTH);
            }
        }
        slabs.trim();
        long stranded = slabs.strandedBytes();
        assertTrue(stranded > 0 && stranded <= 4 * SizeClasses.PAGE, "stranded " + stranded);
        assertEquals(0, slabs.capacityCut(256 * MIB), "within the allowance");
    }

    /**
     * A cut in force is refreshed by a trim once the last is old, even if nothing grows: freeing
     * the live blocks (no carving, so no trim is due) takes it to 0 at the next read.
     */
    @Test
    void aCutFallsWhenItsStrandedPagesEmptyWithoutGrowth() {
        List<Long> blocks = fillChunks(24);
        for (int i = 0; i < blocks.size(); i += 2) {
            slabs.freeGuarded(blocks.get(i), LENGTH);
        }
        slabs.trim();
        assertTrue(slabs.capacityCut(256 * MIB) > 0);
        long trims = slabs.trims();
        for (int i = 1; i < blocks.size(); i += 2) {
            slabs.freeGuarded(blocks.get(i), LENGTH);
        }
        LockSupport.parkNanos(ChunkReserve.CUT_REFRESH_NANOS + 20_000_000L);
        assertEquals(0, slabs.capacityCut(256 * MIB));
        assertEquals(trims + 1, slabs.trims(), "the read trimmed once");
        assertEquals(0, slabs.strandedBytes());
    }
}
