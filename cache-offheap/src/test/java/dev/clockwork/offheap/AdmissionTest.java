package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TinyLFU admission on every cache type: one-off keys do not flush a hot working set, a refused
 * insert says so, is counted apart from memory-limit rejects, makes no handle and frees its
 * value, and an accepted insert is found by the next lookup.
 */
class AdmissionTest {
    private static final int ENTRIES = 1000;
    private static final int HOT = ENTRIES * 6 / 10;
    private static final byte[] VALUE = new byte[8];
    /** A policy that keeps every victim against every candidate (and has no window). */
    private static final Admission KEEP_EVERY_VICTIM = new Admission() {
        @Override
        public void recordAccess(long keyHash, boolean hit) {
        }

        @Override
        public boolean admit(long candidateHash, long victimHash) {
            return false;
        }
    };

    /** A cache of {@value #ENTRIES} entries of charge 1 ({@link CacheKind#unitCharged}). */
    private static Cache cache(CacheKind kind, AdmissionPolicy policy) {
        return kind.unitCharged(ENTRIES).admission(policy).build();
    }

    /** The same cache with a policy of the test's own. */
    private static Cache cache(CacheKind kind, Admission policy) {
        return kind.unitCharged(ENTRIES).admission(policy).build();
    }

    /** A user's access: look up, insert on a miss. Returns whether it hit. */
    private static boolean access(Cache cache, long key) {
        long h = cache.lookup(key, 0);
        if (h != Cache.MISS) {
            cache.release(h);
            return true;
        }
        cache.insert(key, 0, VALUE, 0, VALUE.length, 1, Priority.LOW);
        return false;
    }

    /**
     * The pollution pattern: after a warm-up, accesses to the hot set strictly alternate with
     * never-repeated keys. Returns the hot accesses' hit ratio over the second half of the run.
     * With {@value #HOT} hot keys and one one-off key per hot access, a hot key comes back after
     * {@code 2 * HOT} accesses to {@code 2 * HOT > ENTRIES} distinct keys: recency alone keeps
     * none of them.
     */
    private static double hotHitRatioUnderPollution(Cache cache) {
        for (int round = 0; round < 4; round++) {
            for (long k = 0; k < HOT; k++) {
                access(cache, k);
            }
        }
        int rounds = 20 * HOT;
        int hits = 0;
        for (int i = 0; i < rounds; i++) {
            access(cache, 1_000_000L + i);
            boolean hit = access(cache, i % HOT);
            if (i >= rounds / 2 && hit) {
                hits++;
            }
        }
        return hits / (rounds / 2.0);
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void oneOffKeysDoNotFlushTheHotSet(CacheKind kind) {
        double with;
        long rejects;
        try (Cache cache = cache(kind, AdmissionPolicy.TINY_LFU)) {
            with = hotHitRatioUnderPollution(cache);
            rejects = cache.stats().admissionRejects();
            assertEquals(0, cache.stats().memoryLimitRejects());
        }
        double without;
        try (Cache cache = cache(kind, AdmissionPolicy.NONE)) {
            without = hotHitRatioUnderPollution(cache);
            assertEquals(0, cache.stats().admissionRejects());
        }
        assertTrue(with >= 0.9, kind + ": hot hit ratio " + with + " with admission");
        assertTrue(with - without >= 0.3, kind + ": " + with + " with admission, " + without
                + " without");
        assertTrue(rejects >= 10L * HOT, kind + ": " + rejects + " rejects counted");
    }

    /**
     * A recency workload: the working set moves on, each set of {@code ENTRIES / 2} keys read
     * round-robin a few times and never again. Plain TinyLFU keeps the old, once-frequent keys
     * against the new ones; the climbing bias must let the new ones in.
     */
    private static double hitRatioOnAMovingWorkingSet(Cache cache) {
        int hits = 0;
        int accesses = 0;
        for (int phase = 0; phase < 40; phase++) {
            long first = phase * 100_000L;
            for (int round = 0; round < 6; round++) {
                for (long k = first; k < first + ENTRIES / 2; k++) {
                    hits += access(cache, k) ? 1 : 0;
                    accesses++;
                }
            }
        }
        return (double) hits / accesses;
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void recencyIsNotSacrificed(CacheKind kind) {
        double with;
        try (Cache cache = cache(kind, AdmissionPolicy.TINY_LFU)) {
            with = hitRatioOnAMovingWorkingSet(cache);
        }
        double without;
        try (Cache cache = cache(kind, AdmissionPolicy.NONE)) {
            without = hitRatioOnAMovingWorkingSet(cache);
        }
        assertTrue(with >= without - 0.02, kind + ": " + with + " with admission, " + without
                + " without");
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aRejectedInsertSaysSoMakesNoHandleAndFreesItsValue(CacheKind kind) {
        long before = NativeMemory.outstandingBytes();
        try (Cache cache = cache(kind, KEEP_EVERY_VICTIM)) {
            for (long k = 0; k < ENTRIES; k++) {
                assertTrue(cache.insert(k, 0, VALUE, 0, VALUE.length, 1, Priority.LOW),
                        "no eviction needed: not asked");
            }
            long inUse = NativeMemory.outstandingBytes();
            assertFalse(cache.insert(5_000_000, 0, VALUE, 0, VALUE.length, 1, Priority.LOW),
                    "every victim kept: the insert says it failed");
            assertEquals(Cache.MISS,
                    cache.insertPinned(5_000_001, 0, VALUE, 0, VALUE.length, 1, Priority.LOW),
                    "and a pinned insert gets no handle");
            assertEquals(2, cache.stats().admissionRejects());
            assertEquals(0, cache.stats().memoryLimitRejects());
            assertEquals(inUse, NativeMemory.outstandingBytes(), "the refused values were freed");
            assertEquals(Cache.MISS, cache.lookup(5_000_000, 0));
            assertEquals(ENTRIES, cache.entryCount(), "no victim was lost");
        }
        assertEquals(before, NativeMemory.outstandingBytes());
    }

    /** A new value for a present key is never refused, even by a policy that keeps every victim. */
    @Test
    void theLruNeverRefusesANewValueForAPresentKey() {
        try (Cache cache = cache(CacheKind.LRU, KEEP_EVERY_VICTIM)) {
            for (long k = 0; k < ENTRIES; k++) {
                assertTrue(cache.insert(k, 0, VALUE, 0, VALUE.length, 1, Priority.LOW));
            }
            byte[] bigger = new byte[16];
            assertTrue(cache.insert(7, 0, bigger, 0, bigger.length, 2, Priority.LOW),
                    "replacing key 7 with a larger charge, in a full cache");
            long h = cache.lookup(7, 0);
            assertNotEquals(Cache.MISS, h);
            assertEquals(16, cache.valueSize(h));
            cache.release(h);
            assertEquals(0, cache.stats().admissionRejects());
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void anAcceptedInsertIsFoundByTheNextLookup(CacheKind kind) {
        try (Cache cache = cache(kind, AdmissionPolicy.TINY_LFU)) {
            for (long k = 0; k < 5L * ENTRIES; k++) {
                long key = k % (2L * ENTRIES);
                boolean accepted = cache.insert(key, 0, VALUE, 0, VALUE.length, 1, Priority.LOW);
                long h = cache.lookup(key, 0);
                if (accepted) {
                    assertNotEquals(Cache.MISS, h, kind + ": key " + key + " accepted, not found");
                }
                if (h != Cache.MISS) {
                    cache.release(h);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void withoutEvictionEveryInsertIsAdmitted(CacheKind kind) {
        try (Cache cache = cache(kind, AdmissionPolicy.TINY_LFU)) {
            for (long k = 0; k < ENTRIES / 2; k++) {
                assertTrue(cache.insert(k, 0, VALUE, 0, VALUE.length, 1, Priority.LOW));
            }
            assertEquals(0, cache.stats().admissionRejects());
        }
    }
}
