package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static dev.clockwork.offheap.TestValues.noise;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * LRU values and charges: values read back byte-exact by every read method, copied on insert,
 * metadata charged by default, and insert arguments checked.
 */
class LruValuesTest extends LruCacheTestBase {
    @Test
    void valuesReadBackByteExact() {
        LruCache cache = track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(8 << 20)
                .numShardBits(2).build());
        int[] lengths = {0, 1, 7, 8, 63, 64, 65, 1000, 4096, 100_003, 1 << 20};
        for (int i = 0; i < lengths.length; i++) {
            byte[] v = noise(i, lengths[i]);
            if (i % 2 == 0) {
                // from an array slice, not at offset 0
                byte[] padded = new byte[v.length + 10];
                System.arraycopy(v, 0, padded, 3, v.length);
                assertTrue(cache.insert(i, -i, padded, 3, v.length, v.length, LOW));
            } else {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment s = arena.allocate(v.length + 1);
                    MemorySegment.copy(v, 0, s, ValueLayout.JAVA_BYTE, 0, v.length);
                    assertTrue(cache.insert(i, -i, s.asSlice(0, v.length), v.length, HIGH));
                }
            }
        }
        for (int i = 0; i < lengths.length; i++) {
            byte[] v = noise(i, lengths[i]);
            long h = cache.lookup(i, -i);
            assertNotEquals(Cache.MISS, h, "key " + i);
            MemorySegment view = cache.value(h);
            assertTrue(view.isReadOnly());
            assertArrayEquals(v, view.toArray(ValueLayout.JAVA_BYTE), "value() of " + i);
            assertEquals(v.length, cache.valueSize(h));
            assertEquals(v.length, cache.charge(h));

            byte[] dst = new byte[v.length + 5];
            assertEquals(v.length, cache.copyValue(h, dst, 5));
            byte[] back = new byte[v.length];
            System.arraycopy(dst, 5, back, 0, v.length);
            assertArrayEquals(v, back, "copyValue(byte[]) of " + i);
            assertThrows(IllegalArgumentException.class, () -> cache.copyValue(h, dst, 6));
            assertThrows(IllegalArgumentException.class, () -> cache.copyValue(h, dst, -1));

            try (Arena arena = Arena.ofConfined()) {
                MemorySegment seg = arena.allocate(v.length + 9);
                assertEquals(v.length, cache.copyValue(h, seg, 9));
                assertArrayEquals(v, seg.asSlice(9).toArray(ValueLayout.JAVA_BYTE),
                        "copyValue(MemorySegment) of " + i);
                var e = assertThrows(IllegalArgumentException.class,
                        () -> cache.copyValue(h, seg, 10));
                assertTrue(e.getMessage().contains("dst"), e.getMessage());
            }
            cache.release(h);
        }
    }

    @Test
    void aPinnedValueIsIsolatedFromLaterWritesToTheSource() {
        LruCache cache = cache(1000, 0.5, 0);
        byte[] v = valueOf(5);
        long h = cache.insertPinned(5, key1(5), v, 0, v.length, C, LOW);
        v[0] ^= 0x55; // the cache holds a copy
        assertValueOf(cache, h, 5);
        cache.release(h);
    }

    @Test
    void metadataIsChargedByDefault() {
        LruCache cache = track(LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(10 * (C + 64)).numShardBits(0)
                .highPriPoolRatio(0.5).build());
        put(cache, 1, HIGH);
        put(cache, 2, LOW);
        assertEquals(2 * (C + 64), cache.usage());
        assertPools(cache, C + 64, 0, C + 64, 0);
        long h = lookup(cache, 1);
        assertEquals(C, cache.charge(h), "charge() is the caller's charge, without the record");
        assertEquals(C + 64, cache.pinnedUsage());
        cache.release(h);
        for (long k = 3; k <= 11; k++) {
            put(cache, k, LOW);
        }
        assertEquals(10, cache.entryCount());
        assertEquals(10 * (C + 64), cache.usage());
        assertTrue(cache.metadataBytes() > 0);
    }

    @Test
    void insertArgumentsAreChecked() {
        LruCache cache = cache(1000, 0.5, 0);
        long native0 = NativeMemory.outstandingBytes();
        byte[] v = valueOf(1);
        var e = assertThrows(IllegalArgumentException.class,
                () -> cache.insert(1, 1, v, 0, v.length, -1, LOW));
        assertTrue(e.getMessage().contains("charge"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> cache.insert(1, 1, v, 0, v.length, 1001, LOW));
        assertTrue(e.getMessage().contains("charge"), e.getMessage());
        var n = assertThrows(NullPointerException.class,
                () -> cache.insert(1, 1, v, 0, v.length, C, null));
        assertTrue(n.getMessage().contains("placement"), n.getMessage());
        n = assertThrows(NullPointerException.class,
                () -> cache.insert(1, 1, (byte[]) null, 0, 0, C, LOW));
        assertTrue(n.getMessage().contains("value"), n.getMessage());
        n = assertThrows(NullPointerException.class,
                () -> cache.insertPinned(1, 1, (MemorySegment) null, C, LOW));
        assertTrue(n.getMessage().contains("value"), n.getMessage());
        assertThrows(IndexOutOfBoundsException.class,
                () -> cache.insert(1, 1, v, 10, 10, C, LOW));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cache.insertPinned(1, 1, v, -1, 4, C, LOW));
        assertEquals(0, cache.entryCount());
        assertEquals(0, cache.usage());
        assertEquals(native0, NativeMemory.outstandingBytes(), "a rejected insert leaked");
    }
}
