package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * LRU capacity limits: a strict limit refuses a pinned insert that cannot fit (without one it
 * goes over capacity, and a plain insert that cannot fit is dropped), and {@code setCapacity}
 * evicts the oldest unpinned entries and resizes the pools.
 */
class LruCapacityTest extends LruCacheTestBase {
    @Test
    void strictLimitRefusesAPinnedInsertAndLeaksNothing() {
        LruCache cache = track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(300)
                .numShardBits(0)
                .chargeMetadata(false).strictCapacityLimit(true).build());
        assertTrue(cache.strictCapacityLimit());
        put(cache, 1, LOW);
        long a = pin(cache, 2, LOW);
        long b = pin(cache, 3, LOW);
        long c = pin(cache, 4, LOW); // evicts 1, the only unpinned entry
        assertEquals(Cache.MISS, lookup(cache, 1));
        assertEquals(300, cache.usage());
        long native0 = NativeMemory.outstandingBytes();
        byte[] v = valueOf(5);

        assertEquals(Cache.MISS, cache.insertPinned(5, key1(5), v, 0, v.length, C, HIGH));
        assertEquals(Cache.MISS, cache.insertPinned(5, key1(5), MemorySegment.ofArray(v), C, LOW));
        assertEquals(2, cache.stats().memoryLimitRejects());
        assertEquals(native0, NativeMemory.outstandingBytes(), "a refused insert leaked");
        assertEquals(300, cache.usage());
        assertEquals(3, cache.entryCount());

        // Without a handle: accepted "as if inserted and evicted at once", nothing stored.
        assertTrue(cache.insert(5, key1(5), v, 0, v.length, C, LOW));
        assertEquals(2, cache.stats().memoryLimitRejects(), "a dropped insert is not a reject");
        assertEquals(native0, NativeMemory.outstandingBytes(), "a dropped insert leaked");
        assertEquals(3, cache.entryCount());
        assertEquals(Cache.MISS, lookup(cache, 5));

        cache.release(a); // frees room: the next pinned insert evicts 2
        long d = cache.insertPinned(5, key1(5), v, 0, v.length, C, LOW);
        assertNotEquals(Cache.MISS, d);
        assertValueOf(cache, d, 5);
        assertEquals(Cache.MISS, lookup(cache, 2));
        for (long h : new long[] {b, c, d}) {
            cache.release(h);
        }
        assertEquals(0, cache.pinnedUsage());
        assertEquals(300, cache.usage());
    }

    @Test
    void withoutAStrictLimitAPinnedInsertGoesOverCapacity() {
        LruCache cache = cache(300, 0.5, 0);
        assertFalse(cache.strictCapacityLimit());
        long[] h = {pin(cache, 1, LOW), pin(cache, 2, LOW), pin(cache, 3, LOW), 0};
        h[3] = pin(cache, 4, LOW); // nothing to evict: stored over capacity
        assertEquals(400, cache.usage());
        assertEquals(400, cache.pinnedUsage());
        assertEquals(4, cache.entryCount());
        assertEquals(0, cache.stats().memoryLimitRejects());
        long native0 = NativeMemory.outstandingBytes();
        // A plain insert still cannot fit: accepted, dropped.
        byte[] v = valueOf(5);
        assertTrue(cache.insert(5, key1(5), v, 0, v.length, C, HIGH));
        assertEquals(native0, NativeMemory.outstandingBytes());
        assertEquals(4, cache.entryCount());

        // Releasing the last reference while over capacity frees the entry.
        assertTrue(cache.release(h[3]));
        assertEquals(300, cache.usage());
        assertEquals(3, cache.entryCount());
        // Now at capacity, not over: releases put entries back on the list.
        assertFalse(cache.release(h[0]));
        assertFalse(cache.release(h[1]));
        assertFalse(cache.release(h[2]));
        assertPools(cache, 0, 0, 300, 0);
        assertEquals(Set.of(1L, 2L, 3L), present(cache, 1, 2, 3, 4));
    }

    @Test
    void switchingTheStrictLimitOnLaterRefuses() {
        LruCache cache = cache(200, 0, 0);
        long a = pin(cache, 1, LOW);
        long b = pin(cache, 2, LOW);
        cache.setStrictCapacityLimit(true);
        assertTrue(cache.strictCapacityLimit());
        byte[] v = valueOf(3);
        assertEquals(Cache.MISS, cache.insertPinned(3, key1(3), v, 0, v.length, C, LOW));
        cache.setStrictCapacityLimit(false);
        long c = cache.insertPinned(3, key1(3), v, 0, v.length, C, LOW);
        assertNotEquals(Cache.MISS, c);
        assertEquals(300, cache.usage());
        assertTrue(cache.release(c));
        cache.release(a);
        cache.release(b);
        assertEquals(200, cache.usage());
    }

    @Test
    void setCapacityShrinkingEvictsTheOldestUnpinned() {
        LruCache cache = cache(1000, 0, 0);
        for (long k = 1; k <= 10; k++) {
            put(cache, k, LOW);
        }
        long evictions = cache.stats().evictions();
        cache.setCapacity(500);
        assertEquals(500, cache.capacity());
        assertEquals(500, cache.usage());
        assertEquals(5, cache.entryCount());
        assertEquals(evictions + 5, cache.stats().evictions());
        assertEquals(Set.of(6L, 7L, 8L, 9L, 10L), present(cache, keys(1, 10)));
    }

    @Test
    void setCapacityShrinksThePoolsToo() {
        LruCache cache = cache(1000, 0.3, 0.3);
        fillHlb(cache); // [3 6 9 2][5 8 1][4 7 10]
        // Pools shrink to 150 each: 4, 7 fall to low, then 5, 8, 1, 4 to bottom:
        // [3 6 9 2 5 8 1 4][7][10], of which the five oldest go.
        cache.setCapacity(500);
        assertPools(cache, 100, 100, 300, 0);
        assertArrayEquals(new long[] {8, 1, 4, 7, 10},
                listOrder(() -> build(1000, 0.3, 0.3),
                        c -> {
                            fillHlb(c);
                            c.setCapacity(500);
                        }, 8, 1, 4, 7, 10));
        // Growing back evicts nothing, and the pools grow with it.
        cache.setCapacity(1000);
        assertEquals(500, cache.usage());
        put(cache, 11, HIGH);
        put(cache, 12, HIGH);
        assertPools(cache, 300, 100, 300, 0);
        assertEquals(7, cache.entryCount());
    }

    @Test
    void setCapacityBelowPinnedUsageFreesEachReleaseUntilUsageFits() {
        LruCache cache = cache(1000, 0.5, 0);
        long[] h = new long[5];
        for (int i = 0; i < 5; i++) {
            h[i] = pin(cache, i + 1, HIGH);
        }
        put(cache, 6, LOW);
        cache.setCapacity(300);
        assertEquals(500, cache.usage(), "pinned entries stay; the unpinned one goes");
        assertEquals(5, cache.entryCount());
        assertTrue(cache.release(h[0]));  // 500 > 300: freed
        assertTrue(cache.release(h[1]));  // 400 > 300: freed
        assertFalse(cache.release(h[2])); // 300, not over: kept
        assertFalse(cache.release(h[3]));
        assertFalse(cache.release(h[4]));
        assertEquals(300, cache.usage());
        assertEquals(Set.of(3L, 4L, 5L), present(cache, keys(1, 6)));
    }

    @Test
    void setCapacityRejectsNonPositive() {
        LruCache cache = cache(1000, 0.5, 0);
        var e = assertThrows(IllegalArgumentException.class, () -> cache.setCapacity(0));
        assertTrue(e.getMessage().contains("capacity"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> cache.setCapacity(-1));
        assertEquals(1000, cache.capacity());
    }
}
