package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.BOTTOM;
import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static dev.clockwork.offheap.TestValues.naming;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Scan resistance, the reason for the priority pools: a hot set inserted HIGH (or LOW, with a low
 * pool) survives a one-pass scan of many BOTTOM entries with the pools on, and does not with the
 * pools off (plain LRU). Each case prints one line with its measured hot-set hit ratio.
 *
 * <p>Setup (the margins below are derived from it): room for {@value #CAPACITY_ENTRIES} entries of
 * {@value #CHARGE} bytes, one shard unless said otherwise, metadata not charged; a hot set of
 * {@value #HOT} keys, each looked up {@value #TOUCHES} times after its insert; a scan of
 * {@value #SCAN} distinct BOTTOM keys, each inserted once (as a scan fills a block cache).
 *
 * <ul>
 *   <li>Pools on: the hot set (300 entries) fits its pool (500) and the bottom pool (700) takes
 *       the whole scan, so eviction never reaches a hot entry: expected hit ratio 1.0.
 *   <li>Pools off: the scan is 10x the capacity and LRU keeps only the newest 1000 entries, all
 *       scanned: expected 0.0.
 * </ul>
 *
 * Assertions allow 1% either way; the figures printed are the exact ones.
 */
class LruScanResistanceTest {
    static final int CHARGE = 1024;
    static final int CAPACITY_ENTRIES = 1000;
    static final int HOT = 300;
    static final int TOUCHES = 3;
    static final int SCAN = 10_000;
    /** key1 of hot keys and of scanned keys: the two key spaces never meet. */
    private static final long HOT_KEY1 = 0x4077;
    private static final long SCAN_KEY1 = 0x5CA7;

    private final List<Cache> caches = new ArrayList<>();

    @AfterEach
    void closeAllAndCheckNativeMemory() {
        caches.forEach(Cache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    private LruCache cache(double high, double low) {
        LruCache cache = LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity((long) CAPACITY_ENTRIES * CHARGE)
                .numShardBits(0).chargeMetadata(false)
                .highPriPoolRatio(high).lowPriPoolRatio(low).build();
        caches.add(cache);
        return cache;
    }

    // ---------------------------------------------------------------- keys and values

    private static void insert(Cache cache, long key0, long key1, long charge, Priority priority) {
        byte[] v = naming(key0, key1);
        assertTrue(cache.insert(key0, key1, v, 0, v.length, charge, priority));
    }

    /** Looks a key up; a hit is checked to be that key's value, then released. */
    private static boolean lookup(Cache cache, long key0, long key1) {
        long h = cache.lookup(key0, key1);
        if (h == Cache.MISS) {
            return false;
        }
        MemorySegment v = cache.value(h);
        assertEquals(key0, v.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertEquals(key1, v.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
        cache.release(h);
        return true;
    }

    private static void insertAndTouchHotSet(Cache cache, int hot, long charge, Priority priority,
                                             int touches) {
        for (long k = 0; k < hot; k++) {
            insert(cache, k, HOT_KEY1, charge, priority);
        }
        for (int t = 0; t < touches; t++) {
            for (long k = 0; k < hot; k++) {
                assertTrue(lookup(cache, k, HOT_KEY1), "hot key " + k + " lost before the scan");
            }
        }
    }

    private static void scan(Cache cache, long from, long count, long charge) {
        for (long i = from; i < from + count; i++) {
            insert(cache, i, SCAN_KEY1, charge, BOTTOM);
        }
    }

    /** The hot set's hit ratio, looked up once each after the scan. */
    private static double hotHitRatio(Cache cache, int hot) {
        int hits = 0;
        for (long k = 0; k < hot; k++) {
            if (lookup(cache, k, HOT_KEY1)) {
                hits++;
            }
        }
        return (double) hits / hot;
    }

    private static void report(String what, double high, double low, double ratio, int hot) {
        System.out.println(String.format(Locale.ROOT,
                "[lru-scan-resistance] %s, pools high/low = %.1f/%.1f: hot-set hit ratio %.3f"
                        + " (%d/%d)", what, high, low, ratio, Math.round(ratio * hot), hot));
    }

    // ---------------------------------------------------------------- one-pass scan

    private double onePassScan(double high, double low, Priority hotPriority, int touches) {
        LruCache cache = cache(high, low);
        insertAndTouchHotSet(cache, HOT, CHARGE, hotPriority, touches);
        scan(cache, 0, SCAN, CHARGE);
        assertEquals(CAPACITY_ENTRIES, cache.entryCount(), "the scan filled the cache");
        double ratio = hotHitRatio(cache, HOT);
        report("one-pass scan of " + SCAN + " BOTTOM, " + HOT + " hot " + hotPriority
                + " touched " + touches + "x, capacity " + CAPACITY_ENTRIES, high, low, ratio, HOT);
        return ratio;
    }

    @Test
    void aHighHotSetSurvivesAScanWithTheHighPoolAndNotWithout() {
        double on = onePassScan(0.5, 0, HIGH, TOUCHES);
        double off = onePassScan(0, 0, HIGH, TOUCHES);
        assertTrue(on >= 0.99, "pools on: " + on);
        assertTrue(off <= 0.01, "pools off: " + off);
    }

    @Test
    void aLowHotSetSurvivesAScanWithTheLowPoolAndNotWithout() {
        // No high pool: LOW entries, and hits, go to the low pool.
        double on = onePassScan(0, 0.5, LOW, TOUCHES);
        double off = onePassScan(0, 0, LOW, TOUCHES);
        assertTrue(on >= 0.99, "pools on: " + on);
        assertTrue(off <= 0.01, "pools off: " + off);
    }

    @Test
    void withBothPoolsBothKindsOfHotSetSurvive() {
        double high = onePassScan(0.3, 0.4, HIGH, TOUCHES);
        double low = onePassScan(0.3, 0.4, LOW, 0); // untouched: LOW stays in the low pool
        assertTrue(high >= 0.99, "HIGH hot set: " + high);
        assertTrue(low >= 0.99, "LOW hot set: " + low);
    }

    @Test
    void withRocksDbDefaultsALowHotSetIsProtectedOnlyOnceHit() {
        // Defaults 0.5/0: LOW enters the bottom pool, and only a hit lifts it to the high pool.
        double touched = onePassScan(0.5, 0, LOW, TOUCHES);
        double untouched = onePassScan(0.5, 0, LOW, 0);
        assertTrue(touched >= 0.99, "touched: " + touched);
        assertTrue(untouched <= 0.01, "untouched: " + untouched);
    }

    @Test
    void aHotSetLargerThanItsPoolKeepsWhatThePoolHolds() {
        // 700 hot keys, a high pool of 500 entries: the 200 touched longest ago are demoted to the
        // bottom pool and scanned away; the other 500 stay. Expected 500/700.
        int hot = 700;
        LruCache cache = cache(0.5, 0);
        insertAndTouchHotSet(cache, hot, CHARGE, HIGH, TOUCHES);
        scan(cache, 0, SCAN, CHARGE);
        double ratio = hotHitRatio(cache, hot);
        report("one-pass scan of " + SCAN + " BOTTOM, " + hot + " hot HIGH touched " + TOUCHES
                + "x (more than the pool), capacity " + CAPACITY_ENTRIES, 0.5, 0, ratio, hot);
        assertEquals(500.0 / 700, ratio, 0.02);
    }

    @Test
    void shardedWithMetadataChargedTheResultHolds() {
        // 4 shards of 250 entries (1024 + 64 bytes each); ~75 hot keys per shard against a high
        // pool of 125 per shard, and ~2,500 scanned keys per shard.
        long entry = CHARGE + 64;
        double[] ratios = new double[2];
        double[][] pools = {{0.5, 0}, {0, 0}};
        for (int i = 0; i < 2; i++) {
            LruCache cache = LruCache.builder().admission(AdmissionPolicy.NONE)
                    .capacity(CAPACITY_ENTRIES * entry).numShardBits(2)
                    .highPriPoolRatio(pools[i][0]).lowPriPoolRatio(pools[i][1]).build();
            caches.add(cache);
            insertAndTouchHotSet(cache, HOT, CHARGE, HIGH, TOUCHES);
            scan(cache, 0, SCAN, CHARGE);
            ratios[i] = hotHitRatio(cache, HOT);
            report("one-pass scan of " + SCAN + " BOTTOM, " + HOT + " hot HIGH touched " + TOUCHES
                    + "x, capacity " + CAPACITY_ENTRIES + ", 4 shards, metadata charged",
                    pools[i][0], pools[i][1], ratios[i], HOT);
        }
        assertTrue(ratios[0] >= 0.99, "pools on: " + ratios[0]);
        assertTrue(ratios[1] <= 0.01, "pools off: " + ratios[1]);
    }

    // ---------------------------------------------------------------- scan with hot lookups

    /**
     * The scan runs with the hot set in use: each hot key is looked up once every {@code period}
     * scan inserts (one hot lookup every period / 300 inserts, round robin), and a miss re-inserts
     * it, as a block cache fills on a miss. The ratio counts the lookups after the first period
     * (the steady state; in the first period plain LRU still has hot keys from before the scan).
     *
     * <p>Plain LRU keeps a hot key iff fewer than 1000 other keys came between two of its lookups:
     * {@code period} scanned keys plus 299 other hot keys, so it hits at period 600 (899 < 1000)
     * and misses every time at 1200 and 3000. With the pools on, hot keys sit in their pool and
     * hit whatever the period.
     */
    private double interleavedScan(double high, double low, Priority hotPriority, int period) {
        LruCache cache = cache(high, low);
        insertAndTouchHotSet(cache, HOT, CHARGE, hotPriority, TOUCHES);
        int every = period / HOT;
        int next = 0;
        long lookups = 0;
        long hits = 0;
        long allLookups = 0;
        long allHits = 0;
        for (long i = 0; i < SCAN; i++) {
            insert(cache, i, SCAN_KEY1, CHARGE, BOTTOM);
            if ((i + 1) % every == 0) {
                long key = next;
                next = (next + 1) % HOT;
                boolean hit = lookup(cache, key, HOT_KEY1);
                if (!hit) {
                    insert(cache, key, HOT_KEY1, CHARGE, hotPriority);
                }
                allLookups++;
                allHits += hit ? 1 : 0;
                if (i >= period) {
                    lookups++;
                    hits += hit ? 1 : 0;
                }
            }
        }
        double ratio = (double) hits / lookups;
        System.out.println(String.format(Locale.ROOT,
                "[lru-scan-resistance] scan of %d BOTTOM with each of %d hot %s keys looked up"
                        + " every %d scan inserts, capacity %d, pools high/low = %.1f/%.1f:"
                        + " hot hit ratio %.3f (%d/%d, steady state; %.3f = %d/%d counting"
                        + " the first period)",
                SCAN, HOT, hotPriority, period, CAPACITY_ENTRIES, high, low, ratio, hits,
                lookups, (double) allHits / allLookups, allHits, allLookups));
        return ratio;
    }

    @Test
    void interleavedHotLookupsWithTheHighPoolHitWhateverThePeriod() {
        for (int period : new int[] {600, 1200, 3000}) {
            double on = interleavedScan(0.5, 0, HIGH, period);
            double off = interleavedScan(0, 0, HIGH, period);
            assertTrue(on >= 0.99, "pools on, period " + period + ": " + on);
            if (period + HOT - 1 < CAPACITY_ENTRIES) {
                assertTrue(off >= 0.99, "pools off, period " + period + ": " + off);
            } else {
                assertTrue(off <= 0.01, "pools off, period " + period + ": " + off);
            }
        }
    }

    @Test
    void interleavedHotLookupsWithTheLowPoolHitWhateverThePeriod() {
        for (int period : new int[] {600, 1200, 3000}) {
            double on = interleavedScan(0, 0.5, LOW, period);
            double off = interleavedScan(0, 0, LOW, period);
            assertTrue(on >= 0.99, "pools on, period " + period + ": " + on);
            if (period + HOT - 1 < CAPACITY_ENTRIES) {
                assertTrue(off >= 0.99, "pools off, period " + period + ": " + off);
            } else {
                assertTrue(off <= 0.01, "pools off, period " + period + ": " + off);
            }
        }
    }
}
