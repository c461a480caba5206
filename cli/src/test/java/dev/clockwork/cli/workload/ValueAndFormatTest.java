package dev.clockwork.cli.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.offheap.HyperClockCache;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ValueAndFormatTest {

    @Test
    void randomFillSizeAsCacheBench() {
        assertEquals(4096, ValueGen.randomFillSize(8192, 0.5));
        assertEquals(1, ValueGen.randomFillSize(8192, 0.0));
        assertEquals(8192, ValueGen.randomFillSize(8192, 3.0));
        assertEquals(33, ValueGen.randomFillSize(100, 0.339)); // truncates 33.9
    }

    @Test
    void valueIsRandomPrefixThenRepeats() {
        try (ValueGen gen = new ValueGen(100, 0.5)) {
            Random64 rnd = new Random64(99);
            Random64 same = new Random64(99);
            MemorySegment v = gen.next(rnd);
            assertEquals(100, v.byteSize());
            // 50 random bytes, written as 7 whole little-endian longs (56 bytes)
            for (int i = 0; i < 56; i += 8) {
                assertEquals(same.next(),
                        v.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN),
                                i));
            }
            // from byte 56 on, byte i copies byte i % 50
            for (int i = 56; i < 100; i++) {
                assertEquals(v.get(ValueLayout.JAVA_BYTE, i % 50), v.get(ValueLayout.JAVA_BYTE, i));
            }
            assertEquals(same.next(), rnd.next()); // consumed exactly 7 values
        }
    }

    @Test
    void valueBytesMatchCacheBench() {
        // An FNV-1a-style 64-bit hash of two consecutive values from std::mt19937_64(7), made by
        // cache_bench's
        // createValue loop compiled as C++.
        Object[][] cases = {
            {1000, 0.37, "10435851985778870113", "13832773435631954888"},
            {8192, 0.5, "4129241687175647395", "9816173997524029347"},
            {100, 0.5, "13419432364465879089", "14124731838028141667"},
            {4096, 0.0, "17553956261511167146", "4087583293978814089"},
            {256, 1.0, "17992631717512604811", "8344932063128557466"},
            {777, 0.9, "2209985526849202663", "10145345601367540839"},
        };
        for (Object[] c : cases) {
            int size = (Integer) c[0];
            Random64 rnd = new Random64(7);
            try (ValueGen gen = new ValueGen(size, (Double) c[1])) {
                for (int rep = 0; rep < 2; rep++) {
                    MemorySegment v = gen.next(rnd);
                    long h = 1469598103934665603L; // same start value as the C++ side
                    for (int i = 0; i < size; i++) {
                        h ^= v.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
                        h *= 0x100000001b3L;
                    }
                    assertEquals(Long.parseUnsignedLong((String) c[2 + rep]), h,
                            "value " + rep + " of size " + size + " ratio " + c[1]);
                }
            }
        }
    }

    @Test
    void hashReadsEveryByte() {
        try (Arena arena = Arena.ofConfined()) {
            for (int size : new int[] {0, 1, 7, 8, 31, 32, 33, 8192}) {
                MemorySegment s = arena.allocate(Math.max(1, size)).asSlice(0, size);
                long base = ValueHash.hash(s);
                for (int i = 0; i < size; i += Math.max(1, size / 17)) {
                    s.set(ValueLayout.JAVA_BYTE, i, (byte) 1);
                    assertNotEquals(base, ValueHash.hash(s), "size " + size + " byte " + i);
                    s.set(ValueLayout.JAVA_BYTE, i, (byte) 0);
                }
            }
        }
    }

    @Test
    void hashOfARangeIsHashOfTheSlice() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(300);
            for (int i = 0; i < 300; i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            for (int[] r : new int[][] {{0, 300}, {0, 0}, {5, 100}, {16, 276}, {299, 1}}) {
                assertEquals(ValueHash.hash(s.asSlice(r[0], r[1])), ValueHash.hash(s, r[0], r[1]));
            }
        }
    }

    @Test
    void stampedValuesKeepCacheBenchBytesAndCheck() {
        long key0 = 0x0102030405060708L;
        long key1 = 0x1112131415161718L;
        for (int size : new int[] {1, 7, 8, 15, 16, 17, 31, 32, 33, 100, 8192}) {
            try (ValueGen plain = new ValueGen(size, 0.5);
                 ValueGen reference = new ValueGen(size, 0.5);
                 ValueGen stamping = new ValueGen(size, 0.5, true)) {
                assertNull(plain.scratch());
                assertEquals(size, stamping.scratch().byteSize());
                Random64 r1 = new Random64(5);
                Random64 r2 = new Random64(5);
                MemorySegment p = plain.next(r1, key0, key1); // not stamping: cache_bench bytes
                MemorySegment same = reference.next(new Random64(5));
                assertEquals(-1, p.mismatch(same), "size " + size);
                MemorySegment v = stamping.next(r2, key0, key1);
                assertEquals(r1.next(), r2.next(), "same random numbers consumed");
                int keyEnd = Math.min(size, 16);
                int sumStart = size >= ValueStamp.MIN_CHECKSUM_BYTES ? size - 8 : size;
                for (int i = 0; i < size; i++) {
                    byte b = v.get(ValueLayout.JAVA_BYTE, i);
                    if (i < keyEnd) {
                        long word = i < 8 ? key0 : key1;
                        assertEquals((byte) (word >>> (8 * (i & 7))), b, "key byte " + i);
                    } else if (i < sumStart) {
                        assertEquals(p.get(ValueLayout.JAVA_BYTE, i), b, "content byte " + i);
                    }
                }
                assertTrue(ValueStamp.check(v, key0, key1), "size " + size);
                assertEquals(size <= 8, ValueStamp.check(v, key0, key1 ^ 1),
                        "wrong key1 (stamped from size 9 on), size " + size);
                assertFalse(ValueStamp.check(v, key0 ^ 1, key1), "wrong key0, size " + size);
                // any changed byte that the stamp covers is caught
                for (int i = 0; i < size; i += Math.max(1, size / 23)) {
                    boolean covered = i < keyEnd || size >= ValueStamp.MIN_CHECKSUM_BYTES;
                    v.set(ValueLayout.JAVA_BYTE, i, (byte) (v.get(ValueLayout.JAVA_BYTE,
                            i) ^ 0x40));
                    assertEquals(!covered, ValueStamp.check(v, key0, key1),
                            "size " + size + " byte " + i);
                    v.set(ValueLayout.JAVA_BYTE, i, (byte) (v.get(ValueLayout.JAVA_BYTE,
                            i) ^ 0x40));
                }
                assertTrue(ValueStamp.check(v, key0, key1));
            }
        }
    }

    @Test
    void stampedValueIsCheckedThroughTheCache() {
        try (Cache cache = HyperClockCache.builder().capacity(1 << 20)
                .estimatedEntryCharge(100).build();
             ValueGen values = new ValueGen(100, 0.5, true)) {
            Random64 rnd = new Random64(3);
            cache.insert(1, 2, values.next(rnd, 1, 2), 100, Priority.LOW);
            cache.insert(3, 4, values.next(rnd, 1, 2), 100, Priority.LOW); // stamped with 1, 2
            long good = cache.lookup(1, 2);
            long bad = cache.lookup(3, 4);
            assertTrue(ValueStamp.check(cache, good, 1, 2, values.scratch()));
            assertFalse(ValueStamp.check(cache, bad, 3, 4, values.scratch()));
            cache.release(good);
            cache.release(bad);
            cache.insert(5, 6, values.next(rnd, 5, 6).asSlice(0, 99), 100, Priority.LOW);
            long shorter = cache.lookup(5, 6);
            assertFalse(ValueStamp.check(cache, shorter, 5, 6, values.scratch()), "wrong size");
            cache.release(shorter);
        }
    }

    @Test
    void percentGLikeC() {
        assertEquals("0.25", CFormat.g(0.25));
        assertEquals("256", CFormat.g(256.0));
        assertEquals("0.690569", CFormat.g(0.6905694));
        assertEquals("1e+06", CFormat.g(1e6));
        assertEquals("123457", CFormat.g(123456.7));
        assertEquals("1.23457e+06", CFormat.g(1234567));
        assertEquals("0.0001", CFormat.g(0.0001));
        assertEquals("1e-05", CFormat.g(0.00001));
        assertEquals("-2.5", CFormat.g(-2.5));
        assertEquals("0", CFormat.g(0));
        assertEquals("inf", CFormat.g(Double.POSITIVE_INFINITY));
        assertEquals("nan", CFormat.g(Double.NaN));
        assertEquals("1.00 GB", CFormat.bytesToHuman(1L << 30));
        assertEquals("1.00 MB", CFormat.bytesToHuman(1 << 20));
        assertEquals("0.50 KB", CFormat.bytesToHuman(512));
    }

    @Test
    void vmHwmParsing() throws Exception {
        Path f = Files.createTempFile("status", ".txt");
        try {
            Files.writeString(f,
                    "Name:\tjava\nVmPeak:\t  999 kB\nVmHWM:\t   2048 kB\nVmRSS:\t 1 kB\n");
            assertEquals(2048L * 1024, ProcessStats.parseVmHwm(f).orElseThrow());
            Files.writeString(f, "Name:\tjava\n");
            assertEquals(false, ProcessStats.parseVmHwm(f).isPresent());
        } finally {
            Files.delete(f);
        }
    }
}
