package dev.clockwork.offheap.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The blocks of one size class of {@link ValueSlabs}: native chunks carved into equal blocks, and
 * free blocks kept on a few lock-free stacks.
 *
 * <pre>
 *   block index (32 bits, unsigned) = chunk number | granule within the chunk
 *                                     (32 - g bits)  (g = chunk shift - granule shift bits)
 *   granule: 16 bytes in small classes, a 4 KiB page in page classes (SizeClasses)
 *
 *   chunk table (heap long[]):   | chunk 0 | chunk 1 | ... |      native addresses
 *   chunk (native, 2^shift bytes, aligned to its size):
 *     +----------------------+---------+---------+-----+---------+------+
 *     | header: chunk number | block 0 | block 1 | ... | block n | tail |
 *     | (64 bytes; a page in |         |         |     |         |      |
 *     |  page classes)       |         |         |     |         |      |
 *     +----------------------+---------+---------+-----+---------+------+
 *   a free block:  | next free block index (int) | stale bytes (zeros past the first page
 *                                                   if its class returns pages) ...
 *
 *   stack head (one long per stripe, 128 bytes apart): | tag (32 bits) | top block index (32) |
 * </pre>
 *
 * <p>A block's address gives its index without a table: the chunk's start is the address with
 * its low {@code shift} bits cleared, and the chunk's number is in its header. An index gives the
 * address through the chunk table. Index 0 is "none": it is the header of chunk 0, never a block.
 *
 * <h2>The stacks</h2>
 * Treiber stacks, one per stripe, a thread using the stripe its id picks. Pop reads the head
 * (acquire), reads the top block's link and swings the head to it by CAS; push writes the link,
 * then swings the head to the block by CAS, which publishes the link. Every successful CAS adds
 * one to the tag, so a head that was popped and pushed back between another thread's read and
 * its CAS (ABA) no longer matches: that needs 2^32 operations on one stripe in between. The link
 * a pop reads may be stale — the block may have been popped and written over meanwhile — but
 * then the head moved and the CAS fails; the read itself is safe because chunks stay mapped
 * until {@link #freeAll}. An allocation whose stripe is empty takes from the others before it
 * takes fresh blocks, so blocks freed on one thread's stripe serve every thread.
 *
 * <p>Access modes: the head is read with acquire by a pop (it reads the top block's link next,
 * written before the push's CAS) and opaque by a push (a stale value only fails the CAS). Both
 * CAS with {@code compareAndSet}, volatile: a pop needs acquire and a push release, and on x86
 * every CAS is one {@code lock cmpxchg} whatever the mode, so a weaker one would buy nothing
 * there. Links are plain native accesses, ordered by those CASes. The chunk table is a volatile
 * field, one plain load on x86.
 *
 * <p>Carving takes this pool's monitor, once per {@value #CARVE_BATCH} blocks never used before:
 * it links a batch of the newest chunk's fresh blocks and pushes all but the first with one CAS
 * (so a chunk's pages become resident as its blocks are used); when the chunk is used up it
 * allocates the next, and publishes it in the table before any of its blocks is pushed.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>Every block of a carved chunk is in exactly one of three places: on one stack, owned by
 *       one caller, or fresh (never handed out: from {@code freshNext} to {@code freshEnd} of
 *       the newest chunk).</li>
 *   <li>A chunk is in the table before any of its blocks is on a stack (so a pop that sees a
 *       block's index in a head also sees its chunk: the head's acquire read orders the table's
 *       volatile read after the carving thread's publication).</li>
 *   <li>No chunk is freed before {@link #freeAll}, which runs once, after every caller that may
 *       still touch the pool is done or sees the cache's arena closed.</li>
 * </ul>
 *
 * <p>Memory: a chunk, once carved, stays with its class until close. If the mix of value sizes
 * shifts, the blocks freed in one class do not serve another: the pool holds the most blocks its
 * class ever had live at once, rounded up to whole chunks (see {@link ValueSlabs} for the bound
 * over all classes).
 */
final class BlockPool {
    /** Stacks per class; a thread's is picked by its id. */
    static final int STRIPES = 4;
    /** Longs between two heads: 128 bytes, so that adjacent-line prefetch does not pair them. */
    private static final int SPACING = 16;
    private static final int FIRST_TABLE_CHUNKS = 4;
    /** Fresh blocks taken from the newest chunk at a time (one monitor entry per batch). */
    private static final int CARVE_BATCH = 16;
    private static final long INDEX_MASK = 0xFFFF_FFFFL;
    private static final long TAG_ONE = 1L << 32;
    private static final long LINK_OFFSET = 0;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final VarHandle HEADS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Unscoped: for fresh blocks, which no other thread can reach yet, and for tests. */
    private static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final int sizeClass;
    private final long blockBytes;
    private final int blocksPerChunk;
    private final int chunkShift;
    private final int granuleShift;
    private final int granuleBits;
    private final int headerBytes;
    /**
     * Whether a freed block gives its pages but the first back ({@link SizeClasses#returnsPages}).
     */
    private final boolean returnsPages;
    private final long granuleMask;
    /** Chunks a class may have: as many as the index's chunk bits name (2^32 granules in all). */
    private final int maxChunks;
    /** Heads at {@code (stripe + 1) * SPACING}: none shares a line with the array's header. */
    private final long[] heads = new long[(STRIPES + 1) * SPACING];
    /**
     * Chunk addresses by number. Volatile: a pop reads it after the head; carving writes a grown
     * copy before pushing any block of the new chunk. Outgrown arrays are left to the GC.
     */
    private volatile long[] chunkTable = new long[0];
    /** Chunks carved; under the monitor. */
    private int chunks;
    /**
     * The newest chunk's blocks never handed out: from here to {@link #freshEnd}; under the
     * monitor.
     */
    private long freshNext;
    private long freshEnd;
    /** Set by {@link #freeAll}; under the monitor, so no chunk is carved after it. */
    private boolean closed;

    BlockPool(int sizeClass) {
        this.sizeClass = sizeClass;
        this.blockBytes = SizeClasses.blockBytes(sizeClass);
        this.blocksPerChunk = SizeClasses.blocksPerChunk(sizeClass);
        this.chunkShift = SizeClasses.chunkShift(sizeClass);
        this.granuleShift = SizeClasses.granuleShift(sizeClass);
        this.granuleBits = chunkShift - granuleShift;
        this.headerBytes = SizeClasses.headerBytes(sizeClass);
        this.returnsPages = SizeClasses.returnsPages(sizeClass);
        this.granuleMask = (1L << granuleBits) - 1;
        this.maxChunks = (int) Math.min(Integer.MAX_VALUE, 1L << (32 - granuleBits));
    }

    private static int stripeOfThisThread() {
        return (int) Thread.currentThread().threadId() & (STRIPES - 1);
    }

    private static int headSlot(int stripe) {
        return (stripe + 1) * SPACING;
    }

    /**
     * Hands out a block. {@code mem} reads the links: the cache's scoped view, so that a thread
     * racing close gets {@link IllegalStateException} instead of a read of a freed chunk.
     *
     * @throws OutOfMemoryError if a chunk is needed and malloc fails, or the class is full
     * @throws IllegalStateException if the pool was freed (the cache closed)
     */
    long allocate(MemorySegment mem) {
        int home = stripeOfThisThread();
        long block = popAny(mem, home);
        return block != 0 ? block : carve(mem, home);
    }

    /** Pops from the caller's stripe, else from the others in turn; 0 if all are empty. */
    private long popAny(MemorySegment mem, int home) {
        for (int i = 0; i < STRIPES; i++) {
            long block = pop(mem, headSlot((home + i) & (STRIPES - 1)));
            if (block != 0) {
                return block;
            }
        }
        return 0;
    }

    /**
     * Takes a block back. {@code mem} writes the link and reads the chunk header: scoped for
     * callers that close does not wait for (it throws once the arena is closed), unscoped for
     * those it does.
     *
     * @param returnPages whether to give the block's pages but the first back to the kernel, if
     *     its class does that ({@link SizeClasses#returnsPages}): only for callers close waits
     *     out, because the advice is a downcall on a raw address that the arena's scope does not
     *     guard, and after close the chunk may be unmapped and its addresses reused
     */
    void free(MemorySegment mem, long block, boolean returnPages) {
        if (returnPages && returnsPages) {
            // The block is this caller's until the push: no thread writes it meanwhile. A stale
            // reader (an optimistic copy, whose stamp check then fails, or a released view)
            // reads zeros from the returned pages, never unmapped memory.
            NativeAllocator.returnPages(block + SizeClasses.PAGE, blockBytes - SizeClasses.PAGE);
        }
        push(mem, headSlot(stripeOfThisThread()), block, block, indexOf(mem, block));
    }

    private long pop(MemorySegment mem, int slot) {
        while (true) {
            // Acquire: the link of the top block was written before the CAS that pushed it.
            long head = (long) HEADS.getAcquire(heads, slot);
            int index = (int) head;
            if (index == 0) {
                return 0;
            }
            long block = addressOf(index);
            int next = mem.get(INT, block + LINK_OFFSET); // maybe stale: then the CAS fails
            long popped = (head & ~INDEX_MASK) + TAG_ONE | (next & INDEX_MASK);
            if (HEADS.compareAndSet(heads, slot, head, popped)) {
                return block;
            }
        }
    }

    /** Pushes the list {@code first .. last} (linked already, {@code last}'s link not yet). */
    private void push(MemorySegment mem, int slot, long first, long last, int firstIndex) {
        while (true) {
            // Opaque is enough: a stale head only makes the CAS fail; the CAS orders the link
            // written below before the head that names the block (volatile write semantics).
            long head = (long) HEADS.getOpaque(heads, slot);
            mem.set(INT, last + LINK_OFFSET, (int) head);
            long pushed = (head & ~INDEX_MASK) + TAG_ONE | (firstIndex & INDEX_MASK);
            if (HEADS.compareAndSet(heads, slot, head, pushed)) {
                return;
            }
        }
    }

    private long addressOf(int index) {
        long[] table = chunkTable;
        return table[index >>> granuleBits] + ((index & granuleMask) << granuleShift);
    }

    private int indexOf(MemorySegment mem, long block) {
        long chunk = block & -(1L << chunkShift);
        int number = mem.get(INT, chunk);
        return (number << granuleBits)
                | (int) ((block - chunk) >>> granuleShift);
    }

    /**
     * Hands out a block never used before: the first of a batch of fresh blocks, the rest pushed
     * on the caller's stripe; allocates a chunk when the newest one is used up. First looks at
     * the stacks again: another thread may have refilled them while this one waited.
     */
    private synchronized long carve(MemorySegment mem, int home) {
        if (closed) {
            throw new IllegalStateException("cache is closed");
        }
        long popped = popAny(mem, home);
        if (popped != 0) {
            return popped;
        }
        if (freshNext == freshEnd) {
            addChunk();
        }
        long first = freshNext;
        long batch = Math.min(CARVE_BATCH, (freshEnd - first) / blockBytes);
        freshNext = first + batch * blockBytes;
        if (batch > 1) {
            // Linked and pushed only now, a batch at a time: a chunk's pages become resident as
            // its blocks are used, not when it is allocated.
            long second = first + blockBytes;
            long last = first + (batch - 1) * blockBytes;
            for (long block = second; block < last; block += blockBytes) {
                RAW.set(INT, block + LINK_OFFSET, indexOf(RAW, block + blockBytes));
            }
            push(RAW, headSlot(home), second, last, indexOf(RAW, second));
        }
        return first;
    }

    /** Allocates a chunk, writes its header and publishes it in the table; under the monitor. */
    private void addChunk() {
        if (chunks == maxChunks) {
            throw new OutOfMemoryError("value slab class of " + blockBytes
                    + "-byte blocks is full (" + maxChunks + " chunks of " + (1L << chunkShift)
                    + " bytes)");
        }
        long chunkBytes = 1L << chunkShift;
        long chunk = NativeAllocator.allocateAligned(chunkBytes, chunkBytes);
        int number = chunks;
        RAW.set(INT, chunk, number);
        long[] table = chunkTable;
        if (number == table.length) {
            table = Arrays.copyOf(table, Math.max(FIRST_TABLE_CHUNKS, 2 * table.length));
        }
        table[number] = chunk; // the old array's readers never look at this index
        chunkTable = table; // volatile: published before any block of the chunk is pushed
        chunks = number + 1;
        freshNext = chunk + headerBytes;
        freshEnd = freshNext + blocksPerChunk * blockBytes;
    }

    /** Native bytes of the chunks carved so far (none once freed). */
    synchronized long chunkBytes() {
        return closed ? 0 : (long) chunks << chunkShift;
    }

    /**
     * Frees every chunk; for close, when no caller can touch a block without an exception (the
     * cache's arena is closed, and the calls close waits for are done). The table and heads stay
     * as they are: a racing pop may still read them, and fails on the scoped link read.
     */
    synchronized void freeAll() {
        if (closed) {
            return;
        }
        closed = true;
        long[] table = chunkTable;
        for (int c = 0; c < chunks; c++) {
            NativeAllocator.free(table[c], 1L << chunkShift);
        }
    }

    /** Free blocks on the stacks, counted by walking them; only when nothing else runs. */
    synchronized long freeBlocks() {
        long count = 0;
        for (int s = 0; s < STRIPES; s++) {
            for (int index = (int) heads[headSlot(s)]; index != 0;
                    index = RAW.get(INT, addressOf(index) + LINK_OFFSET)) {
                count++;
            }
        }
        return count;
    }

    /**
     * Bytes of the chunks that no handed-out block covers: free and fresh blocks, headers and
     * tails. Walks
     * the stacks: only when nothing else runs.
     */
    synchronized long idleBytes() {
        if (closed) {
            return 0;
        }
        long perChunk = (1L << chunkShift) - blocksPerChunk * blockBytes;
        return chunks * perChunk + (freshEnd - freshNext) + freeBlocks() * blockBytes;
    }

    @Override
    public String toString() {
        return "class " + sizeClass + " (" + blockBytes + "-byte blocks)";
    }
}
