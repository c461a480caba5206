package dev.clockwork.offheap.memory;

/**
 * The size classes of {@link ValueSlabs}: which block a value of a given length goes in, and how
 * big a chunk of such blocks is. Pure functions of the length, so that a free needs no header to
 * find its class.
 *
 * <pre>
 *   class   0..15   block 16, 32, ..., 256          (16-byte steps)
 *   class  16..19   block 320, 384, 448, 512        (four steps per power of two from here on)
 *   class  20..23   block 640, 768, 896, 1024
 *   class  24..27   block 1280, 1536, 1792, 2048
 *   class  28..31   block 2560, 3072, 3584, 4096
 *   class  32..35   block 5120, 6144, 7168, 8192
 *   class  36..39   block 10240, 12288, 14336, 16384 ({@link #MAX_LENGTH})
 * </pre>
 *
 * <p>Slack (block bytes a value does not use): up to 256 bytes, at most 15 bytes; above, a length
 * just over a power of two {@code 2^k} takes a block {@code 2^k / 4} bigger, so the worst is just
 * under 25% of the length (257 bytes in a 320-byte block: 24.5%; 8193 in 10240: 25.0%). With
 * every length from 1 to {@link #MAX_LENGTH} equally likely, the slack averages 9.1% of the
 * length (8.9% over lengths above 256), 7.7% of the blocks' bytes; {@code SizeClassesTest}
 * checks these bounds. Multiples of 16 up to 256 and every power of two fit exactly.
 *
 * <p>Chunks: each class's chunk is the smallest power of two, at least {@link #MIN_CHUNK_SHIFT}
 * (1 MiB), that holds {@link #MIN_BLOCKS_PER_CHUNK} blocks, and is aligned to its size. Its first
 * {@link #CHUNK_HEADER_BYTES} are the header; what is left after the last whole block is lost, at
 * most one block, so under 1/256 (0.4%) of the chunk; 0.01–0.4% by class (a power-of-two block
 * loses one block to the header). Chunks are 1 MiB up to 4 KiB blocks, 2 MiB and 4 MiB above;
 * one chunk of every class is 56 MiB of address space (its pages resident only as used). Why no
 * smaller chunks: glibc serves an aligned request below its mmap threshold (128 KiB) from the
 * heap, splitting off and touching the alignment slack around it, which cost LRU at 64-byte values
 * more resident memory than the 16-byte malloc headers the slabs save; at 1 MiB and above it maps
 * the chunk, touching one page beside it.
 */
public final class SizeClasses {
    /** Values up to this many bytes are carved from slabs; longer ones are malloc'd. */
    public static final int MAX_LENGTH = 16 * 1024;
    /** Blocks are multiples of 16 bytes, like malloc's alignment. */
    static final int GRANULE_SHIFT = 4;
    static final int GRANULE = 1 << GRANULE_SHIFT;
    /** Up to this length, one class every {@link #GRANULE} bytes. */
    static final int FINE_LIMIT = 256;
    static final int FINE_CLASSES = FINE_LIMIT / GRANULE;
    /** Above {@link #FINE_LIMIT}, {@code 2^STEP_SHIFT} classes per power of two. */
    static final int STEP_SHIFT = 2;
    private static final int FINE_LIMIT_SHIFT = Integer.numberOfTrailingZeros(FINE_LIMIT);
    private static final int MAX_LENGTH_SHIFT = Integer.numberOfTrailingZeros(MAX_LENGTH);
    /** How many classes there are. */
    public static final int COUNT =
            FINE_CLASSES + ((MAX_LENGTH_SHIFT - FINE_LIMIT_SHIFT) << STEP_SHIFT);

    static final int MIN_CHUNK_SHIFT = 20;
    static final int MIN_BLOCKS_PER_CHUNK = 256;
    /** The chunk's number in its class, then unused: blocks start 64-byte aligned. */
    static final int CHUNK_HEADER_BYTES = 64;

    private static final int[] BLOCK_BYTES = new int[COUNT];
    private static final int[] CHUNK_SHIFTS = new int[COUNT];

    static {
        for (int c = 0; c < COUNT; c++) {
            BLOCK_BYTES[c] = c < FINE_CLASSES ? (c + 1) * GRANULE : coarseBlockBytes(c);
            int shift = MIN_CHUNK_SHIFT;
            while ((1L << shift) < (long) MIN_BLOCKS_PER_CHUNK * BLOCK_BYTES[c]) {
                shift++;
            }
            CHUNK_SHIFTS[c] = shift;
        }
    }

    private SizeClasses() {
    }

    private static int coarseBlockBytes(int sizeClass) {
        int k = FINE_LIMIT_SHIFT + ((sizeClass - FINE_CLASSES) >> STEP_SHIFT);
        int step = (sizeClass - FINE_CLASSES) & ((1 << STEP_SHIFT) - 1);
        return (1 << k) + ((step + 1) << (k - STEP_SHIFT));
    }

    /** Whether a value of {@code length} bytes lives in a slab (rather than its own malloc). */
    public static boolean inSlab(int length) {
        return length >= 0 && length <= MAX_LENGTH;
    }

    /**
     * The class of a length from 0 to {@link #MAX_LENGTH}: the smallest whose block holds it
     * (length 0 takes the 16-byte class). Unchecked: callers have checked {@link #inSlab}.
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
    public static int blockBytes(int sizeClass) {
        return BLOCK_BYTES[sizeClass];
    }

    /** log2 of the chunk size of a class (chunks are aligned to their size). */
    public static int chunkShift(int sizeClass) {
        return CHUNK_SHIFTS[sizeClass];
    }

    /** Blocks in one chunk of a class: what fits after the header. */
    public static int blocksPerChunk(int sizeClass) {
        long room = (1L << CHUNK_SHIFTS[sizeClass]) - CHUNK_HEADER_BYTES;
        return (int) (room / BLOCK_BYTES[sizeClass]);
    }
}
