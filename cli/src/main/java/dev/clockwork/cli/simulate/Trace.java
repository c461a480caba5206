package dev.clockwork.cli.simulate;

import java.util.Arrays;
import java.util.BitSet;

/**
 * A cache trace held in memory: the key of every access in order, optionally each access's size
 * in bytes, and optionally which accesses count towards the hit ratio.
 *
 * <p>Trade-off: the whole trace is loaded once (8 bytes a key, 4 more with sizes) and replayed
 * from memory for every (capacity, policy). Decompressing xz costs more than a replay, and OPT
 * needs the whole future anyway; a trace of 100 million accesses takes 0.8 to 1.2 GB of heap,
 * which is why {@code simulate} reads at most that many unless {@code -max_accesses} says more.
 *
 * <p>Invariants: {@code keys.length == length()}; {@code sizes} is null or as long, every size
 * {@code >= 1}; {@code measured} is null (every access counts) or has bits only below
 * {@code length()}. The arrays are never modified after construction.
 */
public final class Trace {
    private final String name;
    private final long[] keys;
    private final int[] sizes;
    private final BitSet measured;

    /**
     * @param sizes per-access sizes in bytes, or null for a trace without sizes (each access then
     *     has size 1)
     * @param measured the accesses whose hits and misses are counted, or null for all of them
     */
    public Trace(String name, long[] keys, int[] sizes, BitSet measured) {
        if (sizes != null && sizes.length != keys.length) {
            throw new IllegalArgumentException("sizes: " + sizes.length + " for " + keys.length
                    + " keys");
        }
        if (measured != null && measured.length() > keys.length) {
            throw new IllegalArgumentException("measured: bit " + (measured.length() - 1)
                    + " is past the last access, " + (keys.length - 1));
        }
        this.name = name;
        this.keys = keys;
        this.sizes = sizes;
        this.measured = measured;
    }

    /** How reports name the trace (file name without compression suffix, or the scenario). */
    public String name() {
        return name;
    }

    public int length() {
        return keys.length;
    }

    public long key(int i) {
        return keys[i];
    }

    /** Whether the trace gives a size per access (the CSV format). */
    public boolean hasSizes() {
        return sizes != null;
    }

    /** The size of access {@code i} in bytes; 1 for a trace without sizes. */
    public int size(int i) {
        return sizes == null ? 1 : sizes[i];
    }

    /** Whether access {@code i} counts towards the hit ratio. */
    public boolean isMeasured(int i) {
        return measured == null || measured.get(i);
    }

    /** How many accesses count towards the hit ratio. */
    public int measuredCount() {
        return measured == null ? keys.length : measured.cardinality();
    }

    /** The mean size of an access in bytes (1 without sizes; 1 for an empty trace). */
    public double meanSize() {
        if (sizes == null || sizes.length == 0) {
            return 1;
        }
        long sum = 0;
        for (int s : sizes) {
            sum += s;
        }
        return (double) sum / sizes.length;
    }

    /** The number of distinct keys (sorts a copy of the keys: O(n log n) time, 8n bytes). */
    public int distinctKeys() {
        long[] sorted = keys.clone();
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                distinct++;
            }
        }
        return distinct;
    }

    /**
     * Collects a trace access by access, growing its arrays by half each time they fill, never
     * past its limit: so the limit bounds the memory a trace takes (8 bytes an access, 12 with
     * sizes). A trace is limited to {@link #MAX_LENGTH} accesses (Java arrays are int-indexed).
     */
    public static final class Builder {
        /** The most accesses a trace may have. */
        public static final int MAX_LENGTH = Integer.MAX_VALUE - 16;

        private static final int INITIAL_CAPACITY = 1024;

        private final String name;
        private final boolean withSizes;
        private final int maxLength;
        private long[] keys;
        private int[] sizes;
        private int length;

        public Builder(String name, boolean withSizes) {
            this(name, withSizes, MAX_LENGTH);
        }

        /** @param maxLength the most accesses {@link #add} takes, 1 to {@link #MAX_LENGTH} */
        public Builder(String name, boolean withSizes, int maxLength) {
            if (maxLength < 1 || maxLength > MAX_LENGTH) {
                throw new IllegalArgumentException("maxLength must be in [1, " + MAX_LENGTH
                        + "], was " + maxLength);
            }
            this.name = name;
            this.withSizes = withSizes;
            this.maxLength = maxLength;
            this.keys = new long[Math.min(INITIAL_CAPACITY, maxLength)];
            this.sizes = withSizes ? new int[keys.length] : null;
        }

        /** The most accesses this builder takes. */
        public int maxLength() {
            return maxLength;
        }

        /** Appends an access; {@code size} is ignored for a trace without sizes. */
        public void add(long key, int size) {
            if (length == keys.length) {
                grow();
            }
            keys[length] = key;
            if (withSizes) {
                sizes[length] = size;
            }
            length++;
        }

        private void grow() {
            if (length >= maxLength) {
                throw new IllegalArgumentException("trace " + name + " has more than "
                        + maxLength + " accesses");
            }
            int capacity = (int) Math.min(maxLength, length + (long) (length >> 1) + 16);
            keys = Arrays.copyOf(keys, capacity);
            if (withSizes) {
                sizes = Arrays.copyOf(sizes, capacity);
            }
        }

        public int length() {
            return length;
        }

        public Trace build() {
            return new Trace(name, Arrays.copyOf(keys, length),
                    withSizes ? Arrays.copyOf(sizes, length) : null, null);
        }
    }
}
