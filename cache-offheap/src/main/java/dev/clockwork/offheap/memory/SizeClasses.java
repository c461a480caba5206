package dev.clockwork.offheap.memory;

/**
 * The size classes of {@link ValueSlabs}: which block a value of a given length goes in, and how
 * big a chunk of such blocks is. Every length from 0 to {@link Integer#MAX_VALUE} has a class.
 * Pure functions of the length, so that a free needs no header to find its class.
 *
 * <pre>
 *   class   0..15   block 16, 32, ..., 256          (16-byte steps)
 *   class  16..19   block 320, 384, 448, 512        (four steps per power of two from here on)
 *   class  20..23   block 640, 768, 896, 1024
 *   ...
 *   class  36..39   block 10240, 12288, 14336, 16384 ({@link #SMALL_MAX})
 *   ---- page classes: blocks are whole 4 KiB pages, page-aligned ----
 *   class  40..43   block 20 KiB, 24 KiB, 28 KiB, 32 KiB
 *   ...
 *   class  80..83   block 20 MiB, 24 MiB, 28 MiB, 32 MiB (from {@link #RETURN_PAGES_MIN},
 *   ...                                                    pages returned to the kernel on free)
 *   class 104..107  block 1.25 GiB .. 2 GiB
 * </pre>
 *
 * <p>Slack (block bytes a value does not use): up to 256 bytes, at most 15 bytes; above, a length
 * just over a power of two {@code 2^k} takes a block {@code 2^k / 4} bigger, so the worst is just
 * under 25% of the length (257 bytes in a 320-byte block: 24.5%; 8193 in 10240: 25.0%). With
 * every length from 1 to {@link #SMALL_MAX} equally likely, the slack averages 9.1% of the
 * length (8.9% over lengths above 256), 7.7% of the blocks' bytes; {@code SizeClassesTest}
 * checks these bounds. Multiples of 16 up to 256 and every power of two fit exactly.
 *
 * <p>Every chunk starts with its header: the chunk's number in its class at offset 0, and from
 * {@link #LINKS_OFFSET} one {@code int} per block, the block's free-list link ({@link BlockPool}
 * keeps the links beside the blocks, not in them, so that a free block's own memory is never
 * touched and its pages can go back to the kernel).
 *
 * <p>Small classes (blocks up to {@link #SMALL_MAX}): each chunk is the smallest power of two, at
 * least {@link #MIN_CHUNK_SHIFT} (1 MiB), that holds {@link #MIN_BLOCKS_PER_CHUNK} blocks, and is
 * aligned to its size. The header (64 bytes, then the links, rounded up to 64 bytes) costs 4
 * bytes per block: 20% of a 16-byte block, 6% of a 64-byte one, 0.4% of 1 KiB; what is left after
 * the last whole block is lost, at most one block. Chunks are 1 MiB up to 4 KiB blocks, 2 MiB and
 * 4 MiB above. Why no smaller chunks:
 * glibc serves an aligned request below its mmap threshold (128 KiB) from the heap, splitting
 * off and touching the alignment slack around it, which cost LRU at 64-byte values more resident
 * memory than the 16-byte malloc headers the slabs save.
 *
 * <p>Page classes (longer blocks): a block is whole pages, page-aligned, so that its pages can be
 * returned to the kernel on their own; the chunk's header takes its first page. A chunk is
 * {@link #PAGE_CHUNK_SHIFT} (8 MiB) while that holds a block, else the power of two above one
 * block and its header page: a value of 8 MiB or more has a chunk to itself, up to twice its
 * length of address space (pages not touched are not resident). The header page holds the links
 * too (at most 409 blocks a chunk). A block index is the chunk's number and the block's within it
 * ({@link #blockBits}): 32 bits name 64 TiB of blocks per page class, 64 GiB in the 16-byte class.
 *
 * <p>Blocks of {@link #RETURN_PAGES_MIN} (32 MiB) or more give their pages back to the kernel
 * when freed, where glibc would unmap them (it
 * maps every block from 32 MiB on its own, whatever its dynamic mmap threshold): such values leave
 * no resident memory behind once freed, while the address stays mapped
 * until close, so that a stale reader reads zeros rather than faulting. Smaller blocks stay
 * resident when free, as glibc's heap keeps them once its mmap threshold has risen past them.
 * Returning them too was measured: an insert of a 256 KiB value that reuses a block whose pages
 * went back faults all of them in again, 10 times slower than keeping them
 * ({@code MADV_DONTNEED}); with {@code MADV_FREE}, whose pages come back without a fault, the
 * call alone made it 2.8 times slower.
 */
public final class SizeClasses {
    /** Blocks up to this many bytes are small: 16-byte granules in chunks of 1–4 MiB. */
    public static final int SMALL_MAX = 16 * 1024;
    /**
     * The page size blocks of page classes are counted in (4 KiB; a larger page size still works:
     * only the returned ranges shrink to its multiples).
     */
    public static final int PAGE = 4096;
    static final int PAGE_SHIFT = 12;
    /**
     * Blocks of this many bytes or more return their pages to the kernel on free.
     */
    public static final int RETURN_PAGES_MIN = 32 * 1024 * 1024;
    /** Blocks of small classes are multiples of 16 bytes, like malloc's alignment. */
    static final int GRANULE_SHIFT = 4;
    static final int GRANULE = 1 << GRANULE_SHIFT;
    /** Up to this length, one class every {@link #GRANULE} bytes. */
    static final int FINE_LIMIT = 256;
    static final int FINE_CLASSES = FINE_LIMIT / GRANULE;
    /** Above {@link #FINE_LIMIT}, {@code 2^STEP_SHIFT} classes per power of two. */
    static final int STEP_SHIFT = 2;
    private static final int FINE_LIMIT_SHIFT = Integer.numberOfTrailingZeros(FINE_LIMIT);
    /** How many classes there are: the last holds lengths up to 2^31. */
    public static final int COUNT = FINE_CLASSES + ((31 - FINE_LIMIT_SHIFT) << STEP_SHIFT);
    /** Classes below this are small, the rest page classes. */
    public static final int SMALL_COUNT = FINE_CLASSES
            + ((Integer.numberOfTrailingZeros(SMALL_MAX) - FINE_LIMIT_SHIFT) << STEP_SHIFT);

    static final int MIN_CHUNK_SHIFT = 20;
    static final int MIN_BLOCKS_PER_CHUNK = 256;
    static final int PAGE_CHUNK_SHIFT = 23;
    /**
     * Where a chunk's links start: after the chunk number's cache line, so that pushes, which
     * write links, do not invalidate the line every free reads the number from.
     */
    static final int LINKS_OFFSET = 64;
    /** Blocks start aligned to this in small classes. */
    private static final int SMALL_ALIGN = 64;

    private static final long[] BLOCK_BYTES = new long[COUNT];
    private static final int[] CHUNK_SHIFTS = new int[COUNT];
    private static final int[] HEADER_BYTES = new int[COUNT];
    private static final int[] BLOCKS_PER_CHUNK = new int[COUNT];

    static {
        for (int c = 0; c < COUNT; c++) {
            BLOCK_BYTES[c] = c < FINE_CLASSES ? (c + 1) * GRANULE : coarseBlockBytes(c);
            CHUNK_SHIFTS[c] = c < SMALL_COUNT ? smallChunkShift(BLOCK_BYTES[c])
                    : pageChunkShift(BLOCK_BYTES[c]);
            long chunk = 1L << CHUNK_SHIFTS[c];
            if (c < SMALL_COUNT) {
                int blocks = (int) ((chunk - LINKS_OFFSET) / (BLOCK_BYTES[c] + Integer.BYTES));
                while (smallHeader(blocks) + blocks * BLOCK_BYTES[c] > chunk) {
                    blocks--;
                }
                BLOCKS_PER_CHUNK[c] = blocks;
                HEADER_BYTES[c] = smallHeader(blocks);
            } else {
                BLOCKS_PER_CHUNK[c] = (int) ((chunk - PAGE) / BLOCK_BYTES[c]);
                HEADER_BYTES[c] = PAGE;
            }
        }
    }

    private static int smallHeader(int blocks) {
        int end = LINKS_OFFSET + blocks * Integer.BYTES;
        return (end + SMALL_ALIGN - 1) & -SMALL_ALIGN;
    }

    private SizeClasses() {
    }

    private static long coarseBlockBytes(int sizeClass) {
        int k = FINE_LIMIT_SHIFT + ((sizeClass - FINE_CLASSES) >> STEP_SHIFT);
        int step = (sizeClass - FINE_CLASSES) & ((1 << STEP_SHIFT) - 1);
        return (1L << k) + ((long) (step + 1) << (k - STEP_SHIFT));
    }

    private static int smallChunkShift(long block) {
        int shift = MIN_CHUNK_SHIFT;
        while ((1L << shift) < MIN_BLOCKS_PER_CHUNK * block) {
            shift++;
        }
        return shift;
    }

    private static int pageChunkShift(long block) {
        int shift = PAGE_CHUNK_SHIFT;
        while ((1L << shift) < PAGE + block) {
            shift++;
        }
        return shift;
    }

    /**
     * The class of a length: the smallest whose block holds it (length 0 takes the 16-byte
     * class). Unchecked: callers have checked that {@code length >= 0}.
     */
    public static int classOf(int length) {
        if (length <= FINE_LIMIT) {
            return (Math.max(length, 1) - 1) >>> GRANULE_SHIFT;
        }
        int k = 31 - Integer.numberOfLeadingZeros(length - 1); // 2^k < length <= 2^(k+1)
        int step = (length - 1 - (1 << k)) >>> (k - STEP_SHIFT);
        return FINE_CLASSES + ((k - FINE_LIMIT_SHIFT) << STEP_SHIFT) + step;
    }

    /** The block size of a class. */
    public static long blockBytes(int sizeClass) {
        return BLOCK_BYTES[sizeClass];
    }

    /** log2 of the chunk size of a class (chunks are aligned to their size). */
    public static int chunkShift(int sizeClass) {
        return CHUNK_SHIFTS[sizeClass];
    }

    /** Bytes at the start of a chunk before its first block: the header (number and links). */
    public static int headerBytes(int sizeClass) {
        return HEADER_BYTES[sizeClass];
    }

    /** log2 of the unit blocks and their offsets are multiples of: 16 bytes, or a page. */
    static int granuleShift(int sizeClass) {
        return sizeClass < SMALL_COUNT ? GRANULE_SHIFT : PAGE_SHIFT;
    }

    /** Whether a freed block of the class gives its pages back to the kernel. */
    public static boolean returnsPages(int sizeClass) {
        return BLOCK_BYTES[sizeClass] >= RETURN_PAGES_MIN;
    }

    /** Blocks in one chunk of a class: what fits after the header. */
    public static int blocksPerChunk(int sizeClass) {
        return BLOCKS_PER_CHUNK[sizeClass];
    }

    /**
     * Bits of a block index that number the block within its chunk; the rest number the chunk.
     */
    static int blockBits(int sizeClass) {
        int blocks = BLOCKS_PER_CHUNK[sizeClass];
        return blocks <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(blocks - 1);
    }
}
