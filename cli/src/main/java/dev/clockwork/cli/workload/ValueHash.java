package dev.clockwork.cli.workload;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The "do something with the data" step of a cache hit (cache_bench runs NPHash64 over the
 * value): a fast non-cryptographic 64-bit hash that reads every byte of the value. Four
 * independent multiply-xor lanes over 8-byte words keep the multiplier busy (about one word per
 * cycle), then a final avalanche mixes the lanes. Callers must consume the result so that the JIT
 * cannot drop the reads.
 */
public final class ValueHash {
    private ValueHash() {
    }

    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long K = 0x9E3779B97F4A7C15L;

    public static long hash(MemorySegment v) {
        return hash(v, 0, v.byteSize());
    }

    private static final VarHandle ARRAY_LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class,
                    ByteOrder.LITTLE_ENDIAN);

    /**
     * The same hash of a heap array (the peers' values), read as {@link #hash(MemorySegment)}
     * reads native memory: equal bytes give equal hashes.
     */
    public static long hash(byte[] v) {
        int n = v.length;
        long h0 = 0x243F6A8885A308D3L;
        long h1 = 0x13198A2E03707344L;
        long h2 = 0xA4093822299F31D0L;
        long h3 = 0x082EFA98EC4E6C89L;
        int i = 0;
        for (; i <= n - 32; i += 32) {
            h0 = (h0 ^ (long) ARRAY_LONG_LE.get(v, i)) * K;
            h1 = (h1 ^ (long) ARRAY_LONG_LE.get(v, i + 8)) * K;
            h2 = (h2 ^ (long) ARRAY_LONG_LE.get(v, i + 16)) * K;
            h3 = (h3 ^ (long) ARRAY_LONG_LE.get(v, i + 24)) * K;
        }
        for (; i <= n - 8; i += 8) {
            h0 = (h0 ^ (long) ARRAY_LONG_LE.get(v, i)) * K;
        }
        for (; i < n; i++) {
            h1 = (h1 ^ (v[i] & 0xFFL)) * K;
        }
        return finish(h0, h1, h2, h3, n);
    }

    /** The hash of bytes {@code [offset, offset + size)} of {@code v}, without slicing it. */
    public static long hash(MemorySegment v, long offset, long size) {
        int n = (int) Math.min(size, Integer.MAX_VALUE);
        long h0 = 0x243F6A8885A308D3L;
        long h1 = 0x13198A2E03707344L;
        long h2 = 0xA4093822299F31D0L;
        long h3 = 0x082EFA98EC4E6C89L;
        int i = 0;
        for (; i <= n - 32; i += 32) {
            h0 = (h0 ^ v.get(LONG_LE, offset + i)) * K;
            h1 = (h1 ^ v.get(LONG_LE, offset + i + 8)) * K;
            h2 = (h2 ^ v.get(LONG_LE, offset + i + 16)) * K;
            h3 = (h3 ^ v.get(LONG_LE, offset + i + 24)) * K;
        }
        for (; i <= n - 8; i += 8) {
            h0 = (h0 ^ v.get(LONG_LE, offset + i)) * K;
        }
        for (; i < n; i++) {
            h1 = (h1 ^ (v.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFFL)) * K;
        }
        return finish(h0, h1, h2, h3, size);
    }

    private static long finish(long h0, long h1, long h2, long h3, long size) {
        long h = h0 ^ Long.rotateLeft(h1, 16) ^ Long.rotateLeft(h2, 32) ^ Long.rotateLeft(h3, 48)
                ^ size;
        // murmur3 fmix64
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }
}
