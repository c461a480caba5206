package dev.clockwork.offheap.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The blocks of one size class of {@link ValueSlabs}: native chunks carved into equal blocks, and
 * free blocks kept on a few lock-free stacks whose links lie in the chunk's header, beside the
 * blocks rather than in them.
 *
 * <pre>
 *   block index (32 bits) = chunk number (1, 2, ...) | block number within the chunk
 *                                                      (SizeClasses.blockBits)
 *   chunk table (heap long[]):   | - | chunk 1 | chunk 2 | ... |      native addresses
 *   chunk (native, 2^shift bytes, aligned to its size, from the cache's ChunkReserve or malloc):
 *     +--------+-------------------------------+---------+---------+-----+---------+------+
 *     | number | links: int per block (the next | block 0 | block 1 | ... | block n | tail |
 *     | (int)  | free block's index, 0 = none)  |         |         |     |         |      |
 *     +--------+-------------------------------+---------+---------+-----+---------+------+
 *      0        64 (SizeClasses.LINKS_OFFSET)   headerBytes: 64-byte aligned, a page in page
 *                                               classes
 *   stack head (one long per stripe, 128 bytes apart): | tag (32 bits) | top block index (32) |
 * </pre>
 *
 * <p>A block's address gives its index without a table: the chunk's start is the address with
 * its low {@code shift} bits cleared, its number is in its header, and the block number is the
 * offset over the block size (a multiply by a reciprocal). An index gives the address through the
 * chunk table. Index 0 is "none": chunk numbers start at 1.
 *
 * <h2>The stacks</h2>
 * Treiber stacks, one per stripe, a thread using the stripe its id picks. Pop reads the head
 * (acquire), reads the top block's link and swings the head to it by CAS; push writes the link,
 * then swings the head to the block by CAS, which publishes the link. Every successful CAS adds
 * one to the tag, so a head that was popped and pushed back between another thread's read and
 * its CAS (ABA) no longer matches: that needs 2^32 operations on one stripe in between. The link
 * a pop reads may be stale, but then the head moved and the CAS fails; the read itself is safe
 * because a number's table entry always names a chunk that stays mapped until {@link #freeAll}
 * (a number given up keeps its old, still mapped, address until it is reused). Neither pop nor
 * push touches a free block's own memory: a pop takes no cache miss on the block it hands out,
 * and a block whose pages went back to the kernel stays out of memory until its next owner
 * writes it. An allocation whose stripe is empty takes from the others before it carves.
 *
 * <p>Access modes: the head is read with acquire by a pop (it reads the top block's link next,
 * written before the push's CAS) and opaque by a push (a stale value only fails the CAS). Both
 * CAS with {@code compareAndSet}: on x86 every CAS is one {@code lock cmpxchg} whatever the mode.
 * Links are plain native accesses, ordered by those CASes. The chunk table is a volatile field.
 *
 * <p>Carving takes this pool's monitor, once per batch of up to {@value #CARVE_BATCH} blocks never
 * used before: it links the batch (in the header) and pushes all but the first with one CAS.
 * When the newest chunk is used up it takes the next from the cache's {@link ChunkReserve} (an
 * emptied chunk of any class, pages given back) or, failing that, maps one. Every
 * {@value #REPORT_BYTES} bytes carved it tells the reserve, which may answer that a trim is due:
 * then its caller trims the slabs once it has left the monitor ({@link #TRIM_DUE}), as the trim
 * takes every pool's monitor in turn and must not run under this one.
 *
 * <h2>Trimming</h2>
 * {@link #trim}, under the monitor, detaches every stack (a CAS each, which bumps the tag), and
 * counts the free blocks per chunk. A chunk whose blocks are all free or fresh is emptied: its
 * pages go back to the kernel ({@code MADV_DONTNEED}; it stays mapped and reads as zeros) and it
 * goes to the reserve, its number to the spare numbers. If the free blocks left are more than
 * 1/{@value #DEEP_SHARE} of the pool's chunks (and at least {@value #DEEP_MIN_BYTES} bytes), the
 * whole pages inside each run of adjacent free blocks go back too. The rest are pushed back.
 * The trim adds to its tally the bytes carved in the chunks kept, the free blocks' bytes and,
 * of those, the stranded ones: free bytes whose pages stayed resident, because a live block
 * shares them or the runs were not returned ({@link ChunkReserve} turns them into a capacity
 * cut).
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>Every chunk the cache mapped is in exactly one place: in one pool's table under a number
 *       that is not spare, or in the reserve.</li>
 *   <li>Every block of a pool's chunk is in exactly one of four places: on one stack, owned by
 *       one caller, fresh (from {@code freshBlock} to the end of chunk {@code freshChunk}), or
 *       detached by a trim, which holds the monitor until it has pushed it back or emptied its
 *       chunk. A chunk is emptied only when all its blocks are detached or fresh, so no caller
 *       owns one and no stack names one ({@link #trim} asserts that no block is met twice).</li>
 *   <li>A chunk is in the table, its number in its header, before any of its blocks is on a
 *       stack. A stale pop cannot take a block of a chunk emptied since it read the head: the
 *       detach changed the tag, so its CAS fails.</li>
 *   <li>No chunk is freed before {@link #freeAll}, which runs once, after every caller that may
 *       still touch the pool is done or sees the cache's arena closed.</li>
 * </ul>
 */
final class BlockPool {
    /** Stacks per class; a thread's is picked by its id. */
    static final int STRIPES = 4;
    /** Set in what {@link #carve} returns when its caller should trim: blocks are 16-aligned. */
    private static final long TRIM_DUE = 1;
    /** Longs between two heads: 128 bytes, so that adjacent-line prefetch does not pair them. */
    private static final int SPACING = 16;
    private static final int FIRST_TABLE_CHUNKS = 4;
    /**
     * Fresh blocks taken from the newest chunk at a time (one monitor entry per batch), fewer
     * when they would pass {@link #REPORT_BYTES}: a batch counts as grown memory when carved.
     */
    private static final int CARVE_BATCH = 16;
    /** Fresh bytes carved before the reserve is told (and asked whether to trim). */
    private static final long REPORT_BYTES = 256 * 1024;
    /** Free blocks' pages go back when they exceed this share of the pool's chunk bytes. */
    private static final int DEEP_SHARE = 32;
    private static final long DEEP_MIN_BYTES = 64 * 1024;
    private static final long INDEX_MASK = 0xFFFF_FFFFL;
    private static final long TAG_ONE = 1L << 32;
    private static final int RECIPROCAL_SHIFT = 42;
    private static final long LINKS = SizeClasses.LINKS_OFFSET;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final VarHandle HEADS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Unscoped: under the monitor before {@link #freeAll}, and for callers close waits for. */
    private static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final int sizeClass;
    private final long blockBytes;
    private final int blocksPerChunk;
    private final int carveBatch;
    private final int chunkShift;
    private final int headerBytes;
    private final int blockBits;
    private final int blockMask;
    private final int granuleShift;
    /** {@code 2^42 / granules per block + 1}: a block offset's quotient by one multiply. */
    private final long reciprocal;
    private final boolean returnsPages;
    private final int maxChunks;
    private final ChunkReserve reserve;
    /** Heads at {@code (stripe + 1) * SPACING}: none shares a line with the array's header. */
    private final long[] heads = new long[(STRIPES + 1) * SPACING];
    /**
     * Chunk addresses by number. Volatile: a pop reads it after the head; a chunk's entry is
     * written before any of its blocks is pushed. Outgrown arrays are left to the GC.
     */
    private volatile long[] chunkTable = new long[FIRST_TABLE_CHUNKS];
    /**
     * log2 of each held chunk's real size (one from the reserve may be bigger), 0 for a spare
     * number; under the monitor.
     */
    private byte[] chunkShifts = new byte[FIRST_TABLE_CHUNKS];
    /** The highest chunk number used; under the monitor. */
    private int chunks;
    /** Numbers of emptied chunks, reused before new ones; under the monitor. */
    private int[] spareNumbers = new int[FIRST_TABLE_CHUNKS];
    private int spareCount;
    /** The chunk fresh blocks are carved from (0: none), and its first fresh block. */
    private int freshChunk;
    private int freshBlock;
    /** Bytes of fresh blocks carved since the reserve was last told; under the monitor. */
    private long carvedUnreported;
    /** Bytes of the chunks this pool holds (their real sizes); under the monitor. */
    private long heldBytes;
    /** Set by {@link #freeAll}; under the monitor, so no chunk is carved after it. */
    private boolean closed;

    BlockPool(int sizeClass, ChunkReserve reserve) {
        this.sizeClass = sizeClass;
        this.reserve = reserve;
        this.blockBytes = SizeClasses.blockBytes(sizeClass);
        this.blocksPerChunk = SizeClasses.blocksPerChunk(sizeClass);
        this.carveBatch = (int) Math.clamp(REPORT_BYTES / blockBytes, 1, CARVE_BATCH);
        this.chunkShift = SizeClasses.chunkShift(sizeClass);
        this.headerBytes = SizeClasses.headerBytes(sizeClass);
        this.blockBits = SizeClasses.blockBits(sizeClass);
        this.blockMask = (1 << blockBits) - 1;
        this.granuleShift = SizeClasses.granuleShift(sizeClass);
        this.reciprocal = (1L << RECIPROCAL_SHIFT) / (blockBytes >>> granuleShift) + 1;
        this.returnsPages = SizeClasses.returnsPages(sizeClass);
        this.maxChunks = (int) Math.min(Integer.MAX_VALUE - 8, (1L << (32 - blockBits)) - 1);
    }

    private static int stripeOfThisThread() {
        return (int) Thread.currentThread().threadId() & (STRIPES - 1);
    }

    private static int headSlot(int stripe) {
        return (stripe + 1) * SPACING;
    }

    /**
     * Hands out a block, its contents stale (zeros if its pages went back). {@code mem} reads the
     * links: the cache's scoped view, so that a call racing close throws instead of reading a
     * freed chunk.
     */
    long allocate(MemorySegment mem) {
        int home = stripeOfThisThread();
        long block = popAny(mem, home);
        if (block != 0) {
            return block;
        }
        block = carve(mem, home);
        if ((block & TRIM_DUE) != 0) {
            reserve.trim(); // out of the monitor: the trim takes every pool's in turn
            block -= TRIM_DUE;
        }
        return block;
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
     * Takes a block back. {@code mem} reads the chunk header and writes the link: scoped for
     * callers that close does not wait for (it throws once the arena is closed), unscoped for
     * those it does.
     *
     * @param returnPages whether to give the block's pages back to the kernel, if its class does
     *     that ({@link SizeClasses#returnsPages}): only for callers close waits out, because the
     *     advice is a downcall on a raw address that the arena's scope does not guard
     */
    void free(MemorySegment mem, long block, boolean returnPages) {
        if (returnPages && returnsPages) {
            // The block is this caller's until the push, and no pop touches it after: a stale
            // reader (an optimistic copy, or a released view) reads zeros, never unmapped memory.
            NativeAllocator.returnPages(block, blockBytes);
        }
        long chunk = block & -(1L << chunkShift);
        int number = mem.get(INT, chunk);
        int b = blockOf(block - chunk);
        push(mem, headSlot(stripeOfThisThread()), number << blockBits | b, linkAt(chunk, b));
    }

    private long pop(MemorySegment mem, int slot) {
        while (true) {
            // Acquire: the link of the top block was written before the CAS that pushed it.
            long head = (long) HEADS.getAcquire(heads, slot);
            int index = (int) head;
            if (index == 0) {
                return 0;
            }
            long chunk = chunkTable[index >>> blockBits];
            int b = index & blockMask;
            int next = mem.get(INT, linkAt(chunk, b)); // maybe stale: then the CAS fails
            long popped = (head & ~INDEX_MASK) + TAG_ONE | (next & INDEX_MASK);
            if (HEADS.compareAndSet(heads, slot, head, popped)) {
                return chunk + headerBytes + b * blockBytes;
            }
        }
    }

    /** Pushes a list whose links are written but the last's, which is at {@code lastLink}. */
    private void push(MemorySegment mem, int slot, int firstIndex, long lastLink) {
        while (true) {
            // Opaque is enough: a stale head only makes the CAS fail; the CAS orders the link
            // written below before the head that names the block (volatile write semantics).
            long head = (long) HEADS.getOpaque(heads, slot);
            mem.set(INT, lastLink, (int) head);
            long pushed = (head & ~INDEX_MASK) + TAG_ONE | (firstIndex & INDEX_MASK);
            if (HEADS.compareAndSet(heads, slot, head, pushed)) {
                return;
            }
        }
    }

    private static long linkAt(long chunk, int b) {
        return chunk + LINKS + ((long) b << 2);
    }

    /** The number of the block at {@code offset} in its chunk: exact for a block's offset. */
    private int blockOf(long offset) {
        return (int) (((offset - headerBytes) >>> granuleShift) * reciprocal >>> RECIPROCAL_SHIFT);
    }

    private long blockAt(long chunk, int b) {
        return chunk + headerBytes + b * blockBytes;
    }

    /**
     * Hands out a block never used before: the first of a batch of fresh blocks, the rest pushed
     * on the caller's stripe; takes a chunk when the newest one is used up. Sets
     * {@link #TRIM_DUE} in the address returned if the reserve, told of the bytes carved lately,
     * says a trim is due. Looks at the stacks again first: another thread may have refilled
     * them.
     */
    private synchronized long carve(MemorySegment mem, int home) {
        if (closed) {
            throw new IllegalStateException("cache is closed");
        }
        long popped = popAny(mem, home);
        if (popped != 0) {
            return popped;
        }
        if (freshChunk == 0 || freshBlock == blocksPerChunk) {
            takeChunk();
        }
        long chunk = chunkTable[freshChunk];
        int first = freshBlock;
        int batch = Math.min(carveBatch, blocksPerChunk - first);
        freshBlock = first + batch;
        carvedUnreported += batch * blockBytes;
        if (batch > 1) {
            // Linked and pushed only now, a batch at a time, and in the header: a chunk's block
            // pages become resident as its blocks are used, not when it is carved.
            int base = freshChunk << blockBits;
            int last = first + batch - 1;
            for (int b = first + 1; b < last; b++) {
                RAW.set(INT, linkAt(chunk, b), base | (b + 1));
            }
            push(RAW, headSlot(home), base | (first + 1), linkAt(chunk, last));
        }
        long block = blockAt(chunk, first);
        if (carvedUnreported >= REPORT_BYTES) {
            boolean due = reserve.grew(carvedUnreported);
            carvedUnreported = 0;
            return due ? block | TRIM_DUE : block;
        }
        return block;
    }

    /**
     * Makes a chunk the fresh one: an emptied one from the reserve, else a new mapping. Writes its
     * header and publishes it in the table; under the monitor.
     */
    private void takeChunk() {
        if (spareCount == 0 && chunks == maxChunks) {
            throw new OutOfMemoryError("value slab class of " + blockBytes
                    + "-byte blocks is full (" + maxChunks + " chunks)");
        }
        long taken = reserve.take(chunkShift);
        long chunk = taken & -(1L << chunkShift);
        int shift = (int) (taken - chunk);
        if (taken == 0) {
            shift = chunkShift;
            chunk = NativeAllocator.allocateAligned(1L << shift, 1L << shift);
        }
        int number = spareCount > 0 ? spareNumbers[--spareCount] : ++chunks;
        RAW.set(INT, chunk, number);
        long[] table = chunkTable;
        if (number >= table.length) {
            table = Arrays.copyOf(table, 2 * table.length);
            chunkShifts = Arrays.copyOf(chunkShifts, table.length);
        }
        table[number] = chunk; // the old array's readers never look at this index
        chunkTable = table; // volatile: published before any block of the chunk is pushed
        chunkShifts[number] = (byte) shift;
        heldBytes += 1L << shift;
        reserve.acquired(1L << shift);
        freshChunk = number;
        freshBlock = 0;
    }

    /**
     * Empties the chunks all of whose blocks are free and, if the free blocks left are many,
     * gives back the pages of their runs (class comment); pushes the rest back. Takes the
     * monitor: carving waits meanwhile, pops find the stacks empty, frees push as ever (such a
     * block's chunk is then not emptied, as it was not counted).
     */
    synchronized void trim(ChunkReserve.TrimTally tally) {
        if (closed) {
            return;
        }
        BitSet[] free = new BitSet[chunks + 1];
        int[] counts = new int[chunks + 1];
        for (int s = 0; s < STRIPES; s++) {
            for (int index = detach(headSlot(s)); index != 0; index = linkOf(index)) {
                int n = index >>> blockBits;
                int b = index & blockMask;
                if (free[n] == null) {
                    free[n] = new BitSet(blocksPerChunk);
                }
                assert !free[n].get(b) : "block " + b + " of chunk " + n + " freed twice";
                free[n].set(b);
                counts[n]++;
            }
        }
        if (freshChunk != 0) {
            counts[freshChunk] += blocksPerChunk - freshBlock;
        }
        long left = 0;
        for (int n = 1; n <= chunks; n++) {
            assert counts[n] <= blocksPerChunk : "chunk " + n + " has too many free blocks";
            if (counts[n] == blocksPerChunk) {
                empty(n);
                free[n] = null;
            } else if (free[n] != null) {
                left += free[n].cardinality() * blockBytes;
            }
        }
        boolean deep = left >= DEEP_MIN_BYTES && left > heldBytes / DEEP_SHARE;
        long returned = 0;
        for (int n = 1; n <= chunks; n++) {
            if (free[n] != null) {
                returned += pushBack(n, free[n], deep);
            }
        }
        long fresh = freshChunk == 0 ? 0 : blocksPerChunk - freshBlock;
        tally.carvedBytes += ((long) (chunks - spareCount) * blocksPerChunk - fresh) * blockBytes;
        tally.freeBytes += left;
        tally.strandedBytes += left - returned;
    }

    /** Takes a whole stack off its head; returns its top index (0 if it was empty). */
    private int detach(int slot) {
        while (true) {
            long head = (long) HEADS.getAcquire(heads, slot);
            if (HEADS.compareAndSet(heads, slot, head, (head & ~INDEX_MASK) + TAG_ONE)) {
                return (int) head;
            }
        }
    }

    private int linkOf(int index) {
        return RAW.get(INT, linkAt(chunkTable[index >>> blockBits], index & blockMask));
    }

    /** Gives an all-free chunk's pages back and hands it to the reserve; under the monitor. */
    private void empty(int n) {
        long chunk = chunkTable[n];
        int shift = chunkShifts[n];
        long bytes = 1L << shift;
        NativeAllocator.returnPages(chunk, bytes);
        chunkShifts[n] = 0;
        long carved = (n == freshChunk ? freshBlock : blocksPerChunk) * blockBytes;
        if (n == freshChunk) {
            freshChunk = 0;
        }
        if (spareCount == spareNumbers.length) {
            spareNumbers = Arrays.copyOf(spareNumbers, 2 * spareCount);
        }
        spareNumbers[spareCount++] = n;
        heldBytes -= bytes;
        reserve.put(chunk, shift, carved);
    }

    /**
     * Pushes a chunk's detached free blocks back as one list, their runs' pages given back;
     * returns the bytes given back.
     */
    private long pushBack(int n, BitSet free, boolean returnRuns) {
        long chunk = chunkTable[n];
        int base = n << blockBits;
        int first = free.nextSetBit(0);
        int b = first;
        long returned = 0;
        while (true) {
            int end = free.nextClearBit(b);
            if (returnRuns) {
                returned += NativeAllocator.returnPages(blockAt(chunk, b), (end - b) * blockBytes);
            }
            for (int i = b; i < end - 1; i++) {
                RAW.set(INT, linkAt(chunk, i), base | (i + 1));
            }
            int next = free.nextSetBit(end);
            if (next < 0) {
                push(RAW, headSlot(n & (STRIPES - 1)), base | first, linkAt(chunk, end - 1));
                return returned;
            }
            RAW.set(INT, linkAt(chunk, end - 1), base | next);
            b = next;
        }
    }

    /** Bytes of the chunks this pool holds (none once freed). */
    synchronized long chunkBytes() {
        return closed ? 0 : heldBytes;
    }

    /** The resident bytes of this pool's chunks (mincore); only when nothing else runs. */
    synchronized long residentBytes() {
        long bytes = 0;
        for (int n = 1; n <= chunks && !closed; n++) {
            if (!isSpare(n)) {
                bytes += NativeAllocator.residentBytes(chunkTable[n], 1L << chunkShifts[n]);
            }
        }
        return bytes;
    }

    private boolean isSpare(int n) {
        return chunkShifts[n] == 0;
    }

    /**
     * Frees every chunk this pool holds; for close, when no caller can touch a block without an
     * exception (the cache's arena is closed, and the calls close waits for are done). The table
     * and heads stay as they are: a racing pop may still read them, and fails on the scoped link
     * read.
     */
    synchronized void freeAll() {
        if (closed) {
            return;
        }
        closed = true;
        long[] table = chunkTable;
        for (int n = 1; n <= chunks; n++) {
            if (!isSpare(n)) {
                NativeAllocator.free(table[n], 1L << chunkShifts[n]);
            }
        }
    }

    /** Free blocks on the stacks, counted by walking them; only when nothing else runs. */
    synchronized long freeBlocks() {
        long count = 0;
        for (int s = 0; s < STRIPES; s++) {
            for (int index = (int) heads[headSlot(s)]; index != 0; index = linkOf(index)) {
                count++;
            }
        }
        return count;
    }

    /**
     * Bytes of the held chunks that no handed-out block covers: free and fresh blocks, headers
     * and tails. Walks the stacks: only when nothing else runs.
     */
    synchronized long idleBytes() {
        if (closed) {
            return 0;
        }
        long covered = (long) (chunks - spareCount) * blocksPerChunk * blockBytes;
        long fresh = freshChunk == 0 ? 0 : (blocksPerChunk - freshBlock) * blockBytes;
        return heldBytes - covered + fresh + freeBlocks() * blockBytes;
    }

    @Override
    public String toString() {
        return "class " + sizeClass + " (" + blockBytes + "-byte blocks)";
    }
}
