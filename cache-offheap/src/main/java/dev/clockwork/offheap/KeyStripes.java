package dev.clockwork.offheap;

/**
 * Striped monitors chosen by a hashed key: the writes that must see a key's presence and change it
 * in one step ({@code put}, {@code putIfAbsent}, get-or-load) hold the stripe of their key, so two
 * of them on one key run one after the other, while writes of other keys mostly run in parallel.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>One key, one stripe, for the cache's lifetime: the stripe is a function of the hashed
 *       key's {@code h0} alone ({@link #of}), and the array never changes.</li>
 *   <li>A stripe is held only around the cache's own steps (a presence check, an erase, an insert)
 *       and the admission policy an insert asks. No call that takes a stripe may run on a thread
 *       that holds one of another key, or two threads could wait for each other's. The admission
 *       policy is the only user code that runs under a stripe (its {@code admit},
 *       {@code recordInsert} and {@code recordAccess}); so a thread holding a stripe is marked
 *       ({@code CallbackGuard.enterStripe}), and stripe-taking calls, and loads that could wait
 *       for a stripe, refuse on a marked thread or one asking a policy
 *       ({@code CallbackGuard.mustNotTakeStripe}). An LRU cache's policies also hold a shard
 *       lock, and are refused by the shard's guard first.</li>
 *   <li>Plain {@code insert} and {@code erase} take no stripe: they keep their type-specific
 *       (RocksDB) meaning, and only the striped writes are ordered against each other.</li>
 * </ul>
 *
 * <h2>Costs</h2>
 * Nothing is allocated per call: the monitors are {@code synchronized} on a fixed array of lock
 * objects made once. Each object is a 128-byte array, so two stripes' headers (where an
 * uncontended monitor is taken) do not share a 64-byte cache line and writers of different
 * stripes do not slow each other down. The stripe count is a power of two of at least 4 per
 * processor (at least 16, at most 1,024): distinct keys share a stripe, and wait for each other,
 * with a chance of about one in that count.
 */
final class KeyStripes {
    /** Longs per lock object: a 16-byte header and 112 bytes, 128 in all. */
    private static final int LOCK_LONGS = 14;
    private static final int MIN_STRIPES = 16;
    private static final int MAX_STRIPES = 1024;

    private final Object[] locks;
    private final int mask;

    KeyStripes() {
        this(Runtime.getRuntime().availableProcessors());
    }

    /** Stripes for {@code processors} processors (see the class comment for the count). */
    KeyStripes(int processors) {
        int wanted = Math.clamp(4L * Math.max(1, processors), MIN_STRIPES, MAX_STRIPES);
        int count = Integer.highestOneBit(wanted - 1) << 1; // the power of two >= wanted
        locks = new Object[count];
        for (int i = 0; i < count; i++) {
            locks[i] = new long[LOCK_LONGS];
        }
        mask = count - 1;
    }

    /**
     * The monitor of the key whose first hash word is {@code h0}. Its low bits: the shard is picked
     * by bits from 32 up, so keys of one shard still spread over every stripe. The hash is a
     * seeded bijection of the key, so the low bits are as mixed as any.
     */
    Object of(long h0) {
        return locks[(int) h0 & mask];
    }

    /** The number of stripes, a power of two. */
    int count() {
        return locks.length;
    }
}
