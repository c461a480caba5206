package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.BOTTOM;
import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static dev.clockwork.offheap.TestValues.naming;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;

/**
 * What the LRU rule tests ({@code Lru*Test}) share: RocksDB's LRUCache rules with three priority
 * pools, checked through the public API only.
 *
 * <p>Most rule tests use one shard ({@code numShardBits(0)}), no metadata charge and a charge of
 * {@value #C} per entry, so a capacity of 1000 holds exactly 10 entries and pool capacities are
 * whole entries. The list order is not visible directly; it is read off behaviour:
 * {@link #evictionOrder} replays a scenario on fresh caches and, after 1, 2, 3... evicting steps,
 * probes which keys are gone. Probes are lookups, and a lookup is a hit that moves an entry, so a
 * probed cache is thrown away and each step is replayed from scratch.
 *
 * <p>Lists are written oldest first, pools in brackets: {@code [bottom][low][high]}. Every cache
 * made through {@link #track} is closed after the test, which then checks that no native byte
 * is left.
 */
abstract class LruCacheTestBase {
    /** The charge of every entry in the rule tests. */
    static final long C = 100;

    private final List<Cache> caches = new ArrayList<>();

    @AfterEach
    void closeAllAndCheckNativeMemory() {
        caches.forEach(Cache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    /** Closes {@code cache} after the test. */
    <T extends Cache> T track(T cache) {
        caches.add(cache);
        return cache;
    }

    /** One shard, no metadata charge: usage is the sum of the charges given. */
    static LruCache build(long capacity, double high, double low) {
        return LruCache.builder().admission(AdmissionPolicy.NONE).capacity(capacity).numShardBits(0)
                .chargeMetadata(false)
                .highPriPoolRatio(high).lowPriPoolRatio(low).build();
    }

    /** {@link #build}, closed after the test. */
    LruCache cache(long capacity, double high, double low) {
        return track(build(capacity, high, low));
    }

    static long key1(long key) {
        return key * 0x9E37_79B9_7F4A_7C15L + 7;
    }

    /** 16 bytes that name their key: the key, then its complement. */
    static byte[] valueOf(long key) {
        return naming(key, ~key);
    }

    static void put(Cache cache, long key, Priority priority) {
        byte[] v = valueOf(key);
        assertTrue(cache.insert(key, key1(key), v, 0, v.length, C, priority), "insert " + key);
    }

    static long pin(Cache cache, long key, Priority priority) {
        byte[] v = valueOf(key);
        long h = cache.insertPinned(key, key1(key), v, 0, v.length, C, priority);
        assertNotEquals(Cache.MISS, h, "insertPinned " + key);
        return h;
    }

    static long lookup(Cache cache, long key) {
        return cache.lookup(key, key1(key));
    }

    static void assertValueOf(Cache cache, long handle, long key) {
        assertArrayEquals(valueOf(key), cache.value(handle).toArray(ValueLayout.JAVA_BYTE),
                "value of key " + key);
    }

    /** A hit: look the key up, check its value, release it (which re-places it on the list). */
    static void hit(Cache cache, long key) {
        long h = lookup(cache, key);
        assertNotEquals(Cache.MISS, h, "key " + key + " missing");
        assertValueOf(cache, h, key);
        assertFalse(cache.release(h), "a release within capacity keeps the entry");
    }

    /**
     * Which of {@code keys} are in the cache. Destructive: each present key is hit and moves, so
     * call it only when the cache's order no longer matters.
     */
    static Set<Long> present(Cache cache, long... keys) {
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

    static long[] keys(int from, int to) {
        long[] k = new long[to - from + 1];
        for (int i = 0; i < k.length; i++) {
            k[i] = from + i;
        }
        return k;
    }

    /** A step that evicts exactly the oldest entry of the list: shrink capacity by one byte. */
    static void shrinkByOneEntry(LruCache cache, int step) {
        cache.setCapacity(cache.usage() - 1);
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
    static long[] evictionOrder(Supplier<LruCache> fresh, Consumer<LruCache> scenario,
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
    static long[] listOrder(Supplier<LruCache> fresh, Consumer<LruCache> scenario,
                                    long... keys) {
        return evictionOrder(fresh, scenario, LruCacheTestBase::shrinkByOneEntry, keys.length,
                i -> keys);
    }

    static void assertPools(LruCache cache, long high, long low, long bottom, long pinned) {
        assertEquals(new LruCache.PoolUsage(high, low, bottom, pinned), cache.poolUsage());
        assertEquals(cache.usage(), cache.poolUsage().total());
        assertEquals(pinned, cache.pinnedUsage());
    }

    /** Keys 1..10, priorities HIGH, LOW, BOTTOM, HIGH, ...: fills a capacity of 1000. */
    static void fillHlb(LruCache cache) {
        Priority[] p = {HIGH, LOW, BOTTOM};
        for (int k = 1; k <= 10; k++) {
            put(cache, k, p[(k - 1) % 3]);
        }
        assertEquals(1000, cache.usage());
        assertEquals(10, cache.entryCount());
    }
}
