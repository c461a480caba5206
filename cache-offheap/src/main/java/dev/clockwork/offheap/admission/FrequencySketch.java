package dev.clockwork.offheap.admission;

import java.util.Arrays;

/**
 * How often each key was seen lately, approximately: TinyLFU's frequency sketch (Einziger,
 * Friedman, Manes, "TinyLFU: A Highly Efficient Cache Admission Policy", ACM ToS 2017).
 *
 * <h2>Structure</h2>
 * A count-min sketch of 4-bit counters, sixteen to a {@code long}, in blocks of eight longs (64
 * bytes, one cache line): a key's block is chosen by its hash, and its four counters lie in four
 * different longs of that block, so counting or estimating a key touches one line. Its estimate is
 * the least of its four counters, plus one if the <em>doorkeeper</em> has seen it: a one-bit-per-
 * key filter (two bits set per key) that absorbs a key's first occurrence, so that the many keys
 * seen once never reach the counters. Counters saturate at 15.
 *
 * <h2>Aging</h2>
 * After {@link #sampleSize} recorded events, {@value #SAMPLE_PER_ENTRY} per entry the sketch is
 * sized for ({@link #entries}, after the {@link #MAX_ENTRIES} cap), every counter is halved and
 * the doorkeeper cleared, so the sketch forgets the distant past (the "reset" of TinyLFU):
 * frequency is measured over a window proportional to the entries the sketch covers.
 *
 * <h2>Size</h2>
 * Fixed at construction: {@link TinyLfu} grows a sketch by replacing it with a larger, empty one,
 * so the arrays and the sample size never change under a reader. Eight counters per entry (4
 * bytes) and 32 doorkeeper bits (4 bytes), at most 8 bytes per entry, with no power-of-two
 * rounding (blocks and bits are picked by multiply-shift range reduction); at least one block.
 * Half of Caffeine's sixteen counters per entry, which the doorkeeper makes up for by keeping
 * one-hit keys out of them.
 *
 * <h2>Threads</h2>
 * Not thread-safe: one writer at a time ({@link TinyLfu} records under its drain lock);
 * estimates may be read racily (a stale counter only skews one admission decision; a
 * {@code long} is never torn).
 *
 * <p>The key is the cache's hashed key, already well mixed; the sketch spreads it once more with
 * a multiply so that the bits picking a block are independent of those picking counters.
 */
final class FrequencySketch {
    /** Longs per block: one 64-byte line. */
    private static final int BLOCK_LONGS = 8;
    /** Each counter's 4 bits, all set: a nibble is saturated at this value. */
    private static final long COUNTER_MAX = 15;
    /** Clears each nibble's high bit after a shift right: halves all sixteen counters at once. */
    private static final long HALVE_MASK = 0x7777_7777_7777_7777L;
    /** Events per entry before aging, as in Caffeine (10 × the maximum size). */
    static final int SAMPLE_PER_ENTRY = 10;
    /**
     * Doorkeeper bits per entry. It holds the distinct keys of one sample (at most ten per entry,
     * fewer in any skewed workload) until aging clears it: about 15 % false positives in the worst
     * case of all-distinct keys, under 2 % when a sample holds two distinct keys per entry.
     */
    private static final int DOORKEEPER_BITS_PER_ENTRY = 32;
    private static final int COUNTERS_PER_ENTRY = 8;
    private static final int COUNTERS_PER_BLOCK = BLOCK_LONGS * 16;
    /** Entries a sketch is sized for at most: 2^31 doorkeeper bits, 2^27 longs of counters. */
    static final long MAX_ENTRIES = 1L << 26;

    private final long entries;
    private final long[] table;
    private final int blocks;
    private final long[] doorkeeper;
    private final int doorkeeperBits;
    private final long sampleSize;
    private long events;

    /**
     * A sketch for a cache holding about {@code entries} entries, taken as at least 1 and at most
     * {@link #MAX_ENTRIES}; the sample size follows the entries taken, so a capped sketch ages.
     */
    FrequencySketch(long entries) {
        this.entries = Math.max(1, Math.min(entries, MAX_ENTRIES));
        // Eight counters per entry, in whole blocks of 128: at least one block.
        this.blocks = (int) Math.max(1, this.entries * COUNTERS_PER_ENTRY / COUNTERS_PER_BLOCK);
        this.table = new long[blocks * BLOCK_LONGS];
        int doorkeeperLongs = (int) Math.max(1, this.entries * DOORKEEPER_BITS_PER_ENTRY / 64);
        this.doorkeeper = new long[doorkeeperLongs];
        this.doorkeeperBits = doorkeeperLongs * 64;
        this.sampleSize = SAMPLE_PER_ENTRY * this.entries;
    }

    /** The entries this sketch is sized for: its argument, capped. */
    long entries() {
        return entries;
    }

    /** Bytes this sketch holds (its two arrays). */
    long bytes() {
        return 8L * (table.length + doorkeeper.length);
    }

    /** Events recorded since the last aging. */
    long events() {
        return events;
    }

    long sampleSize() {
        return sampleSize;
    }

    /** Re-mixes the hashed key so that block and counter choices use independent bits. */
    private static long spread(long keyHash) {
        long x = keyHash * 0x9E37_79B9_7F4A_7C15L;
        return x ^ (x >>> 29);
    }

    /** The long holding counter {@code i} (0..3) of a key, in the key's block. */
    private int counterIndex(long x, int i) {
        int block = reduce(x >>> 32, blocks);
        int pick = (int) (x >>> (i << 1)) & 1; // one of the two longs reserved for counter i
        return (block * BLOCK_LONGS) + (i << 1) + pick;
    }

    /**
     * Maps 32 uniform bits to 0..n-1 by a multiply and a shift (Lemire's range reduction), so
     * that the arrays need not be powers of two and the sketch takes its whole budget.
     */
    private static int reduce(long bits32, int n) {
        return (int) (((bits32 & 0xFFFF_FFFFL) * n) >>> 32);
    }

    /** The bit offset of counter {@code i}'s nibble within its long. */
    private static int counterShift(long x, int i) {
        return (int) ((x >>> (8 + (i << 2))) & 15) << 2;
    }

    /** Counts one occurrence of a key; ages the sketch when the sample is complete. */
    void increment(long keyHash) {
        long x = spread(keyHash);
        if (admitToDoorkeeper(x)) {
            for (int i = 0; i < 4; i++) {
                int index = counterIndex(x, i);
                int shift = counterShift(x, i);
                if (((table[index] >>> shift) & COUNTER_MAX) != COUNTER_MAX) {
                    table[index] += 1L << shift;
                }
            }
        }
        if (++events >= sampleSize) {
            age();
        }
    }

    /**
     * Sets the key's two doorkeeper bits; returns whether both were set already (the key was seen
     * since the last aging, so this occurrence goes to the counters).
     */
    private boolean admitToDoorkeeper(long x) {
        int a = doorkeeperBit(x);
        int b = doorkeeperBit(x >>> 21);
        long bitA = 1L << a;
        long bitB = 1L << b;
        boolean seen = (doorkeeper[a >>> 6] & bitA) != 0 && (doorkeeper[b >>> 6] & bitB) != 0;
        doorkeeper[a >>> 6] |= bitA;
        doorkeeper[b >>> 6] |= bitB;
        return seen;
    }

    /** One of a key's two doorkeeper bits, from 32 of its spread bits. */
    private int doorkeeperBit(long bits) {
        return reduce(bits * 0xC2B2_AE3D_27D4_EB4FL >>> 32, doorkeeperBits);
    }

    /** How often the key was seen lately, 0..16: its least counter, plus its doorkeeper bit. */
    int frequency(long keyHash) {
        long x = spread(keyHash);
        long least = COUNTER_MAX;
        for (int i = 0; i < 4; i++) {
            least = Math.min(least, (table[counterIndex(x, i)] >>> counterShift(x,
                    i)) & COUNTER_MAX);
        }
        int a = doorkeeperBit(x);
        int b = doorkeeperBit(x >>> 21);
        boolean inDoorkeeper = (doorkeeper[a >>> 6] & (1L << a)) != 0
                && (doorkeeper[b >>> 6] & (1L << b)) != 0;
        return (int) least + (inDoorkeeper ? 1 : 0);
    }

    /** Halves every counter and clears the doorkeeper: the past weighs half, then a quarter... */
    void age() {
        for (int i = 0; i < table.length; i++) {
            table[i] = (table[i] >>> 1) & HALVE_MASK;
        }
        Arrays.fill(doorkeeper, 0L);
        events = 0;
    }
}
