package dev.clockwork.cache.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * MurmurHash3, x64 128-bit variant ({@code MurmurHash3_x64_128} from Austin Appleby's SMHasher),
 * over a range of a {@code byte[]} or of a {@link MemorySegment} (heap or native).
 *
 * <h2>Why Murmur3</h2>
 * It is short enough to check by reading, fast (two 64-bit lanes, one multiply-rotate-multiply per
 * 8 input bytes), passes SMHasher, and is reproduced byte for byte by many libraries (Guava, the
 * Python {@code mmh3} package, Elasticsearch, Spark), so its output can be checked against
 * published test vectors and against other languages. The digests here equal the reference C code
 * on a little-endian machine: {@code out[0]} is {@code h1} (digest bytes 0..7 read little-endian)
 * and {@code out[1]} is {@code h2} (bytes 8..15).
 *
 * <h2>Collisions</h2>
 * A cache that keys entries by the 128-bit digest alone treats two inputs with equal digests as
 * the same key. For {@code n} distinct inputs that behave like random ones, the chance that any
 * two of them collide is about {@code n^2 / 2^129} (birthday bound): for a billion keys (~2^30)
 * that is ~2^-69. Murmur3 is not a cryptographic hash, though; inputs that collide whatever the
 * seed can be built on purpose (the published hash-flooding attacks on MurmurHash), so the bound
 * holds only for keys an adversary does not choose.
 *
 * <h2>Seeds</h2>
 * The reference function takes a 32-bit unsigned seed and starts both lanes from it. The
 * {@code int}-seed methods do exactly that (the {@code int} is read as unsigned, so
 * {@code 0x9747B28C} gives the reference result); the {@code long}-seed methods start both lanes
 * from all 64 bits, and agree with the reference whenever the seed is in {@code [0, 2^32)}.
 *
 * <p>Nothing here allocates: results go into a caller-provided {@code long[]} of length at
 * least 2, or the first half is returned by the {@code hash64} methods. All methods are
 * thread-safe.
 */
public final class Murmur3 {

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    /** Per-thread digest for the {@code hash64} forms, so that they allocate nothing. */
    private static final ThreadLocal<long[]> SCRATCH = ThreadLocal.withInitial(() -> new long[2]);

    private static final VarHandle ARRAY_LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong SEGMENT_LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Murmur3() {
    }

    // ---------------------------------------------------------------- byte[]

    /**
     * Hashes {@code data[offset, offset + length)} with a 64-bit seed (both lanes start from it)
     * into {@code out[0]} (h1) and {@code out[1]} (h2).
     *
     * @param data the bytes to hash
     * @param offset index in {@code data} of the first byte to hash
     * @param length how many bytes to hash, {@code >= 0}
     * @param seed starts both lanes, all 64 bits
     * @param out receives {@code h1} in {@code out[0]} and {@code h2} in {@code out[1]}; of
     *     length 2 or more
     * @throws IndexOutOfBoundsException if the range is not inside {@code data}
     * @throws IllegalArgumentException if {@code out} is shorter than 2
     */
    public static void hash128(byte[] data, int offset, int length, long seed, long[] out) {
        Objects.checkFromIndexSize(offset, length, data.length);
        checkOut(out);
        long h1 = seed;
        long h2 = seed;
        int blockEnd = offset + (length & ~15);
        int p = offset;
        for (; p < blockEnd; p += 16) {
            long k1 = (long) ARRAY_LONG_LE.get(data, p);
            long k2 = (long) ARRAY_LONG_LE.get(data, p + 8);
            h1 ^= mixK1(k1);
            h1 = Long.rotateLeft(h1, 27) + h2;
            h1 = h1 * 5 + 0x52dce729L;
            h2 ^= mixK2(k2);
            h2 = Long.rotateLeft(h2, 31) + h1;
            h2 = h2 * 5 + 0x38495ab5L;
        }
        // Tail of 0..15 bytes: bytes 0..7 of it form k1, bytes 8..14 form k2 (little-endian).
        long k1 = 0;
        long k2 = 0;
        int tail = length & 15;
        for (int i = tail - 1; i >= 8; i--) {
            k2 = (k2 << 8) | (data[p + i] & 0xffL);
        }
        for (int i = Math.min(tail, 8) - 1; i >= 0; i--) {
            k1 = (k1 << 8) | (data[p + i] & 0xffL);
        }
        // mixK1(0) == mixK2(0) == 0, so mixing an empty tail half is a no-op as in the reference.
        h2 ^= mixK2(k2);
        h1 ^= mixK1(k1);
        finish(h1, h2, length, out);
    }

    /**
     * Reference-compatible form: the 32-bit {@code seed} is read as unsigned and starts both lanes,
     * as in {@code MurmurHash3_x64_128(key, len, seed, out)}.
     *
     * @param data the bytes to hash
     * @param offset index in {@code data} of the first byte to hash
     * @param length how many bytes to hash, {@code >= 0}
     * @param seed the reference's 32-bit seed, read as unsigned
     * @param out receives {@code h1} in {@code out[0]} and {@code h2} in {@code out[1]}; of
     *     length 2 or more
     * @throws IndexOutOfBoundsException if the range is not inside {@code data}
     * @throws IllegalArgumentException if {@code out} is shorter than 2
     */
    public static void hash128(byte[] data, int offset, int length, int seed, long[] out) {
        hash128(data, offset, length, Integer.toUnsignedLong(seed), out);
    }

    /**
     * Hashes all of {@code data}; see {@link #hash128(byte[], int, int, long, long[])}.
     *
     * @param data the bytes to hash
     * @param seed starts both lanes, all 64 bits
     * @param out receives {@code h1} in {@code out[0]} and {@code h2} in {@code out[1]}; of
     *     length 2 or more
     * @throws IllegalArgumentException if {@code out} is shorter than 2
     */
    public static void hash128(byte[] data, long seed, long[] out) {
        hash128(data, 0, data.length, seed, out);
    }

    /**
     * The first half ({@code h1}) of the 128-bit digest; a 64-bit hash as good as any 64 bits of
     * it, computed through {@link #hash128(byte[], int, int, long, long[])}.
     *
     * @param data the bytes to hash
     * @param offset index in {@code data} of the first byte to hash
     * @param length how many bytes to hash, {@code >= 0}
     * @param seed starts both lanes, all 64 bits
     * @return the digest's {@code h1}
     * @throws IndexOutOfBoundsException if the range is not inside {@code data}
     */
    public static long hash64(byte[] data, int offset, int length, long seed) {
        long[] out = SCRATCH.get();
        hash128(data, offset, length, seed, out);
        return out[0];
    }

    /**
     * {@link #hash64(byte[], int, int, long)} with a reference (unsigned 32-bit) seed.
     *
     * @param data the bytes to hash
     * @param offset index in {@code data} of the first byte to hash
     * @param length how many bytes to hash, {@code >= 0}
     * @param seed the reference's 32-bit seed, read as unsigned
     * @return the digest's {@code h1}
     * @throws IndexOutOfBoundsException if the range is not inside {@code data}
     */
    public static long hash64(byte[] data, int offset, int length, int seed) {
        return hash64(data, offset, length, Integer.toUnsignedLong(seed));
    }

    // ---------------------------------------------------------------- MemorySegment

    /**
     * Hashes the {@code length} bytes of {@code segment} starting at {@code offset} with a 64-bit
     * seed into {@code out[0]} (h1) and {@code out[1]} (h2). Works for heap and native segments
     * alike and gives the same result as the {@code byte[]} form over the same bytes.
     *
     * @param segment the bytes to hash, heap or native
     * @param offset byte offset in {@code segment} of the first byte to hash
     * @param length how many bytes to hash, {@code >= 0}
     * @param seed starts both lanes, all 64 bits
     * @param out receives {@code h1} in {@code out[0]} and {@code h2} in {@code out[1]}; of
     *     length 2 or more
     * @throws IndexOutOfBoundsException if the range is not inside the segment
     * @throws IllegalArgumentException if {@code out} is shorter than 2
     * @throws IllegalStateException if the segment's arena is closed or confined to another thread
     */
    public static void hash128(MemorySegment segment, long offset, long length, long seed,
                               long[] out) {
        Objects.checkFromIndexSize(offset, length, segment.byteSize());
        checkOut(out);
        long h1 = seed;
        long h2 = seed;
        long blockEnd = offset + (length & ~15L);
        long p = offset;
        for (; p < blockEnd; p += 16) {
            long k1 = segment.get(SEGMENT_LONG_LE, p);
            long k2 = segment.get(SEGMENT_LONG_LE, p + 8);
            h1 ^= mixK1(k1);
            h1 = Long.rotateLeft(h1, 27) + h2;
            h1 = h1 * 5 + 0x52dce729L;
            h2 ^= mixK2(k2);
            h2 = Long.rotateLeft(h2, 31) + h1;
            h2 = h2 * 5 + 0x38495ab5L;
        }
        long k1 = 0;
        long k2 = 0;
        int tail = (int) (length & 15);
        for (int i = tail - 1; i >= 8; i--) {
            k2 = (k2 << 8) | (segment.get(ValueLayout.JAVA_BYTE, p + i) & 0xffL);
        }
        for (int i = Math.min(tail, 8) - 1; i >= 0; i--) {
            k1 = (k1 << 8) | (segment.get(ValueLayout.JAVA_BYTE, p + i) & 0xffL);
        }
        h2 ^= mixK2(k2);
        h1 ^= mixK1(k1);
        finish(h1, h2, length, out);
    }

    /**
     * Reference-compatible form of {@link #hash128(MemorySegment, long, long, long, long[])}.
     *
     * @param segment the bytes to hash, heap or native
     * @param offset byte offset in {@code segment} of the first byte to hash
     * @param length how many bytes to hash, {@code >= 0}
     * @param seed the reference's 32-bit seed, read as unsigned
     * @param out receives {@code h1} in {@code out[0]} and {@code h2} in {@code out[1]}; of
     *     length 2 or more
     * @throws IndexOutOfBoundsException if the range is not inside the segment
     * @throws IllegalArgumentException if {@code out} is shorter than 2
     */
    public static void hash128(MemorySegment segment, long offset, long length, int seed,
                               long[] out) {
        hash128(segment, offset, length, Integer.toUnsignedLong(seed), out);
    }

    /**
     * Hashes the whole segment; see {@link #hash128(MemorySegment, long, long, long, long[])}.
     *
     * @param segment the bytes to hash, heap or native
     * @param seed starts both lanes, all 64 bits
     * @param out receives {@code h1} in {@code out[0]} and {@code h2} in {@code out[1]}; of
     *     length 2 or more
     * @throws IllegalArgumentException if {@code out} is shorter than 2
     */
    public static void hash128(MemorySegment segment, long seed, long[] out) {
        hash128(segment, 0, segment.byteSize(), seed, out);
    }

    /**
     * The first half ({@code h1}) of the 128-bit digest of a segment range.
     *
     * @param segment the bytes to hash, heap or native
     * @param offset byte offset in {@code segment} of the first byte to hash
     * @param length how many bytes to hash, {@code >= 0}
     * @param seed starts both lanes, all 64 bits
     * @return the digest's {@code h1}
     * @throws IndexOutOfBoundsException if the range is not inside the segment
     */
    public static long hash64(MemorySegment segment, long offset, long length, long seed) {
        long[] out = SCRATCH.get();
        hash128(segment, offset, length, seed, out);
        return out[0];
    }

    /**
     * {@link #hash64(MemorySegment, long, long, long)} with a reference (unsigned 32-bit) seed.
     *
     * @param segment the bytes to hash, heap or native
     * @param offset byte offset in {@code segment} of the first byte to hash
     * @param length how many bytes to hash, {@code >= 0}
     * @param seed the reference's 32-bit seed, read as unsigned
     * @return the digest's {@code h1}
     * @throws IndexOutOfBoundsException if the range is not inside the segment
     */
    public static long hash64(MemorySegment segment, long offset, long length, int seed) {
        return hash64(segment, offset, length, Integer.toUnsignedLong(seed));
    }

    // ---------------------------------------------------------------- internals

    /**
     * Murmur3's 64-bit finalizer: xor-shift, multiply, xor-shift, multiply, xor-shift. A bijection
     * on 64-bit values with strong avalanche; {@link KeyHash} uses it as well.
     */
    static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    private static long mixK1(long k1) {
        return Long.rotateLeft(k1 * C1, 31) * C2;
    }

    private static long mixK2(long k2) {
        return Long.rotateLeft(k2 * C2, 33) * C1;
    }

    private static void finish(long h1, long h2, long length, long[] out) {
        h1 ^= length;
        h2 ^= length;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        h2 += h1;
        out[0] = h1;
        out[1] = h2;
    }

    private static void checkOut(long[] out) {
        if (out.length < 2) {
            throw new IllegalArgumentException("out must have length >= 2, was " + out.length);
        }
    }
}
