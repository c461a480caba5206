package dev.clockwork.cli.workload;

/**
 * The 64-bit Mersenne Twister (the generator C++ calls {@code std::mt19937_64}), which is what
 * RocksDB's {@code Random64} wraps. Using the same generator with the same seeds as cache_bench
 * makes both tools draw the same keys and operations. Not thread-safe: one per thread.
 */
public final class Random64 {
    private static final int N = 312;
    private static final int M = 156;
    private static final long MATRIX_A = 0xB5026F5AA96619E9L;
    private static final long UPPER_MASK = 0xFFFFFFFF80000000L; // most significant 33 bits
    private static final long LOWER_MASK = 0x000000007FFFFFFFL; // least significant 31 bits

    private final long[] state = new long[N];
    private int index;

    /** Seeds like {@code std::mt19937_64(seed)}. */
    public Random64(long seed) {
        state[0] = seed;
        for (int i = 1; i < N; i++) {
            long prev = state[i - 1];
            state[i] = 6364136223846793005L * (prev ^ (prev >>> 62)) + i;
        }
        index = N;
    }

    /** The next 64 random bits ({@code Random64::Next}). */
    public long next() {
        if (index >= N) {
            regenerate();
        }
        long x = state[index++];
        x ^= (x >>> 29) & 0x5555555555555555L;
        x ^= (x << 17) & 0x71D67FFFEDA60000L;
        x ^= (x << 37) & 0xFFF7EEE000000000L;
        x ^= x >>> 43;
        return x;
    }

    private void regenerate() {
        long[] s = state;
        int i = 0;
        for (; i < N - M; i++) {
            s[i] = s[i + M] ^ twist(s[i], s[i + 1]);
        }
        for (; i < N - 1; i++) {
            s[i] = s[i + M - N] ^ twist(s[i], s[i + 1]);
        }
        s[N - 1] = s[M - 1] ^ twist(s[N - 1], s[0]);
        index = 0;
    }

    private static long twist(long current, long following) {
        long y = (current & UPPER_MASK) | (following & LOWER_MASK);
        return (y >>> 1) ^ ((y & 1L) == 0 ? 0L : MATRIX_A);
    }

    /**
     * Uniform in {@code [0, n)} for {@code n > 0}, consuming the generator the way libstdc++'s
     * {@code uniform_int_distribution<uint64_t>} does for a 64-bit engine (Lemire's
     * multiply-and-reject), as {@code Random64::Uniform} uses it.
     */
    public long uniform(long n) {
        long product = next();
        long low = product * n;
        long high = Math.unsignedMultiplyHigh(product, n);
        if (Long.compareUnsigned(low, n) < 0) {
            long threshold = Long.remainderUnsigned(-n, n);
            while (Long.compareUnsigned(low, threshold) < 0) {
                product = next();
                low = product * n;
                high = Math.unsignedMultiplyHigh(product, n);
            }
        }
        return high;
    }

    /** An unsigned 64-bit value converted to double, as C++ converts a {@code uint64_t}. */
    public static double unsignedToDouble(long x) {
        if (x >= 0) {
            return (double) x;
        }
        // halve (keeping the sticky bit for correct rounding), convert, double
        return (double) ((x >>> 1) | (x & 1L)) * 2.0;
    }
}
