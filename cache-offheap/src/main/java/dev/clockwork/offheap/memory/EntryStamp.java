package dev.clockwork.offheap.memory;

import dev.clockwork.cache.hash.KeyHash;

/**
 * Stamps and the handles that carry them: how a 64-bit handle proves that it names the entry a
 * slot or record holds now, and not an earlier or later entry of the same slot, another slot's
 * entry, or nothing. Shared by HyperClock table slots, HyperClock standalone records and LRU
 * records.
 *
 * <h2>Stamps</h2>
 * Every slot and record has a 32-bit stamp, <em>odd exactly while it holds an entry</em>. Freeing
 * an entry clears the stamp's low bit ({@link #dead}); writing the next entry moves it to a
 * scrambled successor ({@link #live}: a bijection of the upper 31 bits, low bit set). The first
 * entry of a never-used slot (stamp 0, as zeroed memory has) gets {@link #seed} of the cache's
 * salt and the slot's identity instead. So the stamps of two slots are unrelated whatever their
 * histories, and the stamps one slot takes over time look random: a handle whose check was
 * changed (a flipped bit is a nearby number) is no likelier to match the slot's next entry than
 * any other number. A counter would not do: with it, the check of a live handle with bit 1
 * flipped is the check of the slot's very next entry.
 *
 * <h2>Handles</h2>
 * <pre>
 *   63  62   61 ................ 40   39 ............................... 0
 *  | 0 | K |  check (22 bits)      |  location (40 bits)                 |
 * </pre>
 * K is the kind bit the cache type gives meaning to (HyperClock: a standalone entry); the
 * location names the slot (and its shard) in a way each cache type defines; the check is the low
 * {@value #CHECK_BITS} bits of the stamp the entry was given. A handle is accepted only if its
 * slot's stamp is odd and agrees with the check in those bits. So a handle is accepted for:
 * <ul>
 *   <li>its own entry, still in the slot: always;</li>
 *   <li>its entry freed and the slot empty: never (the stamp is even);</li>
 *   <li>a later entry in the same slot, or any other slot's entry (a stale handle, a made-up
 *       one, any bit of a live one changed): with probability 2^-21 per entry it meets, the
 *       chance that two unrelated odd 22-bit values are equal;</li>
 *   <li>a handle of an empty slot, or a check bit flipped while the entry is there: never.</li>
 * </ul>
 * The check is odd, so no handle is {@link dev.clockwork.cache.Cache#MISS} (0).
 */
public final class EntryStamp {
    /** Bits of the location field: a slot or record and its shard. */
    public static final int LOCATION_BITS = 40;
    static final long LOCATION_MASK = (1L << LOCATION_BITS) - 1;
    /** Bits of a stamp a handle carries. */
    public static final int CHECK_BITS = 22;
    private static final int CHECK_MASK = (1 << CHECK_BITS) - 1;
    /** The kind bit (see the class comment). */
    public static final long KIND = 1L << 62;
    /** Every bit a handle of either kind may have set. */
    private static final long HANDLE_BITS = KIND | ((long) CHECK_MASK << LOCATION_BITS)
            | LOCATION_MASK;

    private EntryStamp() {
    }

    // ---------------------------------------------------------------- stamps

    /** Whether a slot with this stamp holds an entry. */
    public static boolean isLive(int stamp) {
        return (stamp & 1) != 0;
    }

    /**
     * Bits 1..9 of a stamp: the clock's meta-word tag is made of them, and a handle's check
     * includes them. A slot's next stamp always differs from its last one here.
     */
    static final int SUCCESSOR_DIFFERS = 0x3FE;

    /**
     * The stamp of a slot that takes an entry, given its stamp while empty (even): the scrambled
     * successor of its last live stamp, scrambled again while it agrees with that stamp in
     * {@link #SUCCESSOR_DIFFERS} (one time in 512); or, for a never-used slot, its seed. So a
     * handle of the slot's last entry, or a CAS from that entry's word, never passes for the
     * entry that follows it, the likeliest stale use; later entries match with the
     * probabilities above.
     *
     * @param identity a number no other slot of the same cache has (shard and index, say)
     */
    public static int live(int emptyStamp, long salt, long identity) {
        assert !isLive(emptyStamp) : "a slot takes an entry only while empty";
        if (emptyStamp == 0) {
            return seed(salt, identity);
        }
        int next = emptyStamp;
        do {
            next = (scramble(next >>> 1) << 1) | 1;
        } while (((next ^ emptyStamp) & SUCCESSOR_DIFFERS) == 0);
        return next;
    }

    /** The stamp of a slot whose entry is freed: its live stamp with the low bit cleared. */
    public static int dead(int liveStamp) {
        assert isLive(liveStamp) : "only a slot holding an entry frees it";
        return liveStamp & ~1;
    }

    /**
     * A slot's first live stamp: the cache's salt and the slot's identity mixed by a bijection
     * ({@link KeyHash}), so distinct slots draw independent-looking values; odd. (A dead stamp
     * that happens to be 0 is seeded again, which is as good as scrambling it.)
     */
    static int seed(long salt, long identity) {
        return (int) KeyHash.hash0(identity, 0, salt) | 1;
    }

    /** Mask of the 31 bits {@link #scramble} permutes. */
    private static final int BITS_31 = Integer.MAX_VALUE;

    /**
     * A bijection of 31-bit numbers that spreads every input bit over the output: xor-shifts and
     * odd multipliers (each a bijection mod 2^31), after the 32-bit finalizer of MurmurHash3.
     */
    static int scramble(int x) {
        x = (x ^ (x >>> 16)) & BITS_31;
        x = (x * 0x85EB_CA6B) & BITS_31;
        x ^= x >>> 13;
        x = (x * 0xC2B2_AE35) & BITS_31;
        return x ^ (x >>> 16);
    }

    // ---------------------------------------------------------------- handles

    /** The handle naming the entry a slot with {@code stamp} (odd) holds. */
    public static long handle(long kind, long location, int stamp) {
        assert isLive(stamp) && (location & ~LOCATION_MASK) == 0 && (kind & ~KIND) == 0;
        return kind | ((long) (stamp & CHECK_MASK) << LOCATION_BITS) | location;
    }

    /** Whether a number has a handle's shape: no bit outside the fields. */
    public static boolean isWellFormed(long handle) {
        return (handle & ~HANDLE_BITS) == 0;
    }

    public static boolean isKind(long handle) {
        return (handle & KIND) != 0;
    }

    public static long location(long handle) {
        return handle & LOCATION_MASK;
    }

    /** Whether a handle names the entry of a slot whose stamp is {@code stamp}. */
    public static boolean names(long handle, int stamp) {
        return isLive(stamp) && ((int) (handle >>> LOCATION_BITS) & CHECK_MASK)
                == (stamp & CHECK_MASK);
    }
}
