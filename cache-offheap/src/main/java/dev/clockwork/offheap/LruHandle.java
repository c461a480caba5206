package dev.clockwork.offheap;

/**
 * An LRU cache handle: where the entry's record is, and which incarnation of that record it
 * names.
 *
 * <pre>
 *   63  62  61 ........... 47  46 ........... 31  30 ..................... 0
 *  | 0 | 1 | generation (15) |   shard (16)     |   record index (31)      |
 * </pre>
 *
 * <p>Bit 62 tells it from {@link dev.clockwork.cache.Cache#MISS} and from HyperClock handles. The
 * generation field is the record's generation (odd while the record holds an entry, moved on at
 * each allocation and free, see {@link RecordSlab}) XOR a random salt drawn per cache, low 15 bits.
 * So a handle is refused when its record holds no entry; when its entry was freed, unless the
 * record was reused a multiple of 16,384 times since; and when it comes from another cache, unless
 * the salts and generations line up (about 1 in 32,768).
 */
final class LruHandle {
    static final long TAG = 1L << 62;
    static final int INDEX_BITS = 31;
    static final int SHARD_BITS = 16;
    static final int GENERATION_SHIFT = INDEX_BITS + SHARD_BITS;
    static final int GENERATION_MASK = (1 << 15) - 1;
    private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;
    private static final long SHARD_MASK = (1L << SHARD_BITS) - 1;

    private LruHandle() {
    }

    static long of(int shard, int index, int generation, int salt) {
        return TAG | ((long) ((generation ^ salt) & GENERATION_MASK) << GENERATION_SHIFT)
                | ((long) shard << INDEX_BITS) | index;
    }

    /** Whether the tag bits are right (the rest is checked against the cache). */
    static boolean tagged(long handle) {
        return (handle >>> 62) == 1;
    }

    static int shard(long handle) {
        return (int) ((handle >>> INDEX_BITS) & SHARD_MASK);
    }

    static int index(long handle) {
        return (int) (handle & INDEX_MASK);
    }

    static int generation(long handle) {
        return (int) (handle >>> GENERATION_SHIFT) & GENERATION_MASK;
    }

    /**
     * Whether a handle names the entry its record holds: the record holds one (odd generation)
     * and the generations match.
     */
    static boolean names(long handle, int recordGeneration, int salt) {
        return (recordGeneration & 1) != 0
                && ((recordGeneration ^ salt) & GENERATION_MASK) == generation(handle);
    }
}
