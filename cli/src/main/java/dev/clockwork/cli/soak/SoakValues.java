package dev.clockwork.cli.soak;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.Random64;
import dev.clockwork.cli.workload.ValueGen;
import dev.clockwork.cli.workload.ValueStamp;
import java.lang.foreign.MemorySegment;

/**
 * The values of {@code clockwork soak}: sizes spread over a range, every value stamped with its
 * key and a checksum ({@link ValueStamp}), and the checks made on values read back. One instance
 * per worker thread (it holds that thread's buffers); the size table is shared.
 *
 * <h2>Sizes</h2>
 * A key's value size is a function of the key: {@link KeyGen#mixKeyNumber} of the key's bytes
 * picks one of {@link Sizes#CLASSES} sizes spread log-uniformly over {@code [min, max]}. So every
 * value ever inserted under a key has the same size (and charge, which is the size), and a value
 * read back under a key must have exactly that size; the key stamp and the checksum over all the
 * bytes catch a value of another key, a torn or stale copy, and flipped bytes.
 *
 * <h2>Reads</h2>
 * A value is read back in one of three ways, as the caller picks: {@link #READ_COPY}
 * ({@link Cache#copyValue(long, MemorySegment, long)} into a native scratch buffer),
 * {@link #READ_VIEW} ({@link Cache#value(long)}, checked in place) or {@link #READ_ARRAY}
 * ({@link Cache#copyValue(long, byte[], int)}). Every check also compares
 * {@link Cache#valueSize} and {@link Cache#charge} with the key's size.
 *
 * <p>Contents: {@link ValueGen}'s generator over the largest size with a random prefix of (at most)
 * 1 KiB repeated after it, so making a value costs about the same for every size; each value is a
 * prefix of that buffer, then stamped. Nothing is allocated per value or per check (the slices of
 * the buffers are made up front), except what {@link Cache#value(long)} itself allocates.
 */
final class SoakValues implements AutoCloseable {

    /** Read the value with {@code copyValue} into a native buffer. */
    static final int READ_COPY = 0;
    /** Read the value in place through {@code value()}. */
    static final int READ_VIEW = 1;
    /** Read the value with {@code copyValue} into a {@code byte[]}. */
    static final int READ_ARRAY = 2;
    static final String[] READ_NAMES = {"copyValue(MemorySegment)", "value()", "copyValue(byte[])"};

    /** Check results: 0 = the value is right, else what was wrong. */
    static final int OK = 0;
    static final int WRONG_SIZE = 1;
    static final int WRONG_CHARGE = 2;
    static final int BAD_STAMP = 3;
    static final String[] RESULT_NAMES = {"ok", "wrong size", "wrong charge",
        "wrong key stamp or checksum"};

    /** The random prefix of every generated buffer. */
    static final int RANDOM_PREFIX_BYTES = 1024;

    /** The size table, shared by all threads. */
    static final class Sizes {
        /** Distinct sizes (at most; fewer when the range is narrower). */
        static final int CLASSES = 1024;
        /** With {@code -value_size_sweep}: the window is this fraction of the sizes. */
        static final int SWEEP_WINDOWS = 16;

        final int[] sizes;
        final int min;
        final int max;
        final double mean;
        private final int shift;

        Sizes(long min, long max) {
            this.min = (int) min;
            this.max = (int) max;
            int n = (int) Math.min(CLASSES, max - min + 1);
            // round the count down to a power of two so that a class is a hash's top bits
            n = Integer.highestOneBit(n);
            this.shift = 64 - Integer.numberOfTrailingZeros(n);
            sizes = new int[n];
            double ratio = (double) max / min;
            double sum = 0;
            for (int i = 0; i < n; i++) {
                double u = n == 1 ? 0 : (double) i / (n - 1);
                long s = Math.round(min * Math.pow(ratio, u));
                sizes[i] = (int) Math.max(min, Math.min(max, s));
                sum += sizes[i];
            }
            mean = sum / n;
        }

        /** The size class of a key. */
        int classOf(long key0, long key1) {
            if (sizes.length == 1) {
                return 0;
            }
            long h = KeyGen.mixKeyNumber(key0 ^ Long.rotateLeft(key1, 29));
            return (int) (h >>> shift);
        }

        /** The value size of a key. */
        int sizeOf(long key0, long key1) {
            return sizes[classOf(key0, key1)];
        }

        /** Sizes in a sweep's window (at least one). */
        int windowWidth() {
            return Math.max(1, sizes.length / SWEEP_WINDOWS);
        }

        /**
         * The first size of the sweep's window at {@code elapsed} into the run: a triangle wave
         * from the smallest sizes to the largest and back once per {@code period}.
         */
        int windowStart(long elapsedNanos, long periodNanos) {
            double phase = (double) (elapsedNanos % periodNanos) / periodNanos;
            double up = phase < 0.5 ? 2 * phase : 2 - 2 * phase;
            return (int) Math.round(up * (sizes.length - windowWidth()));
        }

        /** The mean size of the window starting at size {@code start}. */
        double windowMean(int start) {
            double sum = 0;
            for (int i = start; i < start + windowWidth(); i++) {
                sum += sizes[i];
            }
            return sum / windowWidth();
        }
    }

    /** The mean value size over the size classes for the range {@code [min, max]}. */
    static double meanSize(long min, long max) {
        return new Sizes(min, max).mean;
    }

    private final Sizes sizes;
    private final ValueGen gen;
    private final MemorySegment[] valueSlices;
    private final MemorySegment[] scratchSlices;
    private final MemorySegment[] arraySlices;
    private final byte[] array;

    SoakValues(Sizes sizes) {
        this.sizes = sizes;
        int max = sizes.max;
        this.gen = new ValueGen(max, Math.min(1.0, (double) RANDOM_PREFIX_BYTES / max), true);
        MemorySegment whole = gen.next(new Random64(1)); // the same buffer every time
        MemorySegment scratch = gen.scratch();
        this.array = new byte[max];
        MemorySegment arraySegment = MemorySegment.ofArray(array);
        int n = sizes.sizes.length;
        valueSlices = new MemorySegment[n];
        scratchSlices = new MemorySegment[n];
        arraySlices = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            valueSlices[i] = whole.asSlice(0, sizes.sizes[i]);
            scratchSlices[i] = scratch.asSlice(0, sizes.sizes[i]);
            arraySlices[i] = arraySegment.asSlice(0, sizes.sizes[i]);
        }
    }

    Sizes sizes() {
        return sizes;
    }

    /**
     * A new value for the key, stamped (valid until the next call). With {@code toArray} it is
     * also copied to {@link #array()} (its first {@code byteSize()} bytes).
     */
    MemorySegment next(Random64 rnd, long key0, long key1, boolean toArray) {
        gen.next(rnd);
        int c = sizes.classOf(key0, key1);
        MemorySegment v = valueSlices[c];
        ValueStamp.stamp(v, key0, key1);
        if (toArray) {
            MemorySegment.copy(v, 0, arraySlices[c], 0, v.byteSize());
        }
        return v;
    }

    /** The array {@link #next} copies values to. */
    byte[] array() {
        return array;
    }

    /**
     * Checks the value of a pinned handle found or inserted under the key; returns {@link #OK}
     * or what was wrong. Reads the value the way {@code readMode} says.
     */
    int check(Cache cache, long handle, long key0, long key1, int readMode) {
        int c = sizes.classOf(key0, key1);
        long expected = sizes.sizes[c];
        if (cache.valueSize(handle) != expected) {
            return WRONG_SIZE;
        }
        if (cache.charge(handle) != expected) {
            return WRONG_CHARGE;
        }
        boolean good;
        switch (readMode) {
            case READ_VIEW -> {
                MemorySegment v = cache.value(handle);
                if (v.byteSize() != expected) {
                    return WRONG_SIZE;
                }
                good = ValueStamp.check(v, key0, key1);
            }
            case READ_ARRAY -> {
                if (cache.copyValue(handle, array, 0) != expected) {
                    return WRONG_SIZE;
                }
                good = ValueStamp.check(arraySlices[c], key0, key1);
            }
            default -> good = ValueStamp.check(cache, handle, key0, key1, scratchSlices[c]);
        }
        return good ? OK : BAD_STAMP;
    }

    @Override
    public void close() {
        gen.close();
    }
}
