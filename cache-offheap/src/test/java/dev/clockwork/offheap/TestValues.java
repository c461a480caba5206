package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Values for tests to insert, each a pure function of its arguments, so that a value read back
 * can be compared with the one a test means to find. Which to use depends on what a test must
 * catch:
 * <ul>
 *   <li>{@link #pattern}: bytes that step by one from a seed; cheap, any length.
 *   <li>{@link #noise}: pseudo-random bytes, for byte-exact round trips (a copy shifted by a
 *       multiple of 256 bytes still matches a {@link #pattern}, never noise).
 *   <li>{@link #naming}: 16 bytes holding both key halves, so a hit on another key shows.
 *   <li>{@link #versioned}: the key, a version, then a pattern of both, so a hit on another
 *       key or an older insert of the same key shows.
 *   <li>{@link #checksummed}: a key-dependent length, the key and a trailing checksum, so that
 *       a torn value or freed memory read under racing threads shows
 *       ({@link #isChecksummedValueOf}).
 * </ul>
 */
final class TestValues {
    private TestValues() {
    }

    /** {@code length} bytes, byte {@code i} being {@code seed * 31 + i}. */
    static byte[] pattern(long seed, int length) {
        byte[] v = new byte[length];
        for (int i = 0; i < length; i++) {
            v[i] = (byte) (seed * 31 + i);
        }
        return v;
    }

    /** {@code length} pseudo-random bytes (xorshift) drawn from {@code seed}. */
    static byte[] noise(long seed, int length) {
        byte[] b = new byte[length];
        long x = 0x9E37_79B9_7F4A_7C15L * (seed + 1);
        for (int i = 0; i < length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b[i] = (byte) x;
        }
        return b;
    }

    /** 16 bytes that name their key: {@code key0}, then {@code key1}. */
    static byte[] naming(long key0, long key1) {
        byte[] v = new byte[16];
        MemorySegment s = MemorySegment.ofArray(v);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, key0);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, key1);
        return v;
    }

    /** 8 bytes of key, 8 of version, then a pattern of both; {@code length} at least 16. */
    static byte[] versioned(long key, long version, int length) {
        byte[] v = new byte[length];
        MemorySegment s = MemorySegment.ofArray(v);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, key);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, version);
        for (int i = 16; i < length; i++) {
            v[i] = (byte) (key * 31 + version * 7 + i);
        }
        return v;
    }

    /** The length of {@link #checksummed}{@code (key)}: 16..527 bytes. */
    static int checksummedLength(long key) {
        return 16 + (int) ((key * 2654435761L) & 511);
    }

    /** {@link #checksummedLength} bytes: the key, a pattern, and a checksum of all before it. */
    static byte[] checksummed(long key) {
        int length = checksummedLength(key);
        byte[] v = new byte[length];
        MemorySegment s = MemorySegment.ofArray(v);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, key);
        for (int i = 8; i < length - 8; i++) {
            v[i] = (byte) (key * 31 + i);
        }
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, length - 8, checksum(s, length - 8));
        return v;
    }

    /** Whether {@code v} is whole and is {@link #checksummed}{@code (key)}. */
    static boolean isChecksummedValueOf(MemorySegment v, long key) {
        long length = v.byteSize();
        return length == checksummedLength(key)
                && v.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) == key
                && v.get(ValueLayout.JAVA_LONG_UNALIGNED, length - 8) == checksum(v, length - 8);
    }

    /**
     * Checks that the entry {@code handle} pins holds {@link #checksummed}{@code (key)}; throws
     * {@link AssertionError} (usable from worker threads) if not.
     */
    static void verifyChecksummed(Cache cache, long handle, long key) {
        if (!isChecksummedValueOf(cache.value(handle), key)) {
            throw new AssertionError("value read for key " + key + " is not that key's");
        }
    }

    /** FNV-1a over the first {@code length} bytes of {@code s}, from a non-zero seed. */
    static long checksum(MemorySegment s, long length) {
        long h = 0x9E37_79B9_7F4A_7C15L;
        for (long i = 0; i < length; i++) {
            h = (h ^ s.get(ValueLayout.JAVA_BYTE, i)) * 0x100000001B3L;
        }
        return h;
    }
}
