package dev.clockwork.offheap.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The class of every slab length: fits, is the smallest that fits, and the slack stays bounded. */
class SizeClassesTest {

    @Test
    void everyLengthGoesToTheSmallestClassThatHoldsIt() {
        for (int length = 0; length <= SizeClasses.MAX_LENGTH; length++) {
            int c = SizeClasses.classOf(length);
            assertTrue(c >= 0 && c < SizeClasses.COUNT, "class of " + length + ": " + c);
            assertTrue(SizeClasses.blockBytes(c) >= length, "block of " + length + " too small");
            if (c > 0) {
                assertTrue(SizeClasses.blockBytes(c - 1) < length,
                        "length " + length + " fits class " + (c - 1) + " already");
            }
        }
        assertEquals(SizeClasses.COUNT - 1, SizeClasses.classOf(SizeClasses.MAX_LENGTH));
    }

    @Test
    void blocksGrowAreGranulesAndCommonSizesFitExactly() {
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            int block = SizeClasses.blockBytes(c);
            assertEquals(0, block % SizeClasses.GRANULE, "block " + block);
            if (c > 0) {
                assertTrue(block > SizeClasses.blockBytes(c - 1));
            }
        }
        for (int length : new int[] {16, 64, 96, 256, 512, 1024, 4096, 8192, 16384}) {
            assertEquals(length, SizeClasses.blockBytes(SizeClasses.classOf(length)),
                    "length " + length);
        }
    }

    @Test
    void slackIsBoundedAsTheClassCommentSays() {
        double worst = 0;
        double sumRelative = 0;
        for (int length = 1; length <= SizeClasses.MAX_LENGTH; length++) {
            int slack = SizeClasses.blockBytes(SizeClasses.classOf(length)) - length;
            if (length <= SizeClasses.FINE_LIMIT) {
                assertTrue(slack < SizeClasses.GRANULE, "slack " + slack + " at " + length);
            } else {
                worst = Math.max(worst, (double) slack / length);
            }
            sumRelative += (double) slack / length;
        }
        assertTrue(worst < 0.25, "worst slack " + worst);
        double average = sumRelative / SizeClasses.MAX_LENGTH;
        assertTrue(average < 0.095, "average slack " + average);
    }

    @Test
    void chunksAreAlignedPowersOfTwoHoldingEnoughBlocks() {
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            long chunk = 1L << SizeClasses.chunkShift(c);
            int blocks = SizeClasses.blocksPerChunk(c);
            assertTrue(chunk >= 1024 * 1024 && chunk <= 4096 * 1024, "chunk " + chunk);
            assertTrue(blocks >= SizeClasses.MIN_BLOCKS_PER_CHUNK - 1, "blocks " + blocks);
            long tail = chunk - SizeClasses.CHUNK_HEADER_BYTES
                    - (long) blocks * SizeClasses.blockBytes(c);
            assertTrue(tail >= 0 && tail < SizeClasses.blockBytes(c));
            assertTrue(tail + SizeClasses.CHUNK_HEADER_BYTES <= chunk / 256, "waste in class " + c);
            // a block index (chunk number | granule) has 32 bits
            assertTrue(SizeClasses.chunkShift(c) - SizeClasses.GRANULE_SHIFT < 32);
        }
    }

    @Test
    void slabLengthsAreZeroToTheMaximum() {
        assertTrue(SizeClasses.inSlab(0));
        assertTrue(SizeClasses.inSlab(SizeClasses.MAX_LENGTH));
        assertFalse(SizeClasses.inSlab(SizeClasses.MAX_LENGTH + 1));
        assertFalse(SizeClasses.inSlab(-1));
    }
}
