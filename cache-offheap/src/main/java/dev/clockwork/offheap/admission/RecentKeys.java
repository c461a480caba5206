package dev.clockwork.offheap.admission;

import java.util.Arrays;

/**
 * Keys added lately, approximately: two Bloom filters (two bits per key), the current one and the
 * one before, of which {@link #rotate} forgets the older. A key added since the last rotation but
 * one is always found; others are found with the filters' false-positive rate: {@value
 * #BITS_PER_KEY} bits per key sized for, about 5 % when a generation holds that many keys, under
 * 1.5 % at half.
 *
 * <p>Used by {@link TinyLfu} as a ghost list: which keys it refused, or evicted, shortly before
 * they were asked for again. Not thread-safe: {@link #add} may race with other adds (a lost bit is
 * a lost ghost, which the policy tolerates; a {@code long} is never torn); {@link #rotate} runs
 * under TinyLfu's lock.
 */
final class RecentKeys {
    static final int BITS_PER_KEY = 8;

    private long[] current;
    private long[] previous;
    private final int bits;
    /**
     * Mixed into each key before its bits are picked, different for each filter: filters fed the
     * same keys must not share their false positives (see {@link WindowTuner}).
     */
    private final long salt;

    /** Filters for about {@code keys} keys per generation, picking bits salted by {@code salt}. */
    RecentKeys(long keys, long salt) {
        this.salt = salt;
        int longs = (int) Math.max(1, Math.min(keys,
                FrequencySketch.MAX_ENTRIES) * BITS_PER_KEY / 64);
        this.current = new long[longs];
        this.previous = new long[longs];
        this.bits = longs * 64;
    }

    // Keys added in the current and the previous generation; racy: a weight, not a count.
    private long addedNow;
    private long addedBefore;

    /** Keys added in the two generations kept (racy: a weight, not an exact count). */
    long added() {
        return addedNow + addedBefore;
    }

    void add(long keyHash) {
        addedNow++;
        long[] filter = current;
        long x = mix(keyHash);
        int a = bit(x);
        int b = bit(x >>> 32);
        filter[a >>> 6] |= 1L << a;
        filter[b >>> 6] |= 1L << b;
    }

    boolean contains(long keyHash) {
        long x = mix(keyHash);
        int a = bit(x);
        int b = bit(x >>> 32);
        return in(current, a, b) || in(previous, a, b);
    }

    private static boolean in(long[] filter, int a, int b) {
        return (filter[a >>> 6] & (1L << a)) != 0 && (filter[b >>> 6] & (1L << b)) != 0;
    }

    /** Forgets the older generation; adds go to a fresh one. */
    void rotate() {
        long[] older = previous;
        Arrays.fill(older, 0L);
        previous = current;
        current = older;
        addedBefore = addedNow;
        addedNow = 0;
    }

    private long mix(long keyHash) {
        long x = (keyHash ^ salt) * 0x9E37_79B9_7F4A_7C15L;
        return x ^ (x >>> 29);
    }

    /** A bit index from the low 32 bits given, by multiply-shift range reduction. */
    private int bit(long bits32) {
        return (int) (((bits32 & 0xFFFF_FFFFL) * bits) >>> 32);
    }

    long bytes() {
        return 16L * current.length;
    }
}
