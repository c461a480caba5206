package dev.clockwork.offheap.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.hash.KeyHash;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * TinyLFU's heap follows the entries a cache can hold and has been given, never its capacity: it
 * starts at {@link TinyLfu#INITIAL_ENTRIES} at most, doubles with the entries inserted, stops at
 * the entry limit, and its sketch ages every ten events per entry it covers, capped or not.
 */
class TinyLfuSizingTest {
    /** A capacity no cache reaches: what {@code capacity(Long.MAX_VALUE)} gives the policy. */
    private static final long UNBOUNDED = 1L << 56;
    /** Heap at most per entry covered: 8 bytes of sketch, 6 of ghosts. */
    private static final long BYTES_PER_ENTRY = 14;
    /** More than the stripes' buffers take (8,448 bytes), allocated once whatever the size. */
    private static final long BUFFER_BYTES = 16 << 10;
    private static final long CHARGE = 100;

    private static long key(long i) {
        return KeyHash.hash0(i, 0, 42); // the cache's hashed key, as the policy receives it
    }

    private static void insert(TinyLfu policy, long entries, long charge) {
        for (long i = 0; i < entries; i++) {
            policy.recordInsert(charge);
        }
    }

    private static void assertHeapFor(TinyLfu policy, long entries) {
        assertEquals(entries, policy.sketchEntries());
        assertTrue(policy.bytes() <= BYTES_PER_ENTRY * entries + BUFFER_BYTES,
                policy.bytes() + " bytes for " + entries + " entries");
        assertEquals(FrequencySketch.SAMPLE_PER_ENTRY * entries, policy.sampleSize(),
                "the sample follows the sketch's size");
    }

    @Test
    void anUnboundedCapacityStartsSmallAndGrowsWithTheEntriesInserted() {
        TinyLfu policy = new TinyLfu(UNBOUNDED, Long.MAX_VALUE, false);
        assertEquals(FrequencySketch.MAX_ENTRIES, policy.entryLimit());
        assertHeapFor(policy, TinyLfu.INITIAL_ENTRIES);
        insert(policy, TinyLfu.INITIAL_ENTRIES, CHARGE);
        assertHeapFor(policy, TinyLfu.INITIAL_ENTRIES);
        policy.recordInsert(CHARGE);
        assertHeapFor(policy, 2 * TinyLfu.INITIAL_ENTRIES);
        insert(policy, 100_000 - TinyLfu.INITIAL_ENTRIES - 1, CHARGE);
        assertHeapFor(policy, 1 << 17); // 100,000 rounded up to a power of two
    }

    @Test
    void theEntryLimitCapsTheSketchAndItsSample() {
        long limit = 3 * TinyLfu.INITIAL_ENTRIES;
        TinyLfu policy = new TinyLfu(UNBOUNDED, limit, false);
        insert(policy, 100_000, 1);
        assertHeapFor(policy, limit);
        assertEquals(limit, policy.entryLimit());
    }

    @Test
    void aSmallCacheIsSizedByItsChargesAtTheFirstInsert() {
        long entries = 500;
        TinyLfu policy = new TinyLfu(entries * 1024, Long.MAX_VALUE, false);
        assertHeapFor(policy, entries * 1024 / TinyLfu.FIRST_GUESS_CHARGE);
        policy.recordInsert(1024);
        assertHeapFor(policy, entries);
        insert(policy, 10 * entries, 1024);
        assertHeapFor(policy, entries);
    }

    /**
     * Once the cache is full by the charges, an average charge that moves by a little keeps the
     * sketch and what it counted; one that falls far enough to call for an eighth more entries
     * grows it, empty.
     */
    @Test
    void aWobblingAverageChargeKeepsTheSketchButAFallingOneGrowsIt() {
        long entries = 10_000;
        TinyLfu policy = new TinyLfu(entries * 1000, Long.MAX_VALUE, false);
        insert(policy, 2 * entries, 1000);
        assertEquals(entries, policy.sketchEntries());
        long hot = key(-1);
        for (int i = 0; i < 2 * TinyLfu.RECORDS; i++) {
            policy.recordAccess(hot, true);
        }
        assertEquals(16, policy.frequency(hot));
        insert(policy, 1000, 900); // the average falls by half a percent: 48 entries more
        assertEquals(entries, policy.sketchEntries());
        assertEquals(16, policy.frequency(hot), "not reset for a few entries");
        insert(policy, 4 * entries, 500); // the average falls to 670: 14,900 entries fill it
        assertTrue(policy.sketchEntries() >= entries * 5 / 4, "grown: " + policy.sketchEntries());
        assertEquals(0, policy.frequency(hot), "grown empty");
    }

    /**
     * A sketch capped by the entry limit, under a capacity that would call for 2^49 entries,
     * halves its counters after ten events per entry it covers (the sample once followed the
     * uncapped count, so such a sketch never aged).
     */
    @Test
    void aCappedSketchAgesAfterTenEventsPerEntryItCovers() {
        long limit = 3 * TinyLfu.INITIAL_ENTRIES;
        TinyLfu policy = new TinyLfu(UNBOUNDED, limit, false);
        insert(policy, 100_000, 128);
        long sample = policy.sampleSize();
        assertEquals(FrequencySketch.SAMPLE_PER_ENTRY * limit, sample);

        long hot = key(-1);
        int hotRecords = 2 * TinyLfu.RECORDS; // two whole buffers: one thread drains at 16
        for (int i = 0; i < hotRecords; i++) {
            policy.recordAccess(hot, true);
        }
        assertEquals(16, policy.frequency(hot), "saturated counters plus the doorkeeper's bit");
        long others = sample - hotRecords - TinyLfu.RECORDS;
        for (long i = 0; i < others; i++) {
            policy.recordAccess(key(i), false);
        }
        assertEquals(16, policy.frequency(hot), "one buffer short of the sample: not aged");
        for (long i = 0; i < TinyLfu.RECORDS; i++) {
            policy.recordAccess(key(others + i), false);
        }
        assertEquals(7, policy.frequency(hot), "aged: 15 halved, the doorkeeper cleared");
    }

    /**
     * Inserts grow the sketch while other threads record and admit: every estimate stays within
     * the counters' range and nothing throws (a grow publishes a whole new sketch and tuner).
     */
    @Test
    void growingWhileOtherThreadsRecordAndAdmitIsSafe() throws Exception {
        TinyLfu policy = new TinyLfu(UNBOUNDED, 1 << 20, false);
        AtomicBoolean growing = new AtomicBoolean(true);
        List<Throwable> failures = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            long seed = t;
            threads.add(Thread.ofPlatform().start(() -> recordAndAdmit(policy, seed, start,
                    growing, failures)));
        }
        start.countDown();
        insert(policy, 1 << 20, CHARGE);
        growing.set(false);
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(List.of(), failures);
        assertHeapFor(policy, 1 << 20);
    }

    private static void recordAndAdmit(TinyLfu policy, long seed, CountDownLatch start,
                                       AtomicBoolean growing, List<Throwable> failures) {
        try {
            start.await();
            for (long i = 0; growing.get(); i++) {
                long k = key(seed + 2 * (i & 1023));
                policy.recordAccess(k, (i & 1) == 0);
                policy.admit(key(-seed - 1), k);
                int estimate = policy.frequency(k);
                if (estimate < 0 || estimate > 16) {
                    throw new AssertionError("estimate " + estimate);
                }
            }
        } catch (Throwable e) {
            synchronized (failures) {
                failures.add(e);
            }
        }
    }
}
