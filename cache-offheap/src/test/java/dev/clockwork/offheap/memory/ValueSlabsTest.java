package dev.clockwork.offheap.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Allocation, reuse, concurrent use and close of one cache's value slabs. */
class ValueSlabsTest extends SlabsFixture {

    @Test
    void blocksAreDistinctAlignedAndReusedAfterFree() {
        int length = 100;
        int c = SizeClasses.classOf(length);
        Set<Long> seen = new HashSet<>();
        List<Long> blocks = new ArrayList<>();
        for (int i = 0; i < 3 * SizeClasses.blocksPerChunk(c); i++) { // three chunks
            long block = slabs.allocate(length);
            assertEquals(0, block % SizeClasses.GRANULE, "alignment");
            assertTrue(seen.add(block), "block handed out twice");
            RAW.asSlice(block, length).fill((byte) i);
            blocks.add(block);
        }
        assertEquals(3L << SizeClasses.chunkShift(c), slabs.chunkBytes());
        assertEquals(0, slabs.freeBlocks(c));
        for (long block : blocks) {
            slabs.free(block, length);
        }
        assertEquals(blocks.size(), slabs.freeBlocks(c));
        Set<Long> again = new HashSet<>();
        for (int i = 0; i < blocks.size(); i++) {
            long block = slabs.allocate(length + 5); // same class
            assertTrue(seen.contains(block), "a freed block is reused before a chunk is carved");
            assertTrue(again.add(block), "block handed out twice");
        }
        assertEquals(3L << SizeClasses.chunkShift(c), slabs.chunkBytes(), "no chunk carved");
        for (long block : again) {
            slabs.freeGuarded(block, length);
        }
    }

    @Test
    void blocksOfAChunkDoNotOverlap() {
        for (int length : new int[] {0, 16, 17, 255, 257, 1000, 8192, SizeClasses.SMALL_MAX}) {
            long a = slabs.allocate(length);
            long b = slabs.allocate(length);
            long block = SizeClasses.blockBytes(SizeClasses.classOf(length));
            assertTrue(Math.abs(a - b) >= block, "blocks of " + length + " overlap");
            slabs.free(a, length);
            slabs.free(b, length);
        }
    }

    @Test
    void longValuesAreBlocksOfPageClassesThatReturnTheirPagesWhenFreed() {
        int length = SizeClasses.RETURN_PAGES_MIN;
        int c = SizeClasses.classOf(length);
        long block = slabs.allocate(length);
        assertEquals(0, block % SizeClasses.PAGE, "page-aligned");
        assertEquals(1L << SizeClasses.chunkShift(c), slabs.chunkBytes(), "one chunk, no malloc");
        MemorySegment bytes = RAW.asSlice(block, length);
        bytes.fill((byte) 0x5A);
        slabs.freeGuarded(block, length);
        // The block reads zeros: its pages went back to the kernel (the free-list link is in
        // the chunk's header), and the address is still mapped.
        for (long at = 0; at < length; at += 99_991) {
            assertEquals(0, bytes.get(ValueLayout.JAVA_BYTE, at), "byte " + at);
        }
        assertEquals(0, bytes.get(ValueLayout.JAVA_BYTE, length - 1));
        assertEquals(block, slabs.allocate(length - 4096), "the freed block is reused");
        // An unguarded free (one close does not wait for) keeps the pages.
        bytes.fill((byte) 0x5A);
        slabs.free(block, length);
        assertEquals(0x5A, bytes.get(ValueLayout.JAVA_BYTE, length - 1));
    }

    @Test
    void blocksBelowTheReturnThresholdKeepTheirBytesWhenFreed() {
        int length = 1 << 20;
        long block = slabs.allocate(length);
        RAW.asSlice(block, length).fill((byte) 0x33);
        slabs.freeGuarded(block, length);
        assertEquals(0x33, RAW.get(ValueLayout.JAVA_BYTE, block + length - 1));
    }

    @Test
    void badLengthsAreRefusedNamingTheArgument() {
        var e = assertThrows(IllegalArgumentException.class, () -> slabs.allocate(-1));
        assertTrue(e.getMessage().contains("length"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> slabs.free(8, -3));
        assertThrows(IllegalArgumentException.class, () -> slabs.freeGuarded(8, -3));
    }

    @Test
    void closeFreesEveryChunkWithBlocksStillOut() {
        for (int length = 0; length <= SizeClasses.SMALL_MAX; length += 97) {
            slabs.allocate(length);
        }
        long carved = slabs.chunkBytes();
        assertTrue(carved > 0);
        assertEquals(baseline + carved, NativeAllocator.outstandingBytes());
        context.closeArena();
        slabs.freeAll();
        assertEquals(baseline, NativeAllocator.outstandingBytes());
        // After close: allocation is refused, a late unguarded free is dropped quietly.
        assertThrows(IllegalStateException.class, () -> slabs.allocate(64));
        slabs.free(12345 << 4, 64);
    }

    @Test
    void closeFreesTheChunksOfLongValuesStillOut() {
        slabs.allocate(64);
        slabs.allocate(SizeClasses.SMALL_MAX + 100);
        slabs.allocate(3 << 20);
        slabs.allocate(9 << 20); // a chunk of its own
        context.closeArena();
        slabs.freeAll();
        assertEquals(baseline, NativeAllocator.outstandingBytes());
    }

    /**
     * Threads allocate, tag each block with their id and a sequence number, check the tag is still
     * theirs before freeing, and free to their own stripe while others take from it: a block handed
     * to two owners at once is caught when one finds the other's tag.
     */
    @Test
    void concurrentAllocateAndFreeNeverHandAFreeBlockToTwoOwners() throws Exception {
        int threads = 4;
        int rounds = 200_000;
        int[] lengths = {24, 64, 64, 300, 8192, 40_000, 200_000};
        churnTagged(threads, rounds, 64, (i, random) -> lengths[random.nextInt(lengths.length)],
                true, null);
        // Every block handed out is back, once: the chunks hold no live block, and draining the
        // stacks yields each block once.
        assertEquals(slabs.chunkBytes(), slabs.idleBytes(), "blocks still out after every free");
        for (int length : new int[] {24, 64, 300, 8192}) {
            int c = SizeClasses.classOf(length);
            Set<Long> distinct = new HashSet<>();
            long free = slabs.freeBlocks(c);
            assertNotEquals(0, free);
            for (long i = 0; i < free; i++) {
                assertTrue(distinct.add(slabs.allocate(length)), "a block is on the stacks twice");
            }
            assertEquals(0, slabs.freeBlocks(c));
        }
    }
}
