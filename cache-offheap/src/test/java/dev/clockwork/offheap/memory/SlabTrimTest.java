package dev.clockwork.offheap.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Trimming of the value slabs: chunks emptied by one size class serve another, free pages go back
 * to the kernel, and the resident memory of a moving size mix stays near what is live.
 */
class SlabTrimTest extends SlabsFixture {

    /** A FIFO of values holding at most {@code capacity} bytes of lengths, like a full cache. */
    private final class Fifo {
        final long capacity;
        final ArrayDeque<long[]> values = new ArrayDeque<>();
        long live;

        Fifo(long capacity) {
            this.capacity = capacity;
        }

        void insert(int length, SplittableRandom random) {
            while (live + length > capacity && !values.isEmpty()) {
                long[] old = values.poll();
                slabs.freeGuarded(old[0], (int) old[1]);
                live -= old[1];
            }
            long block = slabs.allocate(length);
            // write every page the value covers, as a copy in would
            for (long at = 0; at < length; at += SizeClasses.PAGE) {
                RAW.set(ValueLayout.JAVA_BYTE, block + at, (byte) random.nextInt());
            }
            RAW.set(ValueLayout.JAVA_BYTE, block + length - 1, (byte) 1);
            values.add(new long[] {block, length});
            live += length;
        }

        void clear() {
            for (long[] v : values) {
                slabs.freeGuarded(v[0], (int) v[1]);
            }
            values.clear();
            live = 0;
        }
    }

    /** Each class's block size from 32 B to 1 MiB, up then down: the sweep the sizes make. */
    private static List<Integer> sweep() {
        List<Integer> lengths = new ArrayList<>();
        for (int c = 1; SizeClasses.blockBytes(c) <= MIB; c++) {
            lengths.add((int) SizeClasses.blockBytes(c));
        }
        List<Integer> down = new ArrayList<>(lengths);
        Collections.reverse(down);
        lengths.addAll(down);
        return lengths;
    }

    /**
     * A full 8 MiB "cache" whose value size moves through every class from 32 B to 1 MiB and
     * back, three times its capacity per class: without trimming, each class would keep a
     * capacity's worth of blocks (over 60 x 8 MiB resident); with it, the resident chunk bytes
     * stay within the capacity plus slack and a few chunks.
     */
    @Test
    void aMovingSizeMixKeepsResidentBytesNearTheCapacity() {
        long capacity = 8 * MIB;
        Fifo fifo = new Fifo(capacity);
        SplittableRandom random = new SplittableRandom(7);
        long maxResident = 0;
        long maxHeld = 0;
        for (int length : sweep()) {
            for (long inserted = 0; inserted < 3 * capacity; inserted += length) {
                fifo.insert(length, random);
            }
            maxResident = Math.max(maxResident, slabs.residentBytes());
            maxHeld = Math.max(maxHeld, slabs.chunkBytes() - slabs.emptyChunkBytes());
        }
        // live lengths <= 8 MiB; their blocks and links add under 25 %; 4 MiB more is the newest
        // chunks' carved blocks and the free blocks below the trim thresholds (measured: 11.3)
        assertTrue(maxResident <= capacity * 5 / 4 + 4 * MIB, "resident " + maxResident);
        assertTrue(maxHeld <= 4 * capacity, "chunks held by classes " + maxHeld);
        assertTrue(slabs.trims() > 0);
        fifo.clear();
    }

    /**
     * A chunk emptied by the 64-byte class serves the 128-byte class (both have 1 MiB chunks):
     * its blocks read and write correctly, no chunk is mapped for it, and frees and reuse in
     * both classes go on.
     */
    @Test
    void aChunkMovesToAnotherClassAndItsBlocksWork() {
        int small = 64;
        int other = 128;
        assertEquals(SizeClasses.chunkShift(SizeClasses.classOf(small)),
                SizeClasses.chunkShift(SizeClasses.classOf(other)));
        long chunk = 1L << SizeClasses.chunkShift(SizeClasses.classOf(small));
        List<Long> blocks = new ArrayList<>();
        for (int i = 0; i < SizeClasses.blocksPerChunk(SizeClasses.classOf(small)); i++) {
            long block = slabs.allocate(small);
            RAW.asSlice(block, small).fill((byte) 0x77);
            blocks.add(block);
        }
        assertEquals(chunk, slabs.chunkBytes());
        long start = blocks.get(0) & -chunk;
        for (long block : blocks) {
            slabs.freeGuarded(block, small);
        }
        slabs.trim();
        assertEquals(chunk, slabs.emptyChunkBytes(), "the emptied chunk is in the reserve");
        assertEquals(0, slabs.freeBlocks(SizeClasses.classOf(small)));
        assertEquals(0, RAW.get(ValueLayout.JAVA_BYTE, blocks.get(7)), "its pages went back");

        Set<Long> moved = new HashSet<>();
        int n = SizeClasses.blocksPerChunk(SizeClasses.classOf(other));
        for (int i = 0; i < n; i++) {
            long block = slabs.allocate(other);
            assertEquals(start, block & -chunk, "a block of the reused chunk");
            assertTrue(moved.add(block));
            RAW.asSlice(block, other).fill((byte) i);
        }
        assertEquals(chunk, slabs.chunkBytes(), "no chunk mapped for the second class");
        assertEquals(0, slabs.emptyChunkBytes());
        int i = 0;
        for (long block : moved.stream().sorted().toList()) {
            byte expected = RAW.get(ValueLayout.JAVA_BYTE, block);
            assertEquals(expected, RAW.get(ValueLayout.JAVA_BYTE, block + other - 1),
                    "block " + i++);
            slabs.free(block, other);
        }
        assertEquals(n, slabs.freeBlocks(SizeClasses.classOf(other)));
        for (int k = 0; k < n; k++) {
            assertTrue(moved.contains(slabs.allocate(other - 1)), "freed blocks are reused");
        }
        // the first class carves a new chunk of its own
        long fresh = slabs.allocate(small);
        assertTrue((fresh & -chunk) != start);
        assertEquals(2 * chunk, slabs.chunkBytes());
    }

    /** An emptied chunk of 8 MiB (a page class) serves a small class: its first MiB is used. */
    @Test
    void aBiggerEmptyChunkServesASmallerClass() {
        int page = 64 * 1024;
        long block = slabs.allocate(page);
        long big = 1L << SizeClasses.chunkShift(SizeClasses.classOf(page));
        slabs.freeGuarded(block, page);
        slabs.trim();
        assertEquals(big, slabs.emptyChunkBytes());
        long small = slabs.allocate(100);
        assertEquals(block & -big, small & -big, "the small class took the bigger chunk");
        RAW.asSlice(small, 100).fill((byte) 3);
        slabs.freeGuarded(small, 100);
        assertEquals(small, slabs.allocate(100));
        assertEquals(big, slabs.chunkBytes());
        long again = slabs.allocate(page); // the page class maps anew
        assertTrue((again & -big) != (block & -big));
    }

    /** Pages inside runs of free blocks go back while a live block keeps its chunk. */
    @Test
    void freeRunsOfAPartlyUsedChunkGiveTheirPagesBack() {
        int length = 8192;
        int c = SizeClasses.classOf(length);
        List<Long> blocks = new ArrayList<>();
        for (int i = 0; i < SizeClasses.blocksPerChunk(c); i++) {
            long block = slabs.allocate(length);
            RAW.asSlice(block, length).fill((byte) 0x44);
            blocks.add(block);
        }
        long before = slabs.residentBytes();
        long kept = blocks.get(blocks.size() / 2);
        for (long block : blocks) {
            if (block != kept) {
                slabs.freeGuarded(block, length);
            }
        }
        slabs.trim();
        long after = slabs.residentBytes();
        assertTrue(before - after >= (blocks.size() - 3) * (long) length,
                "resident " + before + " -> " + after);
        assertEquals(0x44, RAW.get(ValueLayout.JAVA_BYTE, kept + length - 1), "the live block");
        // a free block's pages that it shares with no live block read zeros
        assertEquals(0, RAW.get(ValueLayout.JAVA_BYTE, blocks.get(0) + length / 2), "free");
        assertEquals(blocks.size() - 1, slabs.freeBlocks(c));
        slabs.freeGuarded(kept, length);
        slabs.trim();
        assertEquals(slabs.chunkBytes(), slabs.emptyChunkBytes(), "the chunk is empty now");
    }

    /** Close frees every chunk: those classes hold, those in the reserve, and reused ones. */
    @Test
    void closeFreesHeldReservedAndMovedChunks() {
        Fifo fifo = new Fifo(4 * MIB);
        SplittableRandom random = new SplittableRandom(3);
        for (int length : new int[] {64, 1000, 70_000, 200, 64}) {
            for (long inserted = 0; inserted < 8 * MIB; inserted += length) {
                fifo.insert(length, random);
            }
        }
        slabs.trim();
        assertTrue(slabs.emptyChunkBytes() > 0, "some chunks are in the reserve");
        assertEquals(baseline + slabs.chunkBytes(), NativeAllocator.outstandingBytes(),
                "every mapped byte is counted once: held by a class or in the reserve");
        context.closeArena();
        slabs.freeAll();
        assertEquals(baseline, NativeAllocator.outstandingBytes());
    }

    /**
     * Threads allocate and free blocks whose sizes move through the classes, tagging each block
     * and checking the tag before the free, while another thread trims all along: no block is
     * handed to two owners, and at the end every byte is accounted for exactly.
     */
    @Test
    void concurrentAllocateFreeAndTrimStayConsistent() throws Exception {
        int threads = 3;
        int rounds = 150_000;
        int[] lengths = {16, 48, 64, 100, 300, 1000, 4000, 8192, 16_384, 40_000, 200_000};
        // the sizes move: a window of three classes sliding with the rounds
        churnTagged(threads, rounds, 256, (i, random) -> lengths[Math.min(lengths.length - 1,
                (int) ((long) i * lengths.length / rounds) + random.nextInt(3))], false,
                slabs::trim);
        assertTrue(slabs.trims() > 10, "trims ran: " + slabs.trims());
        assertEquals(slabs.chunkBytes(), slabs.idleBytes(), "blocks still out after every free");
        assertEquals(baseline + slabs.chunkBytes(), NativeAllocator.outstandingBytes());
        for (int length : lengths) {
            int c = SizeClasses.classOf(length);
            Set<Long> distinct = new HashSet<>();
            long free = slabs.freeBlocks(c);
            for (long i = 0; i < free; i++) {
                assertTrue(distinct.add(slabs.allocate(length)), "a block is on the stacks twice");
            }
            assertEquals(0, slabs.freeBlocks(c));
        }
        slabs.trim(); // nothing is free: nothing moves
        assertEquals(baseline + slabs.chunkBytes(), NativeAllocator.outstandingBytes());
    }
}
