package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.BOTTOM;
import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Which entry LRU evicts: the oldest of the bottom pool, then of the low, then of the high, read
 * off as the order keys leave under inserts; pinned entries are never evicted.
 */
class LruEvictionTest extends LruCacheTestBase {
    // ---------------------------------------------------------------- eviction order

    /** A step that inserts a new BOTTOM key 101, 102, ... (as a scan would). */
    private static void insertBottomFiller(LruCache cache, int step) {
        put(cache, 101 + step, BOTTOM);
    }

    private static long[] concat(long[] a, long[] b) {
        long[] r = new long[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** Fills, then inserts BOTTOM keys 101..110 one at a time: which key does each evict? */
    private static long[] evictionOrderUnderBottomInserts(double high, double low) {
        return evictionOrder(() -> build(1000, high, low), LruCacheTestBase::fillHlb,
                LruEvictionTest::insertBottomFiller, 10,
                i -> concat(keys(1, 10), keys(101, 100 + i)));
    }

    @Test
    void evictionOrderWithoutPools() {
        // [1 2 3 4 5 6 7 8 9 10]: plain LRU, every key in turn.
        assertArrayEquals(keys(1, 10), evictionOrderUnderBottomInserts(0, 0));
    }

    @Test
    void evictionOrderWithHighPoolOnly() {
        // high 500: [2 3 5 6 8 9][][1 4 7 10]. BOTTOM inserts churn only the bottom pool: once
        // its entries are gone they evict each other, and the HIGH entries stay.
        assertArrayEquals(new long[] {2, 3, 5, 6, 8, 9, 101, 102, 103, 104},
                evictionOrderUnderBottomInserts(0.5, 0));
    }

    @Test
    void evictionOrderWithLowPoolOnly() {
        // low 500: HIGH and LOW enter the low pool; inserting 8 and 10 pushed 1 and 2 down:
        // [3 6 1 9 2][4 5 7 8 10][]
        assertArrayEquals(new long[] {3, 6, 1, 9, 2, 101, 102, 103, 104, 105},
                evictionOrderUnderBottomInserts(0, 0.5));
    }

    @Test
    void evictionOrderWithBothPools() {
        // high 300, low 300: inserting 10 pushed 1 into low and 2 into bottom:
        // [3 6 9 2][5 8 1][4 7 10]
        assertArrayEquals(new long[] {3, 6, 9, 2, 101, 102, 103, 104, 105, 106},
                evictionOrderUnderBottomInserts(0.3, 0.3));
    }

    @Test
    void oneInsertIntoAFullCacheEvictsExactlyTheOldestBottomEntry() {
        LruCache cache = cache(1000, 0.3, 0.3);
        fillHlb(cache); // [3 6 9 2][5 8 1][4 7 10]
        long evictions = cache.stats().evictions();
        put(cache, 11, HIGH); // evicts 3; high overflow: 4 to low, 5 to bottom
        assertEquals(evictions + 1, cache.stats().evictions());
        assertEquals(10, cache.entryCount());
        assertPools(cache, 300, 300, 400, 0);
        assertEquals(Set.of(1L, 2L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L),
                present(cache, keys(1, 11)));
    }

    @Test
    void theFullListOrderWithBothPools() {
        assertArrayEquals(new long[] {3, 6, 9, 2, 5, 8, 1, 4, 7, 10},
                listOrder(() -> build(1000, 0.3, 0.3), LruCacheTestBase::fillHlb, keys(1, 10)));
    }

    @Test
    void aLargeInsertEvictsSeveralOldestEntries() {
        LruCache cache = cache(1000, 0.3, 0.3);
        fillHlb(cache); // [3 6 9 2][5 8 1][4 7 10]
        byte[] v = valueOf(50);
        assertTrue(cache.insert(50, key1(50), v, 0, v.length, 250, BOTTOM)); // evicts 3, 6, 9
        assertEquals(950, cache.usage());
        assertEquals(8, cache.entryCount());
        assertEquals(Set.of(1L, 2L, 4L, 5L, 7L, 8L, 10L), present(cache, keys(1, 10)));
    }

    // ---------------------------------------------------------------- pinning

    @Test
    void pinnedEntriesAreNeverEvicted() {
        LruCache cache = cache(1000, 0.3, 0.3);
        long p = pin(cache, 1, BOTTOM);   // pinned by insert
        put(cache, 2, BOTTOM);
        long q = lookup(cache, 2);        // pinned by lookup
        assertPools(cache, 0, 0, 0, 200);
        for (long k = 3; k <= 60; k++) {
            put(cache, k, BOTTOM);        // evicts everything unpinned, over and over
        }
        assertEquals(1000, cache.usage());
        assertEquals(10, cache.entryCount());
        assertPools(cache, 0, 0, 800, 200);
        assertValueOf(cache, p, 1);
        assertValueOf(cache, q, 2);
        assertFalse(cache.release(p)); // usage == capacity: back on the list, bottom
        assertFalse(cache.release(q)); // was hit: high pool
        assertPools(cache, 100, 0, 900, 0);
        assertEquals(Set.of(1L, 2L), present(cache, 1, 2));
    }

    @Test
    void pinnedUsageCountsEachPinnedEntryOnce() {
        LruCache cache = cache(1000, 0.5, 0);
        long a = pin(cache, 1, LOW);
        long b = lookup(cache, 1);
        cache.ref(b);
        assertEquals(100, cache.pinnedUsage());
        long c = pin(cache, 2, HIGH);
        assertEquals(200, cache.pinnedUsage());
        assertEquals(200, cache.usage());
        cache.release(a);
        cache.release(b);
        assertEquals(200, cache.pinnedUsage());
        cache.release(b);
        assertEquals(100, cache.pinnedUsage());
        cache.release(c);
        assertPools(cache, 200, 0, 0, 0);
    }
}
