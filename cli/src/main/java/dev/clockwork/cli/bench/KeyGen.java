package dev.clockwork.cli.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * cache_bench's {@code KeyGen}: draws a skewed key number and turns it into a 16-byte cache key.
 * One instance per thread (it reuses a scratch buffer).
 *
 * <p>Key number: {@code raw} is the minimum (unsigned) of {@code skew + 1} random 64-bit values,
 * mapped onto {@code [0, maxKey)} by {@code FastRange64} (the high 64 bits of
 * {@code raw * maxKey}). Skew 0 is uniform; each extra draw pushes the distribution towards small
 * key numbers (the density is {@code (skew + 1) (1 - x)^skew} on {@code x = key / maxKey}).
 *
 * <p>Key bytes: cache_bench writes the key number little-endian three times into a 27-byte buffer
 * after the marker bytes 42, 11 and 4 ({@code [42][k][11][k][4][k]}) and takes the 16 bytes
 * starting at offset {@code key % 8}, to vary key contents and alignment. Clockwork keys are two
 * longs, so {@link #key0()} and {@link #key1()} are exactly those 16 bytes read as two
 * little-endian longs: the same key bytes RocksDB hashes.
 */
final class KeyGen {
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[] data = new byte[27];
    private long key0;
    private long key1;

    KeyGen() {
        data[0] = 42;
        data[9] = 11;
        data[18] = 4;
    }

    /** Draws a key number in {@code [0, maxKey)} (0 when maxKey is 0), consuming skew + 1 values. */
    static long randomKey(Random64 rnd, long maxKey, long skew) {
        long raw = rnd.next();
        for (long i = 0; i < skew; i++) {
            long r = rnd.next();
            if (Long.compareUnsigned(r, raw) < 0) {
                raw = r;
            }
        }
        return Math.unsignedMultiplyHigh(raw, maxKey); // FastRange64
    }

    /** Sets {@link #key0()} and {@link #key1()} to the cache key for key number {@code key}. */
    void encode(long key) {
        byte[] d = data;
        LONG_LE.set(d, 1, key);
        LONG_LE.set(d, 10, key);
        LONG_LE.set(d, 19, key);
        int off = (int) (key & 7);
        key0 = (long) LONG_LE.get(d, off);
        key1 = (long) LONG_LE.get(d, off + 8);
    }

    /** Bytes 0..7 of the last encoded key, little-endian. */
    long key0() {
        return key0;
    }

    /** Bytes 8..15 of the last encoded key, little-endian. */
    long key1() {
        return key1;
    }
}
