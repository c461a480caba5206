package dev.clockwork.offheap.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The class of every slab length: fits, is the smallest that fits, and the slack stays bounded. */
class SizeClassesTest {

    @Test
    void everyLengthGoesToTheSmallestClassThatHoldsIt() {
        for (int length = 0; length <= 4 * SizeClasses.SMALL_MAX; length++) {
            checkClassOf(length);
        }
        for (int c = 0; c < SizeClasses.COUNT; c++) { // each block's edges, to 2^31
            long block = SizeClasses.blockBytes(c);
            for (long length : new long[] {block - 1, block, block + 1}) {
                if (length <= Integer.MAX_VALUE) {
                    checkClassOf((int) length);
                }
            }
        }
        assertEquals(SizeClasses.SMALL_COUNT - 1, SizeClasses.classOf(SizeClasses.SMALL_MAX));
        assertEquals(SizeClasses.COUNT - 1, SizeClasses.classOf(Integer.MAX_VALUE));
    }

    private static void checkClassOf(int length) {
        int c = SizeClasses.classOf(length);
        assertTrue(c >= 0 && c < SizeClasses.COUNT, "class of " + length + ": " + c);
        assertTrue(SizeClasses.blockBytes(c) >= length, "block of " + length + " too small");
        if (c > 0) {
            assertTrue(SizeClasses.blockBytes(c - 1) < length,
                    "length " + length + " fits class " + (c - 1) + " already");
        }
    }

    @Test
    void blocksGrowAreGranulesAndCommonSizesFitExactly() {
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            long block = SizeClasses.blockBytes(c);
            assertEquals(0, block % SizeClasses.GRANULE, "block " + block);
            if (c >= SizeClasses.SMALL_COUNT) {
                assertEquals(0, block % SizeClasses.PAGE, "page class block " + block);
            }
            if (c > 0) {
                assertTrue(block > SizeClasses.blockBytes(c - 1));
            }
        }
        for (int length : new int[] {16, 64, 96, 256, 512, 1024, 4096, 8192, 16384, 1 << 17,
                1 << 20, 1 << 30}) {
            assertEquals(length, SizeClasses.blockBytes(SizeClasses.classOf(length)),
                    "length " + length);
        }
    }

    @Test
    void slackIsBoundedAsTheClassCommentSays() {
        double worst = 0;
        double sumRelative = 0;
        for (int length = 1; length <= SizeClasses.SMALL_MAX; length++) {
            long slack = SizeClasses.blockBytes(SizeClasses.classOf(length)) - length;
            if (length <= SizeClasses.FINE_LIMIT) {
                assertTrue(slack < SizeClasses.GRANULE, "slack " + slack + " at " + length);
            } else {
                worst = Math.max(worst, (double) slack / length);
            }
            sumRelative += (double) slack / length;
        }
        assertTrue(worst < 0.25, "worst slack " + worst);
        double average = sumRelative / SizeClasses.SMALL_MAX;
        assertTrue(average < 0.095, "average slack " + average);
        for (int c = SizeClasses.SMALL_COUNT; c < SizeClasses.COUNT; c++) {
            long shortest = SizeClasses.blockBytes(c - 1) + 1; // the worst length of the class
            double slack = (double) (SizeClasses.blockBytes(c) - shortest) / shortest;
            assertTrue(slack < 0.25, "slack " + slack + " in class " + c);
        }
    }

    @Test
    void chunksAreAlignedPowersOfTwoHoldingEnoughBlocks() {
        for (int c = 0; c < SizeClasses.SMALL_COUNT; c++) {
            long chunk = 1L << SizeClasses.chunkShift(c);
            long block = SizeClasses.blockBytes(c);
            int blocks = SizeClasses.blocksPerChunk(c);
            int header = SizeClasses.headerBytes(c);
            assertTrue(chunk >= 1024 * 1024 && chunk <= 4096 * 1024, "chunk " + chunk);
            assertTrue(blocks >= SizeClasses.MIN_BLOCKS_PER_CHUNK - 1, "blocks " + blocks);
            // the header holds the number and a link per block, and blocks start 64-aligned
            assertTrue(header >= SizeClasses.LINKS_OFFSET + 4L * blocks, "header of " + c);
            assertTrue(header < SizeClasses.LINKS_OFFSET + 4L * blocks + 64, "header of " + c);
            assertEquals(0, header % 64);
            long tail = chunk - header - blocks * block;
            assertTrue(tail >= 0 && tail < block + 4 + 64, "tail " + tail + " in class " + c);
            // what is not a block: the links (4 bytes a block), the number's line and the tail
            assertTrue(tail + header <= 4L * blocks + 64 + block + 64, "waste in class " + c);
            assertBlocksNumbered(c, blocks);
        }
        for (int c = SizeClasses.SMALL_COUNT; c < SizeClasses.COUNT; c++) {
            long chunk = 1L << SizeClasses.chunkShift(c);
            long block = SizeClasses.blockBytes(c);
            int blocks = SizeClasses.blocksPerChunk(c);
            assertEquals(SizeClasses.PAGE, SizeClasses.headerBytes(c));
            assertTrue(blocks >= 1 && SizeClasses.PAGE + blocks * block <= chunk, "class " + c);
            assertTrue(SizeClasses.LINKS_OFFSET + 4L * blocks <= SizeClasses.PAGE, "links " + c);
            // 8 MiB while that holds a block, else the smallest power of two that holds one
            assertTrue(chunk == 8L << 20 || (chunk / 2 < SizeClasses.PAGE + block && blocks == 1),
                    "chunk " + chunk + " for block " + block);
            assertEquals(SizeClasses.PAGE_SHIFT, SizeClasses.granuleShift(c));
            assertBlocksNumbered(c, blocks);
        }
    }

    /** A block index (chunk number | block number) has room for every block and 2^15 chunks. */
    private static void assertBlocksNumbered(int c, int blocks) {
        int bits = SizeClasses.blockBits(c);
        assertTrue(blocks <= 1L << bits && (bits == 0 || blocks > 1L << (bits - 1)), "class " + c);
        assertTrue(bits <= 32 - 15, "class " + c + ": " + bits + " block bits");
    }

    @Test
    void blocksFrom32MiBReturnTheirPages() {
        int returning = 0;
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            assertEquals(SizeClasses.blockBytes(c) >= 32 << 20, SizeClasses.returnsPages(c));
            returning += SizeClasses.returnsPages(c) ? 1 : 0;
        }
        // the classes whose free blocks keep their pages until a trim (ChunkReserve)
        assertEquals(83, SizeClasses.COUNT - returning);
        assertEquals(108, SizeClasses.COUNT);
    }
}
