package dev.clockwork.cache.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Murmur3Test {

    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * SMHasher's VerificationTest for MurmurHash3_x64_128 (expected value 0x6384BA69, listed for
     * "Murmur3F" in SMHasher's main.cpp and checked by Guava's Murmur3Hash128Test.testParanoid):
     * hash key[0..len) with key[i] = i and seed 256 - len for len = 0..255, concatenate the 256
     * digests, hash that with seed 0 and read the first 4 bytes as a little-endian uint32.
     */
    private static final int SMHASHER_VERIFICATION = 0x6384BA69;

    @Test
    void smhasherVerificationByteArray() {
        byte[] key = new byte[256];
        byte[] digests = new byte[256 * 16];
        ByteBuffer digestBuf = ByteBuffer.wrap(digests).order(ByteOrder.LITTLE_ENDIAN);
        long[] out = new long[2];
        for (int len = 0; len < 256; len++) {
            key[len] = (byte) len;
            Murmur3.hash128(key, 0, len, 256 - len, out);
            digestBuf.putLong(len * 16, out[0]).putLong(len * 16 + 8, out[1]);
        }
        Murmur3.hash128(digests, 0, digests.length, 0, out);
        assertEquals(SMHASHER_VERIFICATION, (int) out[0]);
        assertEquals(SMHASHER_VERIFICATION, (int) Murmur3.hash64(digests, 0, digests.length, 0));
    }

    @Test
    void smhasherVerificationNativeSegment() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(256);
            MemorySegment digests = arena.allocate(256 * 16);
            long[] out = new long[2];
            for (int len = 0; len < 256; len++) {
                key.set(ValueLayout.JAVA_BYTE, len, (byte) len);
                Murmur3.hash128(key, 0, len, 256 - len, out);
                digests.set(LE_LONG, len * 16L, out[0]);
                digests.set(LE_LONG, len * 16L + 8, out[1]);
            }
            Murmur3.hash128(digests, 0, digests.byteSize(), 0, out);
            assertEquals(SMHASHER_VERIFICATION, (int) out[0]);
            assertEquals(SMHASHER_VERIFICATION,
                    (int) Murmur3.hash64(digests, 0, digests.byteSize(), 0));
        }
    }

    /**
     * Known values from Guava's {@code com.google.common.hash.Murmur3Hash128Test.testKnownValues}
     * (also reused by Apache Spark's Murmur3_128Suite and Elasticsearch's MurmurHash3Tests):
     * {@code assertHash(seed, h1, h2, ascii string)}.
     */
    @Test
    void guavaKnownValues() {
        assertVector(0, 0x629942693e10f867L, 0x92db0b82baeb5347L, "hell");
        assertVector(1, 0xa78ddff5adae8d10L, 0x128900ef20900135L, "hello");
        assertVector(2, 0x8a486b23f422e826L, 0xf962a2c58947765fL, "hello ");
        assertVector(3, 0x2ea59f466f6bed8cL, 0xc610990acc428a17L, "hello w");
        assertVector(4, 0x79f6305a386c572cL, 0x46305aed3483b94eL, "hello wo");
        assertVector(5, 0xc2219d213ec1f1b5L, 0xa1d8e2e0a52785bdL, "hello wor");
        assertVector(0, 0xe34bbc7bbc071b6cL, 0x7a433ca9c49a9347L,
                "The quick brown fox jumps over the lazy dog");
        assertVector(0, 0x658ca970ff85269aL, 0x43fee3eaa68e5c3eL,
                "The quick brown fox jumps over the lazy cog");
    }

    /**
     * The digest as bytes: Guava's test checks murmur3_128(0) of the fox sentence against
     * "6c1b07bc7bbc4be347939ac4a93c437a", noted there as "known output from Python smhasher".
     */
    @Test
    void guavaFoxDigestBytes() {
        byte[] data = ascii("The quick brown fox jumps over the lazy dog");
        long[] out = new long[2];
        Murmur3.hash128(data, 0, data.length, 0, out);
        byte[] digest = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(out[0]).putLong(out[1]).array();
        assertEquals("6c1b07bc7bbc4be347939ac4a93c437a", HexFormat.of().formatHex(digest));
    }

    /**
     * Values from the Python {@code mmh3} package's tests (hajimes/mmh3, tests/test_mmh3.py):
     * {@code hash64} returns (h1, h2) of MurmurHash3_x64_128, {@code hash128} the digest read as
     * a little-endian unsigned 128-bit integer. Seed 0x9747B28C has the top bit set, so this
     * checks that an int seed is taken as unsigned, as in the reference.
     */
    @Test
    void mmh3KnownValues() {
        assertVector(0, Long.parseUnsignedLong("16316970633193145697"),
                Long.parseUnsignedLong("9128664383759220103"), "foo");
        assertVector(0x9747B28C, Long.parseUnsignedLong("8325606756057297185"),
                Long.parseUnsignedLong("17961889624427075301"),
                "The quick brown fox jumps over the lazy dog");
        assertEquals(new BigInteger("168394135621993849475852668931176482145"), as128("foo", 0));
        assertEquals(new BigInteger("215966891540331383248189432718888555506"), as128("foo", 42));
    }

    @Test
    void intSeedIsUnsignedAndMatchesLongSeed() {
        byte[] data = ascii("seed");
        long[] a = new long[2];
        long[] b = new long[2];
        Murmur3.hash128(data, 0, data.length, -1, a);
        Murmur3.hash128(data, 0, data.length, 0xFFFF_FFFFL, b);
        assertEquals(a[0], b[0]);
        assertEquals(a[1], b[1]);
        Murmur3.hash128(data, 0, data.length, -1L, b);
        assertNotEquals(a[0], b[0]);
        Murmur3.hash128(data, 0, data.length, 12345, a);
        Murmur3.hash128(data, 0, data.length, 12345L, b);
        assertEquals(a[0], b[0]);
        assertEquals(a[1], b[1]);
    }

    /** byte[], heap segment and native segment agree at every length 0..64 and random offsets. */
    @Test
    void arrayHeapSegmentAndNativeSegmentAgree() {
        Random rnd = new Random(42);
        long[] fromArray = new long[2];
        long[] fromHeap = new long[2];
        long[] fromNative = new long[2];
        try (Arena arena = Arena.ofConfined()) {
            for (int len = 0; len <= 64; len++) {
                for (int trial = 0; trial < 20; trial++) {
                    int offset = rnd.nextInt(24);
                    byte[] buf = new byte[offset + len + rnd.nextInt(8)];
                    rnd.nextBytes(buf);
                    long seed = trial % 4 == 0 ? 0 : rnd.nextLong();
                    MemorySegment heap = MemorySegment.ofArray(buf);
                    MemorySegment nat = arena.allocate(buf.length);
                    MemorySegment.copy(heap, 0, nat, 0, buf.length);

                    Murmur3.hash128(buf, offset, len, seed, fromArray);
                    Murmur3.hash128(heap, offset, len, seed, fromHeap);
                    Murmur3.hash128(nat, offset, len, seed, fromNative);
                    String where = "len " + len + " offset " + offset;
                    assertEquals(fromArray[0], fromHeap[0], where);
                    assertEquals(fromArray[1], fromHeap[1], where);
                    assertEquals(fromArray[0], fromNative[0], where);
                    assertEquals(fromArray[1], fromNative[1], where);
                    assertEquals(fromArray[0], Murmur3.hash64(buf, offset, len, seed), where);
                    assertEquals(fromArray[0], Murmur3.hash64(heap, offset, len, seed), where);
                    assertEquals(fromArray[0], Murmur3.hash64(nat, offset, len, seed), where);

                    // The same bytes at offset 0 of their own array give the same digest.
                    byte[] copy = Arrays.copyOfRange(buf, offset, offset + len);
                    Murmur3.hash128(copy, seed, fromHeap);
                    assertEquals(fromArray[0], fromHeap[0], where);
                    assertEquals(fromArray[1], fromHeap[1], where);
                    Murmur3.hash128(nat.asSlice(offset, len), seed, fromNative);
                    assertEquals(fromArray[0], fromNative[0], where);
                    assertEquals(fromArray[1], fromNative[1], where);
                }
            }
        }
    }

    @Test
    void rejectsBadRangesAndShortOut() {
        byte[] data = new byte[10];
        long[] out = new long[2];
        assertThrows(IndexOutOfBoundsException.class, () -> Murmur3.hash128(data, 5, 6, 0L, out));
        assertThrows(IndexOutOfBoundsException.class, () -> Murmur3.hash128(data, -1, 2, 0L, out));
        assertThrows(IndexOutOfBoundsException.class, () -> Murmur3.hash64(data, 0, 11, 0L));
        MemorySegment seg = MemorySegment.ofArray(data);
        assertThrows(IndexOutOfBoundsException.class, () -> Murmur3.hash128(seg, 8, 3, 0L, out));
        assertThrows(IndexOutOfBoundsException.class, () -> Murmur3.hash64(seg, 0, -1, 0L));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Murmur3.hash128(data, 0, 10, 0L, new long[1]));
        assertTrue(e.getMessage().contains("out"));
    }

    private static void assertVector(int seed, long h1, long h2, String input) {
        byte[] data = ascii(input);
        long[] out = new long[2];
        Murmur3.hash128(data, 0, data.length, seed, out);
        assertEquals(h1, out[0], () -> "h1 of \"" + input + "\"");
        assertEquals(h2, out[1], () -> "h2 of \"" + input + "\"");
        assertEquals(h1, Murmur3.hash64(data, 0, data.length, seed));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(Math.max(1, data.length)).asSlice(0, data.length);
            MemorySegment.copy(data, 0, seg, ValueLayout.JAVA_BYTE, 0, data.length);
            long[] segOut = new long[2];
            Murmur3.hash128(seg, 0, seg.byteSize(), seed, segOut);
            assertEquals(h1, segOut[0]);
            assertEquals(h2, segOut[1]);
        }
    }

    private static BigInteger as128(String input, int seed) {
        byte[] data = ascii(input);
        long[] out = new long[2];
        Murmur3.hash128(data, 0, data.length, seed, out);
        BigInteger lo = new BigInteger(Long.toUnsignedString(out[0]));
        BigInteger hi = new BigInteger(Long.toUnsignedString(out[1]));
        return hi.shiftLeft(64).or(lo);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
