package dev.clockwork.offheap.memory;

import java.lang.foreign.MemorySegment;
import java.util.function.ToLongFunction;

/**
 * Native memory for one cache's values: every value is a block of a per-class slab
 * ({@link BlockPool}, classes in {@link SizeClasses}). Which class a value is in follows from its
 * length alone, so a value carries no header and a free needs only the address and length its
 * record holds anyway.
 *
 * <h2>Why slabs</h2>
 * A slab's chunks stay mapped until the cache closes, so a thread that read a value's address and
 * reads the value after it was freed (and maybe reused) reads stale bytes or zeros, never
 * unmapped memory: a reader can copy a value optimistically and check the entry's stamp
 * afterwards, and a value view used after its handle's release (a caller's bug) cannot crash the
 * JVM. A malloc'd value may be unmapped by {@code free} (glibc maps values of 128 KiB and more
 * apart until its dynamic threshold rises, always from 32 MiB, and unmaps them on free). Slabs also
 * drop malloc's 8–16-byte header per value, and a
 * block's allocation or free is one CAS on a stack in the Java heap, with no downcall.
 *
 * <h2>Memory</h2>
 * Beside the live values' bytes, the slabs hold:
 * <ul>
 *   <li>each block's slack: under 16 bytes for values up to 256 bytes; above, under 25% of the
 *       length and 9% on average ({@link SizeClasses});</li>
 *   <li>per block, its free-list link (4 bytes, in the chunk's header); per chunk, the tail after
 *       its last whole block, and in page classes the rest of the header page;</li>
 *   <li>per class in use, the newest chunk's blocks not yet handed out (chunks of 1 to 8 MiB, or
 *       one long value's): address space, resident only as blocks are handed out;</li>
 *   <li>free blocks, until a trim ({@link ChunkReserve}): a chunk whose blocks are all free goes
 *       back to the kernel (its pages; the address stays mapped) and to the cache's reserve of
 *       empty chunks, from which any class takes before it maps a chunk; and when a class's free
 *       blocks are more than 1/32 of its chunks, the whole pages inside runs of free blocks go
 *       back too. A trim runs on an allocating thread once the classes have carved fresh blocks
 *       worth a sixty-fourth of what they had carved (at least 1 MiB) since the last one, so when
 *       the mix of value sizes moves, what the classes it left behind hold is found within a
 *       sixty-fourth of growth; what stays resident is what live values pin (the pages they share
 *       with free blocks), up to 1/32 of each class's chunks (or 64 KiB) in free blocks, and
 *       what was freed since the last trim. Blocks of {@link SizeClasses#RETURN_PAGES_MIN}
 *       (32 MiB) or more return their pages when freed by the cache ({@link #freeGuarded}),
 *       without a trim. The address space only grows (a chunk is unmapped only at close), but a
 *       chunk of one size serves every class of that size or smaller: docs/benchmarks.md, "RSS
 *       under a moving size mix", measures RSS as the sizes sweep the classes (a 16 MiB cache:
 *       the slabs' resident bytes peaked at 29–32 MiB, where the process grew by 326–350 MiB
 *       before).</li>
 *   <li>stranded free blocks: those that share a page with a live block, which no trim can give
 *       back; while they are more than 4 MiB and 1/32 of the resident blocks, the cache holds
 *       back capacity for them ({@link #capacityCut}).</li>
 * </ul>
 *
 * <h2>Close</h2>
 * Two ways to free, by who may race close: {@link #free} for callers close does not wait for
 * (an insert that failed before reaching the index): it writes through the cache's scoped view
 * and, once the arena is closed, leaves the block to {@link #freeAll}; {@link #freeGuarded} for
 * callers close waits out (inside the close gate, or under a shard's lock that close takes before
 * {@link #freeAll}). Values still live at close need no free of their own: {@link #freeAll}
 * frees their chunks. Allocation always reads through the scoped view.
 */
public final class ValueSlabs {
    /** Unscoped: for callers that close waits out before it frees the chunks. */
    private static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /** All memory, scoped to the cache's arena. */
    private final MemorySegment scoped;
    private final BlockPool[] pools = new BlockPool[SizeClasses.COUNT];
    /** The chunks no class holds, and when to trim. */
    private final ChunkReserve reserve = new ChunkReserve();

    /**
     * @param scoped all of memory, scoped to the cache's arena (the cache context's {@code all()}):
     * a
     *     thread racing close reads or writes a block through it, and gets an exception once the
     *     arena is closed, before any chunk is freed
     */
    public ValueSlabs(MemorySegment scoped) {
        this.scoped = scoped;
        for (int c = 0; c < pools.length; c++) {
            pools[c] = new BlockPool(c, reserve);
        }
        reserve.attach(pools);
    }

    /**
     * Allocates room for a value of {@code length} bytes, its contents stale.
     *
     * @throws IllegalArgumentException if {@code length} is negative
     * @throws OutOfMemoryError if native memory cannot be had
     * @throws IllegalStateException if the cache was closed
     */
    public long allocate(int length) {
        return pools[SizeClasses.classOf(checkLength(length))].allocate(scoped);
    }

    /**
     * Frees a value for a caller that close does not wait for. If the cache's arena is closed, the
     * block is left to {@link #freeAll}, which frees its chunk; never throws for that. A block of
     * a class that returns pages keeps them: the advice would be a downcall on an address the
     * arena does not guard, and such frees are rare (an insert that failed).
     */
    public void free(long address, int length) {
        try {
            pools[SizeClasses.classOf(checkLength(length))].free(scoped, address, false);
        } catch (IllegalStateException closed) {
            if (scoped.scope().isAlive()) {
                throw closed;
            }
        }
    }

    /**
     * Frees a value for a caller that close waits out before {@link #freeAll} (one inside the
     * cache's close gate, or under a lock close takes first): unscoped, so it cannot throw half
     * way when the arena closes; a long block returns its pages here.
     */
    public void freeGuarded(long address, int length) {
        pools[SizeClasses.classOf(checkLength(length))].free(RAW, address, true);
    }

    private static int checkLength(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, was " + length);
        }
        return length;
    }

    /**
     * Bytes of the slabs' chunks (values, free blocks, slack, and the empty chunks of the
     * reserve): address space, of which fresh blocks and returned pages are not resident.
     */
    public long chunkBytes() {
        return reserve.reservedBytes() + sumOverPools(BlockPool::chunkBytes);
    }

    /** Bytes of the empty chunks no class holds: mapped, their pages given back. */
    public long emptyChunkBytes() {
        return reserve.reservedBytes();
    }

    /**
     * Bytes of the chunks that hold no value: free and fresh blocks, headers, tails and the
     * empty chunks. Walks the free stacks, so only for tests and reports, when no other thread
     * uses the cache.
     */
    public long idleBytes() {
        return reserve.reservedBytes() + sumOverPools(BlockPool::idleBytes);
    }

    /**
     * Bytes of the chunks that are resident, as the kernel tells ({@code mincore}, a call per
     * chunk): for tests and reports, when no other thread uses the cache.
     */
    public long residentBytes() {
        return reserve.residentBytes() + sumOverPools(BlockPool::residentBytes);
    }

    /** A figure summed over the classes' pools: for the reports above, not for hot paths. */
    private long sumOverPools(ToLongFunction<BlockPool> figure) {
        long sum = 0;
        for (BlockPool pool : pools) {
            sum += figure.applyAsLong(pool);
        }
        return sum;
    }

    /**
     * Trims every class now, as an allocation does when a trim is due ({@link ChunkReserve});
     * for tests and stress tests. Safe beside any other call but {@link #freeAll}'s race with
     * it, which the pools' monitors settle.
     */
    public void trim() {
        reserve.trim();
    }

    /**
     * How much of {@code capacity} the cache should hold back while freed blocks are stranded:
     * free blocks whose pages a live block in the same page keeps resident, which a trim cannot
     * give back. When the mix of value sizes moves, the classes it leaves empty in the order the
     * cache evicts, not in address order, so their pages stay resident until nearly every block
     * in them is free (at 256 MiB, up to ~120 MiB stranded over the live values). Holding back
     * capacity evicts more, which frees those pages sooner; the cut aims at live values plus the
     * stranded bytes beyond 4 MiB within 1/32 over capacity, and is 0 while they are within it.
     * Set by each trim; while it is not 0, a trim is due every 100 ms, so that it falls as the
     * stranded pages empty even when nothing grows. One volatile read while it is 0.
     */
    public long capacityCut(long capacity) {
        int cut = reserve.capacityCut();
        return cut == 0 ? 0 : (capacity >>> 16) * cut;
    }

    /** Free bytes the last trim left resident (pages shared with live blocks). */
    public long strandedBytes() {
        return reserve.strandedBytes();
    }

    /** Trims run so far, on allocating threads or by {@link #trim}. */
    long trims() {
        return reserve.trims();
    }

    /** Native bytes a value of {@code length} takes: its block. */
    public static long footprint(int length) {
        return SizeClasses.blockBytes(SizeClasses.classOf(checkLength(length)));
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
        reserve.freeAll(); // last: a trim may move a chunk here until its pool is freed
    }
}
