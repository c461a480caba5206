package dev.clockwork.offheap.entry;

import dev.clockwork.cache.hash.KeyHash;

/**
 * Stamps and the handles that carry them: how a 64-bit handle proves that it names the entry a
 * slot or record holds now, and not an earlier or later entry of the same slot, another slot's
 * entry, or nothing. Shared by HyperClock table slots, HyperClock standalone records and LRU
 * records.
 *
 * <h2>Stamps</h2>
 * <pre>
 *   31 ................................................ 1   0
 *  |  generation (31 bits)                               | L |    L: the slot holds an entry
 * </pre>
 * Every slot and record has a 32-bit stamp, <em>odd exactly while it holds an entry</em>. Freeing
 * an entry clears L ({@link #dead}); the next entry takes the slot's next generation, with L set
 * ({@link #live}). Zeroed memory reads as generation 0, empty: a never-used slot needs no case of
 * its own.
 *
 * <h2>The order of generations</h2>
 * Every slot runs through all 2^31 generations before it repeats one, and its next generation
 * always differs from its last in the low {@value #TAG_BITS} bits (stamp bits 1..9: the clock
 * meta word's tag). By construction, in two steps:
 * <ol>
 *   <li><b>One common order</b>: a 31-bit counter {@code c} seen through a bijection {@code B},
 *       so the generation after {@code g} is {@code next(g) = B(B^-1(g) + 1 mod 2^31)}. Adding 1
 *       mod 2^31 is a single cycle through all 2^31 numbers, so {@code next}, its image under a
 *       bijection, is too: no fixed point, no shorter cycle.
 * <pre>
 *   c    = |      high (22 bits)           |  tag (9 bits)  |
 *   B(c) = |  mix(high ^ spread(tag))      |  tag           |
 * </pre>
 *       {@code mix} is a bijection of 22 bits (xor-shifts by 11, each its own inverse on 22
 *       bits, and odd multipliers, invertible mod 2^22), {@code spread} any function of the
 *       tag; so for each tag {@code B} maps the highs one to one, and {@code B} is a bijection.
 *       It keeps the counter's low bits: consecutive generations have consecutive tags mod 512,
 *       never equal, and a tag comes back only every 512th entry. The high bits look random:
 *       each step changes {@code spread(tag)}, which {@code mix} spreads over all 22.</li>
 *   <li><b>Each slot's own start</b>: a slot's order is the common one with 0 and the slot's
 *       seed {@code s} swapped: {@code successor(g) = T(next(T(g)))}, where {@code T} exchanges
 *       0 and {@code s}. A conjugate of a single cycle of 2^31 is one as well. The seed is a hash
 *       of the cache's random salt and the slot's identity, its tag drawn from 2..510, so that
 *       {@code s} is neither 0 nor a neighbour of 0 in the common order (their tags are 511 and
 *       1); then the four steps the swap changes ({@code pred(s) -> 0 -> next(s)} and
 *       {@code pred(0) -> s -> next(0)}) still join different tags. A fresh slot's {@code t}-th
 *       generation is {@code next^t(s)} (but for one value of {@code s}): a fixed bijection of
 *       the seed, so spread over the salt as evenly as the seed is, about 2^-31 per value.</li>
 * </ol>
 * Why a swap and not a mask xor'ed in and out ({@code next(g ^ S) ^ S}): every slot starts at
 * generation 0, whose successor under a mask is {@code B(B^-1(S) + 1) ^ B(B^-1(S))}; its tag bits
 * are then {@code (c + 1) ^ c}, 1 for half the slots, so the first entries of two slots (or two
 * caches) would share checks far more often than random generations do.
 *
 * <h2>Handles</h2>
 * <pre>
 *   63   62 ......................... 32   31   30 ......................... 0
 *  | 0 |  check: generation (31 bits)   | K  |  location (31 bits)          |
 * </pre>
 * K is the kind bit the cache type gives meaning to (HyperClock: a table entry); the location
 * names the slot (and its shard) in a way each cache type defines; the check is the generation
 * of the stamp the entry was given. A handle is accepted only if its slot's stamp is odd and its
 * generation is the check. So a handle is accepted for:
 * <ul>
 *   <li>its own entry, still in the slot: always;</li>
 *   <li>its entry freed and the slot empty: never (the stamp is even);</li>
 *   <li>a later entry in the same slot (a stale handle): never within the 2^31 - 1 entries that
 *       follow its own, then once per 2^31;</li>
 *   <li>any other slot's entry, another cache's, a made-up number, a live handle with a
 *       location bit changed: with probability about 2^-31 per entry it meets (the other
 *       slot's generations follow its seed, which the salt makes independent of this one's);</li>
 *   <li>a live handle with a check bit changed: never while its entry is there, then by one
 *       entry of the slot's 2^31.</li>
 * </ul>
 * The check is 31 bits, not 32: 32 generations would need L outside the stamp, and the only
 * spare bit in the word the value path reads with the stamp is the value length's sign, which
 * every reader and writer of the length would have to mask.
 *
 * <p>No handle is {@link dev.clockwork.cache.Cache#MISS} (0): each has K or a location other
 * than 0 (HyperClock table handles have K; records are numbered from 1, index 0 being a slab
 * chunk's header). And none is negative: the sign bit is 0.
 *
 * <h2>Cost</h2>
 * Checking a handle is a shift, a compare and a test of L, as before the check was widened.
 * Taking a slot costs a hash of the salt and identity, {@code B^-1} and {@code B} (a 22-bit mix
 * each: two multiplies and three xor-shifts, plus a multiply for {@code spread}) and two
 * compares; no loop.
 */
public final class EntryStamp {
    // ---------------------------------------------------------------- stamp fields

    /** Bits of a generation: a stamp but its low bit. */
    static final int GENERATION_BITS = 31;
    private static final int GENERATION_MASK = (1 << GENERATION_BITS) - 1;
    /**
     * Low bits of a generation that {@code B} keeps from the counter: stamp bits 1..9, the
     * clock meta word's tag.
     */
    static final int TAG_BITS = 9;
    private static final int TAG_MASK = (1 << TAG_BITS) - 1;
    /** The generation's bits above the tag, which {@code B} mixes. */
    static final int HIGH_BITS = GENERATION_BITS - TAG_BITS;

    /**
     * Stamp bits 1..9, the tag bits: a slot's next stamp always differs from its last one here
     * (see the class comment).
     */
    static final int SUCCESSOR_DIFFERS = TAG_MASK << 1;

    // ---------------------------------------------------------------- the mix

    /** Multipliers of {@link #mix}: MurmurHash3's fmix32 constants (odd: invertible). */
    private static final int MIX_MULTIPLIER_1 = 0x85EB_CA6B;
    private static final int MIX_MULTIPLIER_2 = 0xC2B2_AE35;
    /** Their inverses mod 2^32, hence mod 2^k for every k: for {@link #unmix}. */
    private static final int MIX_INVERSE_1 = inverse(MIX_MULTIPLIER_1);
    private static final int MIX_INVERSE_2 = inverse(MIX_MULTIPLIER_2);
    /** Multiplier of {@link #spread}: 2^32 over the golden ratio. */
    private static final int SPREAD_MULTIPLIER = 0x9E37_79B9;

    // ---------------------------------------------------------------- seeds

    /** The lowest tag a seed has: tags 0, 1 and 511 are 0's and its neighbours'. */
    private static final int FIRST_SEED_TAG = 2;
    /** How many tags a seed may have: 2..510. */
    private static final int SEED_TAGS = (1 << TAG_BITS) - 3;

    // ---------------------------------------------------------------- handle fields

    /** Bits of the location field: a slot or record and its shard. */
    public static final int LOCATION_BITS = 31;
    static final long LOCATION_MASK = (1L << LOCATION_BITS) - 1;
    /** The kind bit (see the class comment). */
    public static final long KIND = 1L << LOCATION_BITS;
    /** Where a handle's check starts. */
    public static final int CHECK_SHIFT = LOCATION_BITS + 1;
    /** Bits of a handle's check: the whole generation. */
    public static final int CHECK_BITS = GENERATION_BITS;
    /** Every bit a handle of either kind may have set: all but the sign. */
    private static final long HANDLE_BITS = ((long) GENERATION_MASK << CHECK_SHIFT) | KIND
            | LOCATION_MASK;

    private EntryStamp() {
    }

    // ---------------------------------------------------------------- stamps

    /** Whether a slot with this stamp holds an entry. */
    public static boolean isLive(int stamp) {
        return (stamp & 1) != 0;
    }

    /**
     * The stamp of a slot that takes an entry, given its stamp while empty (even, 0 if never
     * used): its generation's successor in the slot's order, with L set. So neither a handle of
     * the slot's last entry nor a CAS from that entry's meta word ever passes for this one.
     *
     * @param identity a number no other slot of the same cache has (shard and index, say)
     */
    public static int live(int emptyStamp, long salt, long identity) {
        assert !isLive(emptyStamp) : "a slot takes an entry only while empty";
        int generation = successor(emptyStamp >>> 1, seed(salt, identity), TAG_BITS, HIGH_BITS);
        return (generation << 1) | 1;
    }

    /** The stamp of a slot whose entry is freed: its live stamp with L cleared. */
    public static int dead(int liveStamp) {
        assert isLive(liveStamp) : "only a slot holding an entry frees it";
        return liveStamp & ~1;
    }

    /**
     * A slot's seed: where its order differs from the common one (see the class comment). A
     * hash ({@link KeyHash}) of the cache's salt and the slot's identity: the high bits are the
     * hash's low 22, the tag its high 32 scaled to 2..510, so every seed is about as likely.
     */
    static int seed(long salt, long identity) {
        long hash = KeyHash.hash0(identity, 0, salt);
        int tag = FIRST_SEED_TAG + (int) (((hash >>> 32) * SEED_TAGS) >>> 32);
        return (((int) hash & ((1 << HIGH_BITS) - 1)) << TAG_BITS) | tag;
    }

    // ---------------------------------------------------------------- the order of generations

    // The construction takes its widths as arguments, so that tests can walk a narrower one
    // exhaustively; the cache calls it with TAG_BITS and HIGH_BITS, constants once inlined.

    /**
     * The generation after {@code generation} in the order of a slot with {@code seed}: the
     * common order ({@link #next}) with 0 and the seed swapped, {@code T(next(T(g)))}. Written
     * out by cases so that {@code next(g)} of the common case does not wait for the seed (a
     * hash): {@code T(g) = g} unless {@code g} is 0 or the seed, and {@code next(s)} and
     * {@code next(0)} are neither 0 nor the seed, which is not next to 0.
     *
     * @param seed not 0, its tag from 2 to {@code 2^tagBits - 2}
     */
    static int successor(int generation, int seed, int tagBits, int highBits) {
        if (generation == 0) {
            return next(seed, tagBits, highBits); // T(0) = s
        }
        if (generation == seed) {
            return next(0, tagBits, highBits); // T(s) = 0; a constant once inlined
        }
        int next = next(generation, tagBits, highBits);
        return next == 0 ? seed : next == seed ? 0 : next; // T
    }

    /** The generation after {@code generation} in the common order: B(B^-1(g) + 1). */
    static int next(int generation, int tagBits, int highBits) {
        int count = unorder(generation, tagBits, highBits) + 1;
        return order(count & ((1 << (tagBits + highBits)) - 1), tagBits, highBits);
    }

    /** {@code B}: the generation at position {@code count} of the common order. */
    static int order(int count, int tagBits, int highBits) {
        int tag = count & ((1 << tagBits) - 1);
        int high = count >>> tagBits;
        return (mix(high ^ spread(tag, highBits), highBits) << tagBits) | tag;
    }

    /** {@code B^-1}: the position of {@code generation} in the common order. */
    static int unorder(int generation, int tagBits, int highBits) {
        int tag = generation & ((1 << tagBits) - 1);
        int high = unmix(generation >>> tagBits, highBits) ^ spread(tag, highBits);
        return (high << tagBits) | tag;
    }

    /** A number of {@code bits} bits made from a tag: the high bits of its golden product. */
    private static int spread(int tag, int bits) {
        return (tag * SPREAD_MULTIPLIER) >>> (Integer.SIZE - bits);
    }

    /**
     * A bijection of {@code bits}-bit numbers that spreads every input bit over the output:
     * xor-shifts by half the width rounded up (applied twice, {@code x ^ (x >>> s)} gives
     * {@code x ^ (x >>> 2s)} = {@code x}), and odd multipliers mod 2^bits; MurmurHash3's
     * finalizer on fewer bits.
     */
    static int mix(int x, int bits) {
        int mask = (1 << bits) - 1;
        int shift = (bits + 1) >>> 1;
        x ^= x >>> shift;
        x = (x * MIX_MULTIPLIER_1) & mask;
        x ^= x >>> shift;
        x = (x * MIX_MULTIPLIER_2) & mask;
        return x ^ (x >>> shift);
    }

    /** The inverse of {@link #mix}: its steps undone in reverse order. */
    static int unmix(int x, int bits) {
        int mask = (1 << bits) - 1;
        int shift = (bits + 1) >>> 1;
        x ^= x >>> shift;
        x = (x * MIX_INVERSE_2) & mask;
        x ^= x >>> shift;
        x = (x * MIX_INVERSE_1) & mask;
        return x ^ (x >>> shift);
    }

    /**
     * The inverse of an odd number mod 2^32, by Newton's iteration: an odd number is its own
     * inverse mod 2^3 (its square is 1 mod 8), and each step doubles the bits that are right
     * (3, 6, 12, 24, 48).
     */
    static int inverse(int odd) {
        assert (odd & 1) != 0 : "only odd numbers have inverses mod 2^32";
        int inverse = odd;
        for (int i = 0; i < 4; i++) {
            inverse *= 2 - odd * inverse;
        }
        return inverse;
    }

    // ---------------------------------------------------------------- handles

    /**
     * The handle naming the entry a slot with {@code stamp} (odd) holds.
     *
     * @param kind 0 or {@link #KIND}; with location 0 it must be {@link #KIND}, or the handle
     *     could be {@link dev.clockwork.cache.Cache#MISS}
     */
    public static long handle(long kind, long location, int stamp) {
        assert isLive(stamp) && (location & ~LOCATION_MASK) == 0 && (kind & ~KIND) == 0;
        assert (kind | location) != 0 : "a handle of kind 0 and location 0 could be MISS";
        return ((long) (stamp >>> 1) << CHECK_SHIFT) | kind | location;
    }

    /** Whether a number has a handle's shape: no bit outside the fields (the sign bit clear). */
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
        return isLive(stamp) && handle >>> CHECK_SHIFT == stamp >>> 1;
    }
}
