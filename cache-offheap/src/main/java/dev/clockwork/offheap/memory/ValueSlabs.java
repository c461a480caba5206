package dev.clockwork.offheap.memory;

import java.lang.foreign.MemorySegment;

/**
 * Native memory for one cache's values: values up to {@link SizeClasses#MAX_LENGTH} bytes are
 * blocks of per-class slabs ({@link BlockPool}), longer ones are malloc'd one by one
 * ({@link NativeAllocator}). Which of the two a value is follows from its length alone, so a value
 * carries no header and a free needs only the address and length its record holds anyway.
 *
 * <h2>Why slabs</h2>
 * A slab's chunks stay mapped until the cache closes, so a thread that read a value's address and
 * reads the value after it was freed (and maybe reused) reads stale bytes, never unmapped memory:
 * a reader can copy a value optimistically and check the entry's stamp afterwards. A malloc'd
 * value may be returned to the kernel by {@code free}. Slabs also drop malloc's 8–16-byte header
 * per value, and a block's allocation or free is one CAS on a stack in the Java heap, with no
 * downcall.
 *
 * <p>Values longer than {@link SizeClasses#MAX_LENGTH} are not in slabs and so may be unmapped
 * once freed; a reader that copies without a reference must not rely on them staying mapped.
 *
 * <h2>Memory</h2>
 * Beside the live values' bytes, the slabs hold:
 * <ul>
 *   <li>each block's slack: under 16 bytes for values up to 256 bytes; above, under 25% of the
 *       length and 9% on average ({@link SizeClasses});</li>
 *   <li>per chunk, its 64-byte header and the tail after its last whole block: 0.01–0.4%;</li>
 *   <li>per class in use, the newest chunk's blocks not yet handed out (chunks of 1 to 4 MiB;
 *       56 MiB if all {@link SizeClasses#COUNT} (40) classes are in use): counted as
 *       allocated, but their pages become resident only as blocks are handed out, 16 at a
 *       time;</li>
 *   <li>free blocks. Chunks are never returned before close, so each class keeps as many blocks
 *       as it ever had live at once. When the mix of value sizes shifts, the blocks of the classes
 *       no longer used stay stranded until close: the slabs hold the sum over classes of each
 *       class's peak, not the peak of the sum. A cache filled with one mix and then with another
 *       holds at most the values of both (twice its capacity in value bytes, plus slack); the
 *       adversarial bound, the mix moving through every class in turn, is 40 times.</li>
 * </ul>
 *
 * <h2>Close</h2>
 * Three ways to free, by who may race close: {@link #free} for callers close does not wait for
 * (an insert that failed before reaching the index): it writes through the cache's scoped view
 * and, once the arena is closed, leaves the block to {@link #freeAll}; {@link #freeGuarded} for
 * callers close waits out (inside the close gate, or under a shard's lock that close takes before
 * {@link #freeAll}); {@link #freeAtClose} for close's own walk over the entries, which leaves slab
 * blocks to {@link #freeAll}. Allocation always reads through the scoped view.
 */
public final class ValueSlabs {
    /** Unscoped: for callers that close waits out before it frees the chunks. */
    private static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /** All memory, scoped to the cache's arena. */
    private final MemorySegment scoped;
    private final BlockPool[] pools = new BlockPool[SizeClasses.COUNT];

    /**
     * @param scoped all of memory, scoped to the cache's arena ({@link CacheMemory#all()}): a
     *     thread racing close reads or writes a block through it, and gets an exception once the
     *     arena is closed, before any chunk is freed
     */
    public ValueSlabs(MemorySegment scoped) {
        this.scoped = scoped;
        for (int c = 0; c < pools.length; c++) {
            pools[c] = new BlockPool(c);
        }
    }

    /**
     * Allocates room for a value of {@code length} bytes, its contents stale.
     *
     * @throws IllegalArgumentException if {@code length} is negative
     * @throws OutOfMemoryError if native memory cannot be had
     * @throws IllegalStateException if the cache was closed
     */
    public long allocate(int length) {
        if (SizeClasses.inSlab(length)) {
            return pools[SizeClasses.classOf(length)].allocate(scoped);
        }
        return NativeAllocator.allocate(checkLength(length));
    }

    /**
     * Frees a value for a caller that close does not wait for. If the cache's arena is closed, the
     * block is left to {@link #freeAll}, which frees its chunk; never throws for that.
     */
    public void free(long address, int length) {
        if (SizeClasses.inSlab(length)) {
            try {
                pools[SizeClasses.classOf(length)].free(scoped, address);
            } catch (IllegalStateException closed) {
                if (scoped.scope().isAlive()) {
                    throw closed;
                }
            }
        } else {
            NativeAllocator.free(address, checkLength(length));
        }
    }

    /**
     * Frees a value for a caller that close waits out before {@link #freeAll} (one inside the
     * cache's close gate, or under a lock close takes first): unscoped, so it cannot throw half
     * way when the arena closes.
     */
    public void freeGuarded(long address, int length) {
        if (SizeClasses.inSlab(length)) {
            pools[SizeClasses.classOf(length)].free(RAW, address);
        } else {
            NativeAllocator.free(address, checkLength(length));
        }
    }

    /**
     * Frees a value during close, after the arena is closed: a malloc'd value now, a slab block
     * with its chunk in {@link #freeAll}.
     */
    public void freeAtClose(long address, int length) {
        if (!SizeClasses.inSlab(length)) {
            NativeAllocator.free(address, checkLength(length));
        }
    }

    private static int checkLength(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, was " + length);
        }
        return length;
    }

    /** Native bytes of the slabs' chunks (values, free blocks, slack); not malloc'd values. */
    public long chunkBytes() {
        long bytes = 0;
        for (BlockPool pool : pools) {
            bytes += pool.chunkBytes();
        }
        return bytes;
    }

    /**
     * Bytes of the chunks that hold no value: free blocks, chunk headers and tails. Walks the
     * free stacks, so only for tests and reports, when no other thread uses the cache.
     */
    public long idleBytes() {
        long bytes = 0;
        for (BlockPool pool : pools) {
            bytes += pool.idleBytes();
        }
        return bytes;
    }

    /** Native bytes a value of {@code length} takes: its block, or its malloc'd length. */
    public static long footprint(int length) {
        return SizeClasses.inSlab(length)
                ? SizeClasses.blockBytes(SizeClasses.classOf(length)) : checkLength(length);
    }

    /** Free blocks of a class, counted by walking its stacks; for tests, when nothing else runs. */
    long freeBlocks(int sizeClass) {
        return pools[sizeClass].freeBlocks();
    }

    /**
     * Frees every chunk. Last in close: after the arena is closed and every caller of
     * {@link #freeGuarded} is done. Allocations after it throw {@link IllegalStateException}.
     */
    public void freeAll() {
        for (BlockPool pool : pools) {
            pool.freeAll();
        }
    }
}
