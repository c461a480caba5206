package dev.clockwork.offheap;

/**
 * A HyperClock cache handle: which slot holds the entry, and which incarnation of that slot it
 * names; or, for a standalone entry, where its slot was allocated.
 *
 * <pre>
 *                     63  62  61 ............. 49  48  47 ......... 32  31 ............... 0
 *  table entry:      | 0 | 0 | generation (13)  | 1 |   shard (16)   |  slot index (32)   |
 *  standalone entry: | 0 | 1 |      native address of the standalone slot (62)            |
 * </pre>
 *
 * <p>The generation field is the slot's generation ({@link SlotLayout#generation}: odd while the
 * slot holds an entry, moved on when an entry is written and when it is freed) XOR a random salt
 * drawn per cache. So a table handle is refused when its slot holds no entry; when its entry was
 * freed and the slot reused, unless that happened a multiple of 4,096 times since; and when it
 * comes from another cache, unless the salts and generations line up (about 1 in 8,192). Bit 48
 * tells a table handle from {@link dev.clockwork.cache.Cache#MISS} even for slot 0 of shard 0.
 * A standalone handle is only used after the cache's registry confirms it.
 */
final class ClockHandle {
    static final long TABLE_TAG = 1L << 48;
    static final long STANDALONE_TAG = 1L << 62;
    static final int GENERATION_SHIFT = 49;
    private static final int SHARD_SHIFT = 32;
    private static final long SHARD_MASK = 0xFFFFL;
    private static final long INDEX_MASK = 0xFFFF_FFFFL;
    /** Every bit a table handle may have set. */
    private static final long TABLE_BITS = ((long) SlotLayout.GENERATION_MASK << GENERATION_SHIFT)
            | TABLE_TAG | (SHARD_MASK << SHARD_SHIFT) | INDEX_MASK;

    private ClockHandle() {
    }

    static long table(int shard, long slotIndex, int generation, int salt) {
        return ((long) ((generation ^ salt) & SlotLayout.GENERATION_MASK) << GENERATION_SHIFT)
                | TABLE_TAG | ((long) shard << SHARD_SHIFT) | slotIndex;
    }

    static long standalone(long slotAddress) {
        return STANDALONE_TAG | slotAddress;
    }

    static boolean isStandalone(long handle) {
        return (handle & STANDALONE_TAG) != 0;
    }

    /** Whether the handle has a table handle's shape (shard and index are checked by the cache). */
    static boolean isTable(long handle) {
        return (handle & ~TABLE_BITS) == 0 && (handle & TABLE_TAG) != 0;
    }

    static int shard(long handle) {
        return (int) ((handle >>> SHARD_SHIFT) & SHARD_MASK);
    }

    static long slotIndex(long handle) {
        return handle & INDEX_MASK;
    }

    static long standaloneAddress(long handle) {
        return handle & ~STANDALONE_TAG;
    }

    /** The slot generation a table handle names (its own generation field, unsalted). */
    static int generation(long handle, int salt) {
        return ((int) (handle >>> GENERATION_SHIFT) ^ salt) & SlotLayout.GENERATION_MASK;
    }

    /**
     * Whether a table handle names the entry its slot holds, given the slot's flags word: the slot
     * holds an entry (odd generation) and the generations match.
     */
    static boolean names(long handle, int slotFlags, int salt) {
        int generation = SlotLayout.generation(slotFlags);
        return (generation & 1) != 0 && ((int) (handle >>> GENERATION_SHIFT)
                == ((generation ^ salt) & SlotLayout.GENERATION_MASK));
    }
}
