package dev.clockwork.cli.workload;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * cache_bench's {@code createValue}, into one reusable native buffer per thread (the cache copies
 * the value on insert, so nothing is allocated per operation).
 *
 * <p>The first {@code randomFillSize = max(1, min(valueBytes, (uint32) (ratio * valueBytes)))}
 * bytes are filled 8 at a time with little-endian random longs (so the random part is rounded up
 * to a multiple of 8 and consumes {@code ceil(randomFillSize / 8)} values of the generator); every
 * later byte {@code i} is a copy of byte {@code i % randomFillSize}. The bytes are exactly
 * cache_bench's, but where cache_bench copies byte by byte with a division per byte, this copies
 * whole runs of the repeating pattern, so making a value here is cheaper (for 8 KiB values about
 * 1.3 us here against about 3.8 us for cache_bench's createValue including its malloc, on the
 * machine it was written on). The random numbers dominate what is left.
 *
 * <p>With {@code stampKeys} ({@code -verify_values}), {@link #next(Random64, long, long)} then
 * stamps the value with its key and a checksum ({@link ValueStamp}); without it the bytes are
 * cache_bench's unchanged. A stamping generator also holds a value-sized scratch buffer for
 * checking values read back ({@link #scratch()}).
 *
 * <p>Made by the main thread and then used by one worker thread at a time (a shared arena).
 */
public final class ValueGen implements AutoCloseable {
    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Arena arena;
    private final MemorySegment buffer;
    private final MemorySegment value;
    private final int valueBytes;
    private final double compressibleToRatio;
    private final int randomFillSize;
    private final boolean stampKeys;
    private final MemorySegment scratch; // null unless stampKeys

    public ValueGen(int valueBytes, double compressibleToRatio) {
        this(valueBytes, compressibleToRatio, false);
    }

    public ValueGen(int valueBytes, double compressibleToRatio, boolean stampKeys) {
        this.valueBytes = valueBytes;
        this.compressibleToRatio = compressibleToRatio;
        this.stampKeys = stampKeys;
        this.randomFillSize = randomFillSize(valueBytes, compressibleToRatio);
        this.arena = Arena.ofShared();
        // + 8: the random fill writes whole longs and may run up to 7 bytes past valueBytes
        this.buffer = arena.allocate(valueBytes + 8L, 8);
        this.value = buffer.asSlice(0, valueBytes);
        this.scratch = stampKeys ? arena.allocate(valueBytes, 8) : null;
    }

    /**
     * {@code max(1, min(valueBytes, (uint32) (ratio * valueBytes)))}, as cache_bench computes it.
     */
    public static int randomFillSize(int valueBytes, double compressibleToRatio) {
        double scaled = compressibleToRatio * valueBytes;
        long truncated = scaled >= valueBytes ? valueBytes : (long) scaled;
        return (int) Math.max(1, truncated);
    }

    public int randomFillSize() {
        return randomFillSize;
    }

    /** Fills the buffer with a new value and returns it (valid until the next call). */
    public MemorySegment next(Random64 rnd) {
        fill(rnd, valueBytes, randomFillSize);
        return value;
    }

    /**
     * A new value of {@code size} bytes, at most the generator's {@code valueBytes}, for key
     * {@code (key0, key1)}: filled as {@link #next(Random64)} fills one of that size, stamped
     * when this generator stamps keys. Valid until the next call.
     */
    public MemorySegment next(Random64 rnd, long key0, long key1, int size) {
        if (size == valueBytes) {
            return next(rnd, key0, key1);
        }
        fill(rnd, size, randomFillSize(size, compressibleToRatio));
        MemorySegment v = slice(size);
        if (stampKeys) {
            ValueStamp.stamp(v, key0, key1);
        }
        return v;
    }

    /**
     * The buffer's first {@code size} bytes, made once per size for the first
     * {@link #SIZES_KEPT} sizes (so that a mix of sizes allocates nothing per value).
     */
    private MemorySegment slice(int size) {
        for (int i = 0; i < slices.length; i++) {
            MemorySegment s = slices[i];
            if (s == null) {
                s = buffer.asSlice(0, size);
                slices[i] = s;
                return s;
            }
            if (s.byteSize() == size) {
                return s;
            }
        }
        return buffer.asSlice(0, size);
    }

    private static final int SIZES_KEPT = 8;
    private final MemorySegment[] slices = new MemorySegment[SIZES_KEPT];

    private void fill(Random64 rnd, int n, int fill) {
        MemorySegment b = buffer;
        int i = 0;
        for (; i < fill; i += 8) {
            b.set(LONG_LE, i, rnd.next());
        }
        // byte i = byte (i % fill): copy the pattern in runs; a run's source [src, src + len)
        // ends at or before fill <= i, so source and destination never overlap
        while (i < n) {
            int src = i % fill;
            int len = Math.min(fill - src, n - i);
            MemorySegment.copy(b, src, b, i, len);
            i += len;
        }
    }

    /**
     * A new value for key {@code (key0, key1)}: {@link #next(Random64)}, stamped with the key
     * when this generator stamps keys.
     */
    public MemorySegment next(Random64 rnd, long key0, long key1) {
        MemorySegment v = next(rnd);
        if (stampKeys) {
            ValueStamp.stamp(v, key0, key1);
        }
        return v;
    }

    /** A value-sized buffer to copy values into for checking; null unless stamping keys. */
    public MemorySegment scratch() {
        return scratch;
    }

    @Override
    public void close() {
        arena.close();
    }
}
