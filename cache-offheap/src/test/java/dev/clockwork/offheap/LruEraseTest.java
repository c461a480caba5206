package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.BOTTOM;
import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import org.junit.jupiter.api.Test;

/**
 * LRU erase and replace: an erased key is gone at once, its entry freed at its last release; an
 * insert of a present key replaces its entry.
 */
class LruEraseTest extends LruCacheTestBase {
    @Test
    void eraseWhilePinnedHidesTheKeyAtOnceAndFreesAtTheLastRelease() {
        LruCache cache = cache(1000, 0.5, 0);
        put(cache, 1, LOW);
        put(cache, 2, LOW);
        long h = lookup(cache, 1);
        long h2 = lookup(cache, 1);
        assertTrue(cache.erase(1, key1(1)));
        assertEquals(Cache.MISS, lookup(cache, 1));
        assertFalse(cache.erase(1, key1(1)));
        assertEquals(1, cache.entryCount());
        assertEquals(200, cache.usage(), "still charged while pinned");
        assertEquals(100, cache.pinnedUsage());
        assertValueOf(cache, h, 1);

        // A new entry under the same key is independent of the erased one.
        byte[] v = valueOf(1001);
        assertTrue(cache.insert(1, key1(1), v, 0, v.length, C, LOW));
        assertEquals(300, cache.usage());
        long fresh = lookup(cache, 1);
        assertValueOf(cache, fresh, 1001);
        cache.release(fresh);
        assertValueOf(cache, h, 1);

        assertFalse(cache.release(h));
        assertEquals(300, cache.usage());
        assertTrue(cache.release(h2), "the last release frees the erased entry");
        assertEquals(200, cache.usage());
        assertEquals(0, cache.pinnedUsage());
        assertEquals(2, cache.entryCount());
        assertTrue(cache.erase(1, key1(1)), "the new entry is still there");
        assertEquals(100, cache.usage());
    }

    @Test
    void eraseOfAnUnpinnedEntryFreesItNow() {
        LruCache cache = cache(1000, 0.3, 0.3);
        put(cache, 1, HIGH);
        put(cache, 2, LOW);
        put(cache, 3, BOTTOM);
        assertTrue(cache.erase(2, key1(2)));
        assertFalse(cache.erase(2, key1(2)));
        assertFalse(cache.erase(99, key1(99)));
        assertPools(cache, 100, 0, 100, 0);
        assertEquals(2, cache.entryCount());
    }

    @Test
    void releaseWithEraseIfLastRefErasesOnlyOnTheLastReference() {
        LruCache cache = cache(1000, 0.5, 0);
        put(cache, 1, LOW);
        long a = lookup(cache, 1);
        long b = lookup(cache, 1);
        assertFalse(cache.release(a, true), "not the last reference: nothing happens");
        assertEquals(1, cache.entryCount());
        assertTrue(cache.release(b, true));
        assertEquals(0, cache.entryCount());
        assertEquals(0, cache.usage());
        assertEquals(Cache.MISS, lookup(cache, 1));
    }

    @Test
    void insertReplacesAnExistingKey() {
        // RocksDB's LRUCache: a second insert of a key replaces the entry.
        LruCache cache = cache(1000, 0.5, 0);
        put(cache, 1, LOW);
        long old = lookup(cache, 1);
        byte[] v = valueOf(77);
        long h = cache.insertPinned(1, key1(1), v, 0, v.length, 200, LOW);
        assertEquals(300, cache.usage());
        assertEquals(1, cache.entryCount());
        long found = lookup(cache, 1);
        assertValueOf(cache, found, 77);
        assertEquals(200, cache.charge(found));
        assertValueOf(cache, old, 1);
        assertTrue(cache.release(old), "the replaced entry goes at its last release");
        cache.release(found);
        cache.release(h);
        assertEquals(200, cache.usage());
        put(cache, 1, LOW); // replaces an unpinned entry: freed at once
        assertEquals(100, cache.usage());
        assertEquals(1, cache.entryCount());
    }
}
