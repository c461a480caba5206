package dev.clockwork.cache.hash;

/**
 * The invertible mixing that turns a caller's 16-byte key {@code (key0, key1)} and a 64-bit seed
 * into the "hashed key" {@code (h0, h1)} a cache stores in its table, in the role of RocksDB's
 * {@code BijectiveHash2x64}.
 *
 * <h2>Why a bijection</h2>
 * For a fixed seed the map {@code (key0, key1) -> (h0, h1)} is a permutation of the 128-bit
 * space. Two distinct keys therefore never share a hashed key, so a table may store only the
 * hashed key and still compare keys exactly, and {@link #unhash0}/{@link #unhash1} recover the
 * caller's key (for eviction callbacks, debugging) without the key being stored.
 *
 * <h2>Construction</h2>
 * With {@code a = key0 ^ seed} and three 64-bit mixers {@code P}, {@code F}, {@code G}:
 * <pre>
 *   h0 = P(a) ^ F(key1)
 *   h1 = key1 ^ G(h0)
 * </pre>
 * This is a composition of three bijections: {@code a -> P(a)} ({@code P} is itself invertible),
 * then two Feistel steps that each xor one half with a function of the other half. Inverting:
 * {@code key1 = h1 ^ G(h0)}, {@code key0 = P⁻¹(h0 ^ F(key1)) ^ seed}.
 *
 * <p>Avalanche: a flipped bit of {@code key0} (or the seed) goes through {@code P}, a flipped bit
 * of {@code key1} through {@code F}, so either way {@code h0} changes like a random value; and
 * {@code h1} takes {@code G} of that changed {@code h0}, so it changes randomly too. Unlike a plain
 * two-round Feistel network ({@code h0 = a ^ F(b)}), no input bit reaches {@code h0} unmixed.
 * The mixers are the 64-bit finalizers of splitmix64 ({@code P}), MurmurHash3 ({@code F}, after
 * adding the golden-ratio constant so that zero does not map to zero) and David Stafford's
 * "Mix01" variant ({@code G}): each is xor-shift / odd-multiply, hence invertible, with
 * near-ideal avalanche.
 *
 * <h2>Cost and use</h2>
 * {@link #hash0} costs two independent finalizers (they overlap in the CPU pipeline);
 * {@link #hash1FromHash0} one more. Callers that need both halves compute {@code h0} once and
 * derive {@code h1} from it, rather than calling {@link #hash1(long, long, long)}, which repeats
 * the {@code h0} work. The caches take the shard from the upper 32 bits of {@code h0}, the home
 * slot from the low bits of {@code h1} and the probe step from {@code h0 | 1}.
 *
 * <p>This is a mixing function, not a keyed cryptographic permutation: the seed decorrelates
 * hosts and runs, but it does not stop an adversary who knows it from choosing keys that share a
 * shard or slot.
 */
public final class KeyHash {

    private static final long GOLDEN = 0x9e3779b97f4a7c15L;

    // splitmix64 finalizer (Stafford "Mix13") constants, used by P and its inverse.
    private static final long P_MUL1 = 0xbf58476d1ce4e5b9L;
    private static final long P_MUL2 = 0x94d049bb133111ebL;
    private static final long P_MUL1_INV = inverseOdd(P_MUL1);
    private static final long P_MUL2_INV = inverseOdd(P_MUL2);

    private KeyHash() {
    }

    /**
     * The first half of the hashed key.
     *
     * @param key0 the key's first 64 bits
     * @param key1 the key's second 64 bits
     * @param seed the cache's hash seed
     * @return {@code h0}
     */
    public static long hash0(long key0, long key1, long seed) {
        return p(key0 ^ seed) ^ f(key1);
    }

    /**
     * The second half of the hashed key. Computes {@link #hash0} internally; when both halves are
     * needed use {@link #hash1FromHash0} instead.
     *
     * @param key0 the key's first 64 bits
     * @param key1 the key's second 64 bits
     * @param seed the cache's hash seed
     * @return {@code h1}
     */
    public static long hash1(long key0, long key1, long seed) {
        return hash1FromHash0(hash0(key0, key1, seed), key1);
    }

    /**
     * The second half of the hashed key, given the first half and the key's second long.
     *
     * @param h0 the first half, {@link #hash0} of the key
     * @param key1 the key's second 64 bits
     * @return {@code h1}
     */
    public static long hash1FromHash0(long h0, long key1) {
        return key1 ^ g(h0);
    }

    /**
     * Both halves into {@code out[0]} ({@code h0}) and {@code out[1]} ({@code h1}).
     *
     * @param key0 the key's first 64 bits
     * @param key1 the key's second 64 bits
     * @param seed the cache's hash seed
     * @param out receives the hashed key; of length 2 or more
     * @throws ArrayIndexOutOfBoundsException if {@code out} is shorter than 2
     */
    public static void hash(long key0, long key1, long seed, long[] out) {
        long h0 = hash0(key0, key1, seed);
        out[0] = h0;
        out[1] = hash1FromHash0(h0, key1);
    }

    /**
     * Recovers {@code key1} from a hashed key; the seed is not needed for this half.
     *
     * @param h0 the hashed key's first half
     * @param h1 the hashed key's second half
     * @return the {@code key1} that hashes to {@code (h0, h1)}
     */
    public static long unhash1(long h0, long h1) {
        return h1 ^ g(h0);
    }

    /**
     * Recovers {@code key0} from a hashed key made with {@code seed}.
     *
     * @param h0 the hashed key's first half
     * @param h1 the hashed key's second half
     * @param seed the seed it was hashed with (another seed gives another {@code key0})
     * @return the {@code key0} that hashes to {@code (h0, h1)} with {@code seed}
     */
    public static long unhash0(long h0, long h1, long seed) {
        return unhash0FromKey1(h0, unhash1(h0, h1), seed);
    }

    /**
     * Recovers {@code key0} given {@code h0} and the already recovered {@code key1}.
     *
     * @param h0 the hashed key's first half
     * @param key1 the key's second half, as {@link #unhash1} recovered it
     * @param seed the seed it was hashed with
     * @return the {@code key0} that hashes to {@code h0} with {@code key1} and {@code seed}
     */
    public static long unhash0FromKey1(long h0, long key1, long seed) {
        return pInverse(h0 ^ f(key1)) ^ seed;
    }

    // ---------------------------------------------------------------- mixers

    /** splitmix64's finalizer; a bijection with {@code p(0) == 0}. */
    private static long p(long z) {
        z = (z ^ (z >>> 30)) * P_MUL1;
        z = (z ^ (z >>> 27)) * P_MUL2;
        return z ^ (z >>> 31);
    }

    private static long pInverse(long z) {
        z = unXorShift(z, 31);
        z = unXorShift(z * P_MUL2_INV, 27);
        return unXorShift(z * P_MUL1_INV, 30);
    }

    /** MurmurHash3's fmix64 after an additive constant. */
    private static long f(long z) {
        return Murmur3.fmix64(z + GOLDEN);
    }

    /** Stafford's "Mix01" finalizer variant. */
    private static long g(long z) {
        z = (z ^ (z >>> 31)) * 0x7fb5d329728ea185L;
        z = (z ^ (z >>> 27)) * 0x81dadef4bc2dd44dL;
        return z ^ (z >>> 33);
    }

    /** Inverts {@code x ^ (x >>> shift)} for {@code shift >= 1}. */
    private static long unXorShift(long y, int shift) {
        // y ^ (y >>> s) == x ^ (x >>> 2s); repeating with doubled shifts reaches x once the shift
        // passes 63.
        for (int s = shift; s < 64; s <<= 1) {
            y ^= y >>> s;
        }
        return y;
    }

    /** The inverse of an odd number modulo 2^64 (Newton's iteration, 3 -> 96 correct bits). */
    private static long inverseOdd(long a) {
        long x = a; // a * a == 1 (mod 8): 3 bits correct
        for (int i = 0; i < 5; i++) {
            x *= 2 - a * x;
        }
        return x;
    }
}
