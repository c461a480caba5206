package dev.clockwork.cache.key;

/**
 * The two reversible bit transforms the cache-key scheme is built from (RocksDB's
 * {@code util/math.h}): each is its own inverse, so packing structured values with them loses
 * nothing.
 */
public final class KeyBits {
    private KeyBits() {
    }

    /**
     * The bits in reverse order: bit 0 becomes bit 63. Its own inverse.
     *
     * @param v any value
     * @return {@code v} with its bits reversed ({@link Long#reverse})
     */
    public static long reverse(long v) {
        return Long.reverse(v);
    }

    /**
     * Every output bit depends on the input bits at the same and higher positions, never lower:
     * the highest set bit stays where it is, and the low {@code b} bits of {@code v} together with
     * the low {@code c} bits of the result identify the low {@code b + c} bits of {@code v} (so all
     * of {@code v} when {@code v < 2^(b+c)}). It distributes over xor and is its own inverse: a
     * multiplication by an upper-triangular matrix over GF(2) built recursively from
     * {@code [[1, 1], [0, 1]]}.
     *
     * @param v any value
     * @return the transformed value; {@code downwardInvolution(result) == v}
     */
    public static long downwardInvolution(long v) {
        long r = v;
        r ^= r >>> 32;
        r ^= (r & 0xffff0000ffff0000L) >>> 16;
        r ^= (r & 0xff00ff00ff00ff00L) >>> 8;
        r ^= (r & 0xf0f0f0f0f0f0f0f0L) >>> 4;
        r ^= (r & 0xccccccccccccccccL) >>> 2;
        r ^= (r & 0xaaaaaaaaaaaaaaaaL) >>> 1;
        return r;
    }
}
