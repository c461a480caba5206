package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.CopyingCache;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The copying convenience layer over a real off-heap cache: keys of any length, get/put/remove. */
class CopyingCacheOnFixedTest {

    @AfterEach
    void noNativeLeak() {
        assertEquals(0, NativeMemory.outstandingBytes());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void roundTripsKeysOfAnyLength() {
        try (var cache = new CopyingCache(HyperClockCache.builder().capacity(4 << 20)
                .estimatedEntryCharge(256).build())) {
            for (int length = 0; length < 200; length++) {
                byte[] key = new byte[length];
                for (int i = 0; i < length; i++) {
                    key[i] = (byte) (i * 7 + length);
                }
                assertTrue(cache.put(key, pattern(length, length + 1)));
            }
            for (int length = 0; length < 200; length++) {
                byte[] key = new byte[length];
                for (int i = 0; i < length; i++) {
                    key[i] = (byte) (i * 7 + length);
                }
                assertArrayEquals(pattern(length, length + 1), cache.get(key));
            }
            assertNull(cache.get(utf8("absent")));
        }
    }

    @Test
    void putReplacesAndRemoveRemoves() {
        try (var cache = new CopyingCache(HyperClockCache.builder().capacity(1 << 20)
                .estimatedEntryCharge(64).build())) {
            assertTrue(cache.put(utf8("plan:select 1"), utf8("v1")));
            assertTrue(cache.put(utf8("plan:select 1"), utf8("version 2")));
            assertArrayEquals(utf8("version 2"), cache.get(utf8("plan:select 1")));
            byte[] dst = new byte[16];
            assertEquals(9, cache.get(utf8("plan:select 1"), dst, 2));
            assertEquals('v', dst[2]);
            assertTrue(cache.remove(utf8("plan:select 1")));
            assertFalse(cache.remove(utf8("plan:select 1")));
            assertEquals(-1, cache.get(utf8("plan:select 1"), dst, 0));
        }
    }

    @Test
    void segmentKeysMatchArrayKeys() {
        try (var arena = Arena.ofConfined();
             var cache = new CopyingCache(HyperClockCache.builder().capacity(1 << 20)
                     .estimatedEntryCharge(64).build())) {
            byte[] key = utf8("block:0042:000000001000");
            MemorySegment nativeKey = arena.allocate(key.length);
            nativeKey.copyFrom(MemorySegment.ofArray(key));
            cache.put(nativeKey, MemorySegment.ofArray(utf8("payload")));
            assertArrayEquals(utf8("payload"), cache.get(key));
        }
    }
}
