package dev.clockwork.bench;

/**
 * Deterministic pseudo-random numbers: SplitMix64, a 64-bit counter through a mixing function.
 * Objects are for setup; the static {@link #mix} and {@link #below} are cheap enough for the
 * measured path (a few multiplies, no allocation).
 */
final class BenchRandom {
    private long state;

    BenchRandom(long seed) {
        this.state = seed;
    }

    static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;

    long nextLong() {
        return mix(state += GOLDEN);
    }

    /** SplitMix64's finalizer; also usable inline on a caller-held counter. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** Uniform in {@code [0, bound)} from the high 32 bits of {@code random}; bound <= 2^32. */
    static long below(long random, long bound) {
        return ((random >>> 32) * bound) >>> 32;
    }

    /** Uniform in {@code [0, bound)}, {@code bound > 0} (bias negligible for our bounds). */
    long nextLong(long bound) {
        return Long.remainderUnsigned(nextLong(), bound);
    }

    int nextInt(int bound) {
        return (int) nextLong(bound);
    }

    /** Fills {@code dst} with pseudo-random bytes. */
    void nextBytes(byte[] dst) {
        for (int i = 0; i < dst.length; i++) {
            dst[i] = (byte) nextLong();
        }
    }

    /**
     * A benchmark's key sequence: {@code ceilPow2(max(4096, entries))} uniform indices in
     * {@code [0, entries)} from seed 42, walked with {@link KeyCursor}.
     */
    static int[] uniformKeys(int entries) {
        int length = ceilPow2(Math.max(4096, entries));
        BenchRandom random = new BenchRandom(42);
        int[] keys = new int[length];
        for (int i = 0; i < length; i++) {
            keys[i] = random.nextInt(entries);
        }
        return keys;
    }

    /** Smallest power of two {@code >= n}, for {@code n >= 1}. */
    static int ceilPow2(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }
}
