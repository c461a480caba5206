package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.BOTTOM;
import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.clockwork.cache.Priority;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * LRU priority pools: where an insert lands by its priority and the pools configured, how a hit
 * promotes an entry on its last release, and how an overflowing pool demotes its oldest entries
 * to the pool below; per shard when sharded.
 */
class LruPoolsTest extends LruCacheTestBase {
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
                listOrder(() -> build(1000, 0, 0), LruPoolsTest::insertHlbHlb, keys(1, 6)));
    }

    @Test
    void insertionWithHighPoolOnly() {
        assertPoolsAfter(0.5, 0, 200, 0, 400);
        // HIGH to the high pool; no low pool, so LOW falls to bottom: [2 3 5 6][][1 4]
        assertArrayEquals(new long[] {2, 3, 5, 6, 1, 4},
                listOrder(() -> build(1000, 0.5, 0), LruPoolsTest::insertHlbHlb, keys(1, 6)));
    }

    @Test
    void insertionWithLowPoolOnly() {
        assertPoolsAfter(0, 0.5, 0, 400, 200);
        // No high pool: HIGH falls to the low pool with LOW: [3 6][1 2 4 5][]
        assertArrayEquals(new long[] {3, 6, 1, 2, 4, 5},
                listOrder(() -> build(1000, 0, 0.5), LruPoolsTest::insertHlbHlb, keys(1, 6)));
    }

    @Test
    void insertionWithBothPools() {
        assertPoolsAfter(0.3, 0.3, 200, 200, 200);
        // [3 6][2 5][1 4]
        assertArrayEquals(new long[] {3, 6, 2, 5, 1, 4},
                listOrder(() -> build(1000, 0.3, 0.3), LruPoolsTest::insertHlbHlb, keys(1, 6)));
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

    // ---------------------------------------------------------------- per shard

    @Test
    void shardedCacheStillObeysThePoolsPerShard() {
        // 4 shards of 250 each: per shard, high 75 and low 75.
        LruCache cache = track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000)
                .numShardBits(2)
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
