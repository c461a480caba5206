package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.BOTTOM;
import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import dev.clockwork.offheap.lru.LruHandle;
import dev.clockwork.offheap.lru.LruShard;
import dev.clockwork.offheap.entry.EntryStamp;

/**
 * The LRU cache's rules (RocksDB's LRUCache with three priority pools), checked through the public
 * API only.
 *
 * <p>Most rule tests use one shard ({@code numShardBits(0)}), no metadata charge and a charge of
 * {@value #C} per entry, so a capacity of 1000 holds exactly 10 entries and pool capacities are
 * whole entries. The list order is not visible directly; it is read off behaviour:
 * {@link #evictionOrder} replays a scenario on fresh caches and, after 1, 2, 3... evicting steps,
 * probes which keys are gone. Probes are lookups, and a lookup is a hit that moves an entry, so a
 * probed cache is thrown away and each step is replayed from scratch.
 *
 * <p>Lists below are written oldest first, pools in brackets: {@code [bottom][low][high]}.
 */
class LruCacheTest {
    /** The charge of every entry in the rule tests. */
    private static final long C = 100;

    private final List<Cache> caches = new ArrayList<>();

    @AfterEach
    void closeAllAndCheckNativeMemory() {
        caches.forEach(Cache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    private <T extends Cache> T track(T cache) {
        caches.add(cache);
        return cache;
    }

    /** One shard, no metadata charge: usage is the sum of the charges given. */
    private static LruCache build(long capacity, double high, double low) {
        return LruCache.builder().capacity(capacity).numShardBits(0).chargeMetadata(false)
                .highPriPoolRatio(high).lowPriPoolRatio(low).build();
    }

    private LruCache cache(long capacity, double high, double low) {
        return track(build(capacity, high, low));
    }

    // ---------------------------------------------------------------- keys and values

    private static long key1(long key) {
        return key * 0x9E37_79B9_7F4A_7C15L + 7;
    }

    /** 16 bytes that name their key: the key, then its complement. */
    private static byte[] valueOf(long key) {
        byte[] v = new byte[16];
        MemorySegment s = MemorySegment.ofArray(v);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, key);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, ~key);
        return v;
    }

    private static void put(Cache cache, long key, Priority priority) {
        byte[] v = valueOf(key);
        assertTrue(cache.insert(key, key1(key), v, 0, v.length, C, priority), "insert " + key);
    }

    private static long pin(Cache cache, long key, Priority priority) {
        byte[] v = valueOf(key);
        long h = cache.insertPinned(key, key1(key), v, 0, v.length, C, priority);
        assertNotEquals(Cache.MISS, h, "insertPinned " + key);
        return h;
    }

    private static long lookup(Cache cache, long key) {
        return cache.lookup(key, key1(key));
    }

    private static void assertValueOf(Cache cache, long handle, long key) {
        assertArrayEquals(valueOf(key), cache.value(handle).toArray(ValueLayout.JAVA_BYTE),
                "value of key " + key);
    }

    /** A hit: look the key up, check its value, release it (which re-places it on the list). */
    private static void hit(Cache cache, long key) {
        long h = lookup(cache, key);
        assertNotEquals(Cache.MISS, h, "key " + key + " missing");
        assertValueOf(cache, h, key);
        assertFalse(cache.release(h), "a release within capacity keeps the entry");
    }

    /**
     * Which of {@code keys} are in the cache. Destructive: each present key is hit and moves, so
     * call it only when the cache's order no longer matters.
     */
    private static Set<Long> present(Cache cache, long... keys) {
        Set<Long> found = new HashSet<>();
        for (long k : keys) {
            long h = lookup(cache, k);
            if (h != Cache.MISS) {
                assertValueOf(cache, h, k);
                cache.release(h);
                found.add(k);
            }
        }
        return found;
    }

    private static long[] keys(int from, int to) {
        long[] k = new long[to - from + 1];
        for (int i = 0; i < k.length; i++) {
            k[i] = from + i;
        }
        return k;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] r = new long[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** A step that evicts exactly the oldest entry of the list: shrink capacity by one byte. */
    private static void shrinkByOneEntry(LruCache cache, int step) {
        cache.setCapacity(cache.usage() - 1);
    }

    /** A step that inserts a new BOTTOM key 101, 102, ... (as a scan would). */
    private static void insertBottomFiller(LruCache cache, int step) {
        put(cache, 101 + step, BOTTOM);
    }

    interface Step {
        void run(LruCache cache, int step);
    }

    /**
     * The keys in the order they leave the cache when {@code step} runs {@code steps} times after
     * {@code scenario}. For each i, a fresh cache replays the scenario and i steps, and only then
     * is probed; exactly one key must leave per step. {@code stored.apply(i)} lists the keys the
     * cache would hold after i steps if nothing were evicted.
     */
    private static long[] evictionOrder(Supplier<LruCache> fresh, Consumer<LruCache> scenario,
                                        Step step, int steps, IntFunction<long[]> stored) {
        long[] order = new long[steps];
        Set<Long> goneBefore = new HashSet<>();
        for (int i = 1; i <= steps; i++) {
            try (LruCache cache = fresh.get()) {
                scenario.accept(cache);
                for (int s = 0; s < i; s++) {
                    step.run(cache, s);
                }
                long[] universe = stored.apply(i);
                Set<Long> gone = new HashSet<>();
                for (long k : universe) {
                    gone.add(k);
                }
                gone.removeAll(present(cache, universe));
                assertTrue(gone.containsAll(goneBefore), "a key came back at step " + i);
                Set<Long> newlyGone = new HashSet<>(gone);
                newlyGone.removeAll(goneBefore);
                assertEquals(1, newlyGone.size(), "step " + i + " evicted " + newlyGone);
                order[i - 1] = newlyGone.iterator().next();
                goneBefore = gone;
            }
        }
        return order;
    }

    /** The whole list of the scenario's cache, oldest first, holding exactly {@code keys}. */
    private static long[] listOrder(Supplier<LruCache> fresh, Consumer<LruCache> scenario,
                                    long... keys) {
        return evictionOrder(fresh, scenario, LruCacheTest::shrinkByOneEntry, keys.length,
                i -> keys);
    }

    private static void assertPools(LruCache cache, long high, long low, long bottom, long pinned) {
        assertEquals(new LruCache.PoolUsage(high, low, bottom, pinned), cache.poolUsage());
        assertEquals(cache.usage(), cache.poolUsage().total());
        assertEquals(pinned, cache.pinnedUsage());
    }

    // ---------------------------------------------------------------- insertion position

    /** Keys 1..6: HIGH, LOW, BOTTOM, HIGH, LOW, BOTTOM. */
    private static void insertHlbHlb(LruCache cache) {
        Priority[] p = {HIGH, LOW, BOTTOM};
        for (int k = 1; k <= 6; k++) {
            put(cache, k, p[(k - 1) % 3]);
        }
    }

    @Test
    void insertionWithoutPoolsIsPlainLruWhateverThePriority() {
        assertPoolsAfter(0, 0, 0, 0, 600);
        // [1 2 3 4 5 6][][]
        assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6},
                listOrder(() -> build(1000, 0, 0), LruCacheTest::insertHlbHlb, keys(1, 6)));
    }

    @Test
    void insertionWithHighPoolOnly() {
        assertPoolsAfter(0.5, 0, 200, 0, 400);
        // HIGH to the high pool; no low pool, so LOW falls to bottom: [2 3 5 6][][1 4]
        assertArrayEquals(new long[] {2, 3, 5, 6, 1, 4},
                listOrder(() -> build(1000, 0.5, 0), LruCacheTest::insertHlbHlb, keys(1, 6)));
    }

    @Test
    void insertionWithLowPoolOnly() {
        assertPoolsAfter(0, 0.5, 0, 400, 200);
        // No high pool: HIGH falls to the low pool with LOW: [3 6][1 2 4 5][]
        assertArrayEquals(new long[] {3, 6, 1, 2, 4, 5},
                listOrder(() -> build(1000, 0, 0.5), LruCacheTest::insertHlbHlb, keys(1, 6)));
    }

    @Test
    void insertionWithBothPools() {
        assertPoolsAfter(0.3, 0.3, 200, 200, 200);
        // [3 6][2 5][1 4]
        assertArrayEquals(new long[] {3, 6, 2, 5, 1, 4},
                listOrder(() -> build(1000, 0.3, 0.3), LruCacheTest::insertHlbHlb, keys(1, 6)));
    }

    private void assertPoolsAfter(double high, double low, long highUsage, long lowUsage,
                                  long bottomUsage) {
        LruCache cache = cache(1000, high, low);
        insertHlbHlb(cache);
        assertPools(cache, highUsage, lowUsage, bottomUsage, 0);
        assertEquals(6, cache.entryCount());
        assertEquals(600, cache.usage());
    }

    @Test
    void eachPoolTakesNewEntriesAtItsNewestEnd() {
        // Insert into each pool after the pool above it is already populated.
        Consumer<LruCache> scenario = c -> {
            put(c, 1, HIGH);
            put(c, 2, HIGH);
            put(c, 3, LOW);
            put(c, 4, BOTTOM);
            put(c, 5, LOW);    // after 3, before the high pool
            put(c, 6, BOTTOM); // after 4, before the low pool
            put(c, 7, HIGH);   // the newest of all
        };
        assertArrayEquals(new long[] {4, 6, 3, 5, 1, 2, 7},
                listOrder(() -> build(1000, 0.3, 0.3), scenario, keys(1, 7)));
        LruCache cache = cache(1000, 0.3, 0.3);
        scenario.accept(cache);
        assertPools(cache, 300, 200, 200, 0);
    }

    // ---------------------------------------------------------------- promotion on hit

    @Test
    void aHitPromotesToTheHighPoolOnRelease() {
        Consumer<LruCache> scenario = c -> {
            put(c, 1, BOTTOM);
            put(c, 2, LOW);
            put(c, 3, HIGH); // [1][2][3]
            hit(c, 1);       // [][2][3 1]
        };
        assertArrayEquals(new long[] {2, 3, 1},
                listOrder(() -> build(1000, 0.3, 0.3), scenario, keys(1, 3)));
        LruCache cache = cache(1000, 0.3, 0.3);
        scenario.accept(cache);
        assertPools(cache, 200, 100, 0, 0);
        hit(cache, 2); // [][][3 1 2]: exactly the high pool's 300
        assertPools(cache, 300, 0, 0, 0);
    }

    @Test
    void aHitPromotesALowEntryToTheHighPoolWithoutALowPool() {
        Consumer<LruCache> scenario = c -> {
            put(c, 1, LOW);
            put(c, 2, LOW);
            put(c, 3, HIGH); // [1 2][][3]
            hit(c, 1);       // [2][][3 1]
        };
        assertArrayEquals(new long[] {2, 3, 1},
                listOrder(() -> build(1000, 0.5, 0), scenario, keys(1, 3)));
        LruCache cache = cache(1000, 0.5, 0);
        scenario.accept(cache);
        assertPools(cache, 200, 0, 100, 0);
    }

    @Test
    void withoutAHighPoolAHitGoesToTheLowPool() {
        Consumer<LruCache> scenario = c -> {
            put(c, 1, BOTTOM);
            put(c, 2, BOTTOM);
            put(c, 3, LOW);    // [1 2][3][]
            hit(c, 1);         // [2][3 1][]
            put(c, 4, BOTTOM); // [2 4][3 1][]
        };
        assertArrayEquals(new long[] {2, 4, 3, 1},
                listOrder(() -> build(1000, 0, 0.5), scenario, keys(1, 4)));
        LruCache cache = cache(1000, 0, 0.5);
        scenario.accept(cache);
        assertPools(cache, 0, 200, 200, 0);
    }

    @Test
    void withoutPoolsAHitGoesToTheNewestEnd() {
        Consumer<LruCache> scenario = c -> {
            put(c, 1, HIGH);
            put(c, 2, LOW);
            put(c, 3, BOTTOM);
            hit(c, 1);
        };
        assertArrayEquals(new long[] {2, 3, 1},
                listOrder(() -> build(1000, 0, 0), scenario, keys(1, 3)));
    }

    @Test
    void aLookedUpEntryIsOffTheListUntilItsLastRelease() {
        LruCache cache = cache(1000, 0.3, 0.3);
        put(cache, 1, BOTTOM);
        put(cache, 2, LOW);
        assertPools(cache, 0, 100, 100, 0);
        long a = lookup(cache, 1);
        long b = lookup(cache, 1); // a second reference
        assertPools(cache, 0, 100, 0, 100);
        assertFalse(cache.release(a));
        assertPools(cache, 0, 100, 0, 100); // still pinned by b
        cache.ref(b);
        assertFalse(cache.release(b));
        assertPools(cache, 0, 100, 0, 100);
        assertFalse(cache.release(b));
        assertPools(cache, 100, 100, 0, 0); // the last release: to the high pool
        assertEquals(2, cache.entryCount());
    }

    @Test
    void aPinnedInsertThatWasNeverLookedUpReturnsByItsPriority() {
        // Inserting with a handle is not a hit (RocksDB: no HAS_HIT on insert).
        Consumer<LruCache> scenario = c -> {
            put(c, 1, BOTTOM);
            long h = pin(c, 2, BOTTOM);
            put(c, 3, BOTTOM);
            c.release(h); // [1 3 2][][]: the bottom pool's newest end, not the high pool
        };
        assertArrayEquals(new long[] {1, 3, 2},
                listOrder(() -> build(1000, 0.5, 0.3), scenario, keys(1, 3)));
        LruCache cache = cache(1000, 0.5, 0.3);
        scenario.accept(cache);
        assertPools(cache, 0, 0, 300, 0);
    }

    // ---------------------------------------------------------------- overflow demotion

    @Test
    void overflowDemotesHighToLowToBottom() {
        // high pool <= 300, low pool <= 200.
        Consumer<LruCache> sixHigh = c -> {
            for (long k = 1; k <= 6; k++) {
                put(c, k, HIGH);
            }
        };
        LruCache cache = cache(1000, 0.3, 0.2);
        sixHigh.accept(cache);
        // 1, 2, 3 overflowed the high pool into the low pool; 1 overflowed on to bottom:
        // [1][2 3][4 5 6]
        assertPools(cache, 300, 200, 100, 0);
        put(cache, 7, LOW);    // [1][2 3 7][4 5 6] is 300 in low: 2 falls: [1 2][3 7][4 5 6]
        assertPools(cache, 300, 200, 200, 0);
        put(cache, 8, BOTTOM); // [1 2 8][3 7][4 5 6]
        assertPools(cache, 300, 200, 300, 0);

        assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6},
                listOrder(() -> build(1000, 0.3, 0.2), sixHigh, keys(1, 6)));
        assertArrayEquals(new long[] {1, 2, 8, 3, 7, 4, 5, 6},
                listOrder(() -> build(1000, 0.3, 0.2), sixHigh.andThen(c -> {
                    put(c, 7, LOW);
                    put(c, 8, BOTTOM);
                }), keys(1, 8)));
    }

    @Test
    void withoutALowPoolHighOverflowFallsToTheBottomPoolsNewestEnd() {
        Consumer<LruCache> scenario = c -> {
            put(c, 1, BOTTOM);
            put(c, 2, HIGH);
            put(c, 3, HIGH);
            put(c, 4, HIGH);   // the high pool holds 200: 2 falls after 1: [1 2][][3 4]
            put(c, 5, BOTTOM); // [1 2 5][][3 4]
        };
        assertArrayEquals(new long[] {1, 2, 5, 3, 4},
                listOrder(() -> build(1000, 0.2, 0), scenario, keys(1, 5)));
        LruCache cache = cache(1000, 0.2, 0);
        scenario.accept(cache);
        assertPools(cache, 200, 0, 300, 0);
    }

    @Test
    void lowOverflowFallsToTheBottomPoolsNewestEnd() {
        Consumer<LruCache> scenario = c -> {
            put(c, 1, BOTTOM);
            put(c, 2, LOW);
            put(c, 3, HIGH);   // no high pool: HIGH enters the low pool
            put(c, 4, LOW);    // the low pool holds 200: 2 falls after 1: [1 2][3 4][]
            put(c, 5, BOTTOM); // [1 2 5][3 4][]
        };
        assertArrayEquals(new long[] {1, 2, 5, 3, 4},
                listOrder(() -> build(1000, 0, 0.2), scenario, keys(1, 5)));
        LruCache cache = cache(1000, 0, 0.2);
        scenario.accept(cache);
        assertPools(cache, 0, 200, 300, 0);
    }

    @Test
    void aPromotionCanCascadeThroughBothPools() {
        Consumer<LruCache> scenario = c -> {
            put(c, 1, HIGH);
            put(c, 2, HIGH);
            put(c, 3, LOW);
            put(c, 4, LOW);
            put(c, 5, BOTTOM); // [5][3 4][1 2], both pools full
            hit(c, 5);         // [][3 4 1][2 5] -> [3][4 1][2 5]
        };
        assertArrayEquals(new long[] {3, 4, 1, 2, 5},
                listOrder(() -> build(1000, 0.2, 0.2), scenario, keys(1, 5)));
        LruCache cache = cache(1000, 0.2, 0.2);
        scenario.accept(cache);
        assertPools(cache, 200, 200, 100, 0);
    }

    // ---------------------------------------------------------------- eviction order

    /** Keys 1..10, priorities HIGH, LOW, BOTTOM, HIGH, ...: fills a capacity of 1000. */
    private static void fillHlb(LruCache cache) {
        Priority[] p = {HIGH, LOW, BOTTOM};
        for (int k = 1; k <= 10; k++) {
            put(cache, k, p[(k - 1) % 3]);
        }
        assertEquals(1000, cache.usage());
        assertEquals(10, cache.entryCount());
    }

    /** Fills, then inserts BOTTOM keys 101..110 one at a time: which key does each evict? */
    private static long[] evictionOrderUnderBottomInserts(double high, double low) {
        return evictionOrder(() -> build(1000, high, low), LruCacheTest::fillHlb,
                LruCacheTest::insertBottomFiller, 10, i -> concat(keys(1, 10), keys(101, 100 + i)));
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
                listOrder(() -> build(1000, 0.3, 0.3), LruCacheTest::fillHlb, keys(1, 10)));
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

    // ---------------------------------------------------------------- capacity limits

    @Test
    void strictLimitRefusesAPinnedInsertAndLeaksNothing() {
        LruCache cache = track(LruCache.builder().capacity(300).numShardBits(0)
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

    // ---------------------------------------------------------------- erase

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

    // ---------------------------------------------------------------- values

    @Test
    void valuesReadBackByteExact() {
        LruCache cache = track(LruCache.builder().capacity(8 << 20).numShardBits(2).build());
        int[] lengths = {0, 1, 7, 8, 63, 64, 65, 1000, 4096, 100_003, 1 << 20};
        for (int i = 0; i < lengths.length; i++) {
            byte[] v = pattern(lengths[i], i);
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
            byte[] v = pattern(lengths[i], i);
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

    private static byte[] pattern(int length, int seed) {
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

    @Test
    void metadataIsChargedByDefault() {
        LruCache cache = track(LruCache.builder().capacity(10 * (C + 64)).numShardBits(0)
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
        assertTrue(n.getMessage().contains("priority"), n.getMessage());
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

    // ---------------------------------------------------------------- misuse

    @Test
    void doubleReleaseThrowsAndLeavesTheCacheUsable() {
        LruCache cache = cache(1000, 0.5, 0);
        long a = pin(cache, 1, LOW);
        assertFalse(cache.release(a));
        assertRefusedUnderTheLock(cache, a);
        // Reading through a handle released too early, while its entry is still cached, is not
        // refused (LruShard.recordAddress checks one word, the generation); but it can only ever
        // give the key's own bytes.
        assertValueOfOrRefused(cache, a, 1);

        put(cache, 2, LOW);
        long b = lookup(cache, 2);
        assertFalse(cache.release(b));
        assertThrows(IllegalStateException.class, () -> cache.release(b));
        assertPools(cache, 100, 0, 100, 0);
        assertEquals(Set.of(1L, 2L), present(cache, 1, 2));
    }

    /** Each misuse must throw one of the two exceptions the API names, and change nothing. */
    private static void assertRefusedBy(LruCache cache, long handle, Executable... uses) {
        LruCache.PoolUsage before = cache.poolUsage();
        long entries = cache.entryCount();
        for (Executable use : uses) {
            Throwable t = assertThrows(RuntimeException.class, use,
                    "handle " + Long.toHexString(handle) + " was accepted");
            assertTrue(t instanceof IllegalArgumentException || t instanceof IllegalStateException,
                    "unexpected " + t);
        }
        assertEquals(before, cache.poolUsage());
        assertEquals(entries, cache.entryCount());
    }

    /** Release and ref, checked under the shard lock, refuse {@code handle}. */
    private static void assertRefusedUnderTheLock(LruCache cache, long handle) {
        assertRefusedBy(cache, handle,
                () -> cache.release(handle),
                () -> cache.release(handle, true),
                () -> cache.ref(handle));
    }

    /** Every way to use a handle refuses {@code handle}, the lock-free value reads included. */
    private static void assertRefused(LruCache cache, long handle) {
        assertRefusedUnderTheLock(cache, handle);
        assertRefusedBy(cache, handle,
                () -> cache.value(handle),
                () -> cache.valueSize(handle),
                () -> cache.charge(handle),
                () -> cache.copyValue(handle, new byte[1 << 10], 0),
                () -> cache.copyValue(handle, MemorySegment.ofArray(new byte[1 << 10]), 0));
    }

    /** A handle of a cached, unpinned entry: refused, or read as that entry's own value. */
    private static void assertValueOfOrRefused(LruCache cache, long handle, long key) {
        MemorySegment v;
        try {
            v = cache.value(handle);
        } catch (IllegalStateException refused) {
            return;
        }
        assertArrayEquals(valueOf(key), v.toArray(ValueLayout.JAVA_BYTE));
    }

    /** The same record, another generation in the check: a handle never handed out for it. */
    private static long otherGeneration(long handle, int delta) {
        long checkMask = ((1L << EntryStamp.CHECK_BITS) - 1) << EntryStamp.CHECK_SHIFT;
        long check = (handle + ((long) delta << EntryStamp.CHECK_SHIFT)) & checkMask;
        return (handle & ~checkMask) | check;
    }

    /** A handle with the given check (a generation) and location (a one-shard cache's record). */
    private static long madeUp(long check, long location) {
        return (check << EntryStamp.CHECK_SHIFT) | location;
    }

    @Test
    void madeUpHandlesThrowAndLeaveTheCacheUsable() {
        LruCache cache = cache(1000, 0.5, 0);
        long pinned = pin(cache, 1, LOW);
        put(cache, 2, HIGH);
        long two = lookup(cache, 2);
        assertFalse(cache.release(two)); // a real handle, of an entry no longer pinned
        long[] madeUp = {
            Cache.MISS, 12345L, -1L, Long.MAX_VALUE, Long.MIN_VALUE,
            madeUp(1, 0),                                   // record 0 is "none"
            madeUp(1 << 7, 1024),                           // a chunk that is not there
            madeUp(1, 0x7FFF_FFFFL),                        // the largest index
            madeUp(1, EntryStamp.KIND | LruHandle.index(pinned, 0)), // a kind LRU never has
            otherGeneration(pinned, 1), otherGeneration(pinned, -1),
            otherGeneration(pinned, 1 << 14),
            otherGeneration(two, 1), otherGeneration(two, 12345),
        };
        for (long h : madeUp) {
            assertNotEquals(pinned, h);
            assertRefused(cache, h);
        }
        assertRefusedUnderTheLock(cache, two);
        assertValueOfOrRefused(cache, two, 2);
        // Records never handed out: not pinned, whatever the generation.
        for (int g = 0; g < 4; g++) {
            assertRefusedUnderTheLock(cache, madeUp(2 * g + 1, 3));
            assertRefusedUnderTheLock(cache, madeUp(2 * g + 1, 1023));
        }

        assertValueOf(cache, pinned, 1);
        assertFalse(cache.release(pinned));
        assertPools(cache, 100, 0, 100, 0);
        assertEquals(Set.of(1L, 2L), present(cache, 1, 2));
        put(cache, 3, BOTTOM);
        assertEquals(3, cache.entryCount());
    }

    @Test
    void aStaleHandleIsRefusedAfterItsRecordIsReused() {
        LruCache cache = cache(1000, 0.5, 0);
        long stale = pin(cache, 1, LOW);
        assertTrue(cache.release(stale, true)); // freed; its record is free
        assertRefused(cache, stale);
        long reuse = pin(cache, 2, LOW);       // takes the same record again
        assertEquals(LruHandle.index(stale, 0), LruHandle.index(reuse, 0), "the record was reused");
        assertNotEquals(stale, reuse);
        assertRefused(cache, stale);
        assertValueOf(cache, reuse, 2);
        assertFalse(cache.release(reuse));
        assertRefusedUnderTheLock(cache, reuse);

        // Evicted rather than erased: the same.
        LruCache small = cache(200, 0, 0);
        long h = pin(small, 1, LOW);
        small.release(h);
        put(small, 2, LOW);
        assertRefusedUnderTheLock(small, h);
        put(small, 3, LOW); // evicts 1 and takes its record
        assertRefused(small, h);
        long other = pin(small, 4, LOW);
        assertRefused(small, h);
        small.release(other);
        assertEquals(Set.of(3L, 4L), present(small, 1, 2, 3, 4));
    }

    @Test
    void aHandleFromAnotherLruCacheIsRefused() {
        LruCache cache = cache(1000, 0.5, 0);
        LruCache other = cache(1000, 0.5, 0);
        long mine = pin(cache, 1, LOW);
        put(cache, 2, LOW);
        // The other cache's record 1 in a generation this cache's record 1 is not in.
        long theirs = pin(other, 7, LOW);
        other.release(theirs, true);
        long theirs2 = pin(other, 8, LOW);
        assertEquals(LruHandle.index(mine, 0), LruHandle.index(theirs2, 0));
        assertNotEquals(mine, theirs2);
        assertRefused(cache, theirs2);
        // A record this cache never handed out: nothing to release.
        long[] more = new long[3];
        for (int i = 0; i < more.length; i++) {
            more[i] = pin(other, 20 + i, LOW);
        }
        assertRefusedUnderTheLock(cache, more[2]);
        // A handle of a shard this cache does not have.
        LruCache sharded = track(LruCache.builder().capacity(1 << 20).numShardBits(4).build());
        long far = Cache.MISS;
        for (long k = 0; far == Cache.MISS; k++) {
            byte[] v = valueOf(k);
            long h = sharded.insertPinned(k, key1(k), v, 0, v.length, C, LOW);
            if (LruHandle.shard(h, 4) != 0) {
                far = h;
            } else {
                sharded.release(h);
            }
        }
        assertRefused(cache, far);

        assertValueOf(cache, mine, 1);
        assertFalse(cache.release(mine));
        assertEquals(Set.of(1L, 2L), present(cache, 1, 2));
        other.release(theirs2);
        for (long h : more) {
            other.release(h);
        }
        sharded.release(far);
    }

    /**
     * Two fresh caches hand out handles for the same record (shard 0, index 1) whose checks are
     * drawn from each cache's own salt; so a handle of one is refused by the other, instead of
     * reading or releasing its own entry. The checks coincide for 1 pair of caches in 2^31: then
     * the next cache is tried.
     */
    @Test
    void aForeignHandleOfTheSameRecordIsRefused() {
        LruCache cache = cache(1000, 0.5, 0);
        long mine = pin(cache, 1, LOW);
        LruCache other = cache(1000, 0.5, 0);
        long theirs = pin(other, 2, LOW);
        if (theirs == mine) {
            other = cache(1000, 0.5, 0);
            theirs = pin(other, 2, LOW);
        }
        assertNotEquals(mine, theirs);
        assertEquals(LruHandle.index(mine, 0), LruHandle.index(theirs, 0), "same record, other cache");
        long foreign = theirs;
        assertThrows(IllegalStateException.class, () -> cache.value(foreign),
                "another cache's handle read this cache's entry");
        assertThrows(IllegalStateException.class, () -> cache.release(foreign),
                "another cache's handle released this cache's entry");
        assertValueOf(cache, mine, 1);
        // Both caches are closed by closeAllAndCheckNativeMemory, pinned entries and all.
    }

    /**
     * No check makes a handle name a record that holds no entry: neither a freed record (whose
     * value was freed) nor one never handed out (here the first 2^16 of the 2^31 checks). Never
     * reads through a segment.
     */
    @Test
    void noHandleReadsARecordThatHoldsNoEntry() {
        LruCache cache = cache(1000, 0.5, 0);
        long h = pin(cache, 1, LOW);
        put(cache, 2, LOW);
        assertTrue(cache.release(h, true)); // record of key 1: free
        int freeRecord = LruHandle.index(h, 0);
        int neverUsed = 1000;
        for (int index : new int[] {freeRecord, neverUsed}) {
            for (int g = 0; g < 1 << 16; g++) {
                long madeUp = madeUp(g, index);
                assertThrows(IllegalStateException.class, () -> cache.value(madeUp),
                        "value() accepted " + Long.toHexString(madeUp)
                                + ", naming a record that holds no entry");
            }
        }
    }

    @Test
    void hyperClockHandlesAreRefused() {
        LruCache cache = cache(1000, 0.5, 0);
        long mine = pin(cache, 1, LOW);
        FixedHyperClockCache clock = track(FixedHyperClockCache.builder().capacity(1 << 20)
                .estimatedEntryCharge(1024).numShardBits(0).build());
        byte[] v = valueOf(1);
        long table = clock.insertPinned(1, key1(1), v, 0, v.length, C, LOW);
        long standalone = clock.insertPinned(1, key1(1), v, 0, v.length, C, LOW);
        assertNotEquals(Cache.MISS, table);
        assertNotEquals(Cache.MISS, standalone);
        assertRefused(cache, table);
        assertRefused(cache, standalone);
        // And the other way round.
        var t = assertThrows(RuntimeException.class, () -> clock.release(mine));
        assertTrue(t instanceof IllegalArgumentException || t instanceof IllegalStateException);
        clock.release(table);
        clock.release(standalone);
        assertValueOf(cache, mine, 1);
        assertFalse(cache.release(mine));
        assertEquals(Set.of(1L), present(cache, 1));
    }

    @Test
    void closeWithEntriesStillPinnedFreesEveryNativeByte() {
        long native0 = NativeMemory.outstandingBytes();
        LruCache cache = LruCache.builder().capacity(2 << 20).numShardBits(1)
                .highPriPoolRatio(0.3).lowPriPoolRatio(0.3).build();
        List<Long> held = new ArrayList<>();
        for (long k = 0; k < 6000; k++) { // more than one slab chunk (1023 records) per shard
            byte[] v = pattern((int) (k % 700), (int) k);
            cache.insert(k, key1(k), v, 0, v.length, v.length, Priority.values()[(int) (k % 3)]);
        }
        assertTrue(cache.entryCount() > 2 * 1023, "entries: " + cache.entryCount());
        for (long k = 0; k < 6000; k += 7) {
            long h = lookup(cache, k);
            if (h != Cache.MISS) {
                held.add(h);
                if (k % 2 == 0) {
                    cache.ref(h); // two references
                }
            }
        }
        for (long k = 0; k < 6000; k += 21) {
            cache.erase(k, key1(k)); // erased while pinned: freed at release, or at close
        }
        byte[] v = pattern(5000, 1);
        held.add(cache.insertPinned(-1, -1, v, 0, v.length, v.length, HIGH));
        assertTrue(cache.pinnedUsage() > 0);
        assertTrue(held.size() > 100);
        cache.close();
        assertEquals(native0, NativeMemory.outstandingBytes(), "close left native bytes");
        for (long h : held.subList(0, 3)) {
            assertThrows(IllegalStateException.class, () -> cache.release(h));
        }
    }

    // ---------------------------------------------------------------- builder

    @Test
    void builderArgumentsAreCheckedAndNamed() {
        assertBuildFails(LruCache.builder(), "capacity");
        assertBuildFails(LruCache.builder().capacity(0), "capacity");
        assertBuildFails(LruCache.builder().capacity(-1), "capacity");
        assertBuildFails(LruCache.builder().capacity(1000).numShardBits(17), "numShardBits");
        assertBuildFails(LruCache.builder().capacity(1000).numShardBits(-2), "numShardBits");
        for (double bad : new double[] {-0.01, -1, 1.01, 2, Double.NaN,
                Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertBuildFails(LruCache.builder().capacity(1000).highPriPoolRatio(bad),
                    "highPriPoolRatio");
            assertBuildFails(LruCache.builder().capacity(1000).highPriPoolRatio(0)
                    .lowPriPoolRatio(bad), "lowPriPoolRatio");
        }
        String sum = assertBuildFails(LruCache.builder().capacity(1000).highPriPoolRatio(0.6)
                .lowPriPoolRatio(0.5), "highPriPoolRatio");
        assertTrue(sum.contains("lowPriPoolRatio"), sum);
        // The default high ratio is 0.5: a low ratio of 0.6 alone overflows the sum.
        assertBuildFails(LruCache.builder().capacity(1000).lowPriPoolRatio(0.6), "lowPriPoolRatio");
        assertEquals(0, NativeMemory.outstandingBytes(), "a failed build leaked");

        // The edges are allowed.
        track(LruCache.builder().capacity(1000).highPriPoolRatio(1).lowPriPoolRatio(0).build());
        track(LruCache.builder().capacity(1000).highPriPoolRatio(0).lowPriPoolRatio(1).build());
        track(LruCache.builder().capacity(1000).highPriPoolRatio(0.25).lowPriPoolRatio(0.75)
                .build());
        track(LruCache.builder().capacity(1000).highPriPoolRatio(0).lowPriPoolRatio(0).build());
    }

    private static String assertBuildFails(LruCache.Builder builder, String argument) {
        var e = assertThrows(IllegalArgumentException.class, builder::build);
        assertTrue(e.getMessage().contains(argument),
                "message should name " + argument + ": " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void defaultsFollowRocksDb() {
        LruCache cache = track(LruCache.builder().capacity(1000).numShardBits(0)
                .chargeMetadata(false).build());
        // high 0.5, low 0: HIGH to the high pool up to 500, LOW to bottom.
        for (long k = 1; k <= 6; k++) {
            put(cache, k, HIGH);
        }
        put(cache, 7, LOW);
        assertPools(cache, 500, 0, 200, 0);
        assertEquals(1, track(LruCache.builder().capacity(512 << 10).build()).numShards());
        assertEquals(2, track(LruCache.builder().capacity(1 << 20).build()).numShards());
    }

    // ---------------------------------------------------------------- threads

    /** A value of 16..527 bytes: its key, a pattern, a checksum. */
    private static byte[] threadValue(long key) {
        int length = 16 + (int) ((key * 2654435761L) & 511);
        byte[] v = new byte[length];
        MemorySegment s = MemorySegment.ofArray(v);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, key);
        for (int i = 8; i < length - 8; i++) {
            v[i] = (byte) (key * 31 + i);
        }
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, length - 8, checksum(s, length - 8));
        return v;
    }

    private static long checksum(MemorySegment s, long length) {
        long h = 0xCBF2_9CE4_8422_2325L;
        for (long i = 0; i < length; i++) {
            h = (h ^ s.get(ValueLayout.JAVA_BYTE, i)) * 0x100000001B3L;
        }
        return h;
    }

    private static void verifyThreadValue(Cache cache, long handle, long key) {
        MemorySegment v = cache.value(handle);
        long length = v.byteSize();
        if (length != threadValue(key).length || v.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != key
                || v.get(ValueLayout.JAVA_LONG_UNALIGNED, length - 8) != checksum(v, length - 8)) {
            throw new AssertionError("value read for key " + key + " is not that key's");
        }
        if (cache.charge(handle) != length) {
            throw new AssertionError("charge of key " + key + " is " + cache.charge(handle));
        }
    }

    @Test
    void fourThreadsOnOverlappingKeysKeepValuesAndAccountingIntact() throws Exception {
        final int threads = 4;
        final int ops = 200_000;
        final int keys = 3_000;
        LruCache cache = track(LruCache.builder().capacity(256 << 10).numShardBits(2)
                .highPriPoolRatio(0.3).lowPriPoolRatio(0.3).build());
        byte[][] values = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            values[k] = threadValue(k);
        }
        var barrier = new CyclicBarrier(threads);
        var failure = new AtomicReference<Throwable>();
        var verified = new AtomicLong();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            long seed = 1000 + t;
            workers[t] = new Thread(() -> {
                var random = new SplittableRandom(seed);
                var held = new ArrayDeque<long[]>();
                try {
                    barrier.await();
                    for (int op = 0; op < ops; op++) {
                        long key = random.nextInt(keys);
                        byte[] v = values[(int) key];
                        Priority priority = Priority.values()[random.nextInt(3)];
                        int dice = random.nextInt(100);
                        if (dice < 50) {
                            long h = cache.lookup(key, key1(key));
                            if (h != Cache.MISS) {
                                verifyThreadValue(cache, h, key);
                                verified.incrementAndGet();
                                if (random.nextInt(4) == 0) {
                                    held.addLast(new long[] {h, key});
                                } else {
                                    cache.release(h, random.nextInt(50) == 0);
                                }
                            }
                        } else if (dice < 60) {
                            long h = cache.insertPinned(key, key1(key), v, 0, v.length,
                                    v.length, priority);
                            if (h != Cache.MISS) {
                                verifyThreadValue(cache, h, key);
                                if (random.nextBoolean()) {
                                    cache.ref(h);
                                    held.addLast(new long[] {h, key});
                                }
                                held.addLast(new long[] {h, key});
                            }
                        } else if (dice < 92) {
                            if (!cache.insert(key, key1(key), v, 0, v.length, v.length,
                                    priority)) {
                                throw new AssertionError("a plain insert was refused");
                            }
                        } else {
                            cache.erase(key, key1(key));
                        }
                        while (held.size() > 6) {
                            long[] p = held.removeFirst();
                            verifyThreadValue(cache, p[0], p[1]); // erased or not, still intact
                            cache.release(p[0]);
                        }
                    }
                    for (long[] p : held) {
                        verifyThreadValue(cache, p[0], p[1]);
                        cache.release(p[0]);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("worker failed", failure.get());
        }
        assertTrue(verified.get() > 10_000, "too few hits to mean anything: " + verified.get());

        // Quiescent: nothing pinned, and usage is exactly what the entries found charge.
        assertEquals(0, cache.pinnedUsage());
        LruCache.PoolUsage pools = cache.poolUsage();
        assertEquals(0, pools.pinned());
        assertEquals(cache.usage(), pools.total());
        assertTrue(cache.usage() <= cache.capacity(),
                "usage " + cache.usage() + " over capacity with nothing pinned");
        long charged = 0;
        long found = 0;
        for (long k = 0; k < keys; k++) {
            long h = cache.lookup(k, key1(k));
            if (h != Cache.MISS) {
                verifyThreadValue(cache, h, k);
                charged += cache.charge(h) + 64;
                found++;
                assertFalse(cache.release(h));
            }
        }
        assertEquals(cache.entryCount(), found);
        assertEquals(cache.usage(), charged, "usage is not the sum of the entries' charges");
        var stats = cache.stats();
        assertTrue(stats.evictions() > 0 && stats.misses() > 0, stats.toString());
        assertEquals(0, stats.memoryLimitRejects());
    }

    @Test
    void shardedCacheStillObeysThePoolsPerShard() {
        // 4 shards of 250 each: per shard, high 75 and low 75.
        LruCache cache = track(LruCache.builder().capacity(1000).numShardBits(2)
                .chargeMetadata(false).highPriPoolRatio(0.3).lowPriPoolRatio(0.3).build());
        assertEquals(4, cache.numShards());
        for (long k = 0; k < 200; k++) {
            byte[] v = valueOf(k);
            cache.insert(k, key1(k), v, 0, v.length, 25, HIGH);
        }
        LruCache.PoolUsage pools = cache.poolUsage();
        assertEquals(1000, cache.usage());
        assertEquals(300, pools.high());
        assertEquals(300, pools.low());
        assertEquals(400, pools.bottom());
    }
}
