package dev.clockwork.cli.workload;

import dev.clockwork.cache.Cache;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code -verify_values}: makes a value self-checking, so that a hit can tell whether the cache
 * returned the value that was inserted under the key looked up, intact.
 *
 * <p>Layout of a stamped value of {@code n} bytes (the bytes in between keep cache_bench's
 * generated content):
 * <ul>
 *   <li>bytes {@code 0..min(n, 16)-1}: the key, {@code key0} then {@code key1} little-endian,
 *     cut off after {@code n} bytes when {@code n < 16};</li>
 *   <li>when {@code n >= 32}, bytes {@code n-8..n-1}: {@link ValueHash} of bytes
 *     {@code 0..n-9} (the key stamp included, so a value stitched together from two values does
 *     not pass), little-endian.</li>
 * </ul>
 * Neither stamping nor checking allocates.
 */
public final class ValueStamp {
    private ValueStamp() {
    }

    /** Smallest value that carries a checksum. */
    public static final int MIN_CHECKSUM_BYTES = 32;

    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * Stamps {@code v} (all of it is the value) with the key and, if it is large enough, a
     * checksum.
     */
    public static void stamp(MemorySegment v, long key0, long key1) {
        long n = v.byteSize();
        if (n >= 16) {
            v.set(LONG_LE, 0, key0);
            v.set(LONG_LE, 8, key1);
        } else {
            for (long i = 0; i < n; i++) {
                v.set(ValueLayout.JAVA_BYTE, i, keyByte(key0, key1, i));
            }
        }
        if (n >= MIN_CHECKSUM_BYTES) {
            v.set(LONG_LE, n - 8, ValueHash.hash(v, 0, n - 8));
        }
    }

    /** Whether {@code v} (all of it is the value) is a value stamped with this key and intact. */
    public static boolean check(MemorySegment v, long key0, long key1) {
        long n = v.byteSize();
        if (n >= 16) {
            if (v.get(LONG_LE, 0) != key0 || v.get(LONG_LE, 8) != key1) {
                return false;
            }
        } else {
            for (long i = 0; i < n; i++) {
                if (v.get(ValueLayout.JAVA_BYTE, i) != keyByte(key0, key1, i)) {
                    return false;
                }
            }
        }
        return n < MIN_CHECKSUM_BYTES || v.get(LONG_LE, n - 8) == ValueHash.hash(v, 0, n - 8);
    }

    /**
     * Checks the value of a pinned entry: its size must be {@code scratch.byteSize()}, and a copy
     * of it in {@code scratch} must pass {@link #check}. (Copying, rather than
     * {@link Cache#value}, never creates an object.)
     */
    public static boolean check(Cache cache, long handle, long key0, long key1,
            MemorySegment scratch) {
        if (cache.valueSize(handle) != scratch.byteSize()) {
            return false;
        }
        cache.copyValue(handle, scratch, 0);
        return check(scratch, key0, key1);
    }

    /** Byte {@code i} (0..15) of the key as 16 little-endian bytes. */
    private static byte keyByte(long key0, long key1, long i) {
        long word = i < 8 ? key0 : key1;
        return (byte) (word >>> (8 * (i & 7)));
    }
}
