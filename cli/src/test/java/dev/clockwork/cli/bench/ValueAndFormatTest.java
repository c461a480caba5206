package dev.clockwork.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

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
                        v.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), i));
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
        // An FNV-1a-style 64-bit hash of two consecutive values from std::mt19937_64(7), made by cache_bench's
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
            Files.writeString(f, "Name:\tjava\nVmPeak:\t  999 kB\nVmHWM:\t   2048 kB\nVmRSS:\t 1 kB\n");
            assertEquals(2048L * 1024, ProcessStats.parseVmHwm(f).orElseThrow());
            Files.writeString(f, "Name:\tjava\n");
            assertEquals(false, ProcessStats.parseVmHwm(f).isPresent());
        } finally {
            Files.delete(f);
        }
    }
}
