package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.admission.TinyLfu;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every cache type is built with TinyLFU admission unless told otherwise, and what that default
 * keeps: a hot set that is looked up survives a flood of keys that are never asked for again,
 * which the same cache with admission off loses.
 */
class DefaultAdmissionTest {
    private static final byte[] VALUE = new byte[16];
    private static final int HOT = 200;

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void theDefaultIsTinyLfuAndNoneTurnsItOff(CacheKind kind) {
        try (ShardedCache on = kind.build(1 << 20, 64, 0);
             ShardedCache off = (ShardedCache) kind.builder(1 << 20, 64).numShardBits(0)
                     .admission(AdmissionPolicy.NONE).build()) {
            assertInstanceOf(TinyLfu.class, on.admission());
            assertSame(Admission.ALWAYS, off.admission());
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aHotSetOutlivesAFloodOfOneOffKeysByDefaultOnly(CacheKind kind) {
        int withDefault = hotHitsAfterFlood(kind.unitCharged(1000).build());
        int withoutAdmission = hotHitsAfterFlood(kind.unitCharged(1000)
                .admission(AdmissionPolicy.NONE).build());
        assertTrue(withDefault >= HOT * 9 / 10, kind + ": " + withDefault + " of " + HOT);
        assertTrue(withoutAdmission < HOT / 2, kind + " without admission: " + withoutAdmission);
    }

    @ParameterizedTest
    @EnumSource(value = CacheKind.class, names = {"FIXED", "AUTO"})
    void aKeySeenOnceStartsOnProbationAndAKeySeenTwiceDoesNot(CacheKind kind) {
        try (ShardedCache cache = kind.build(1 << 20, 64, 0)) {
            HyperClockCache clock = (HyperClockCache) cache;
            // The first insert sizes TinyLFU's sketch for the charges it sees, emptied.
            cache.insert(1, ~1L, VALUE, 0, VALUE.length, 64, Priority.LOW);
            long seenTwice = 7;
            cache.lookup(seenTwice, ~seenTwice);
            cache.lookup(seenTwice, ~seenTwice);
            for (long k = 100; k < 164; k++) {
                cache.lookup(k, ~k); // misses that fill the thread's buffer (16): it drains
            }
            long seenOnce = 8;
            cache.insert(seenOnce, ~seenOnce, VALUE, 0, VALUE.length, 64, Priority.LOW);
            cache.insert(seenTwice, ~seenTwice, VALUE, 0, VALUE.length, 64, Priority.LOW);
            assertEquals(1, countdown(clock, seenOnce), "a one-off key is on probation: one pass");
            assertEquals(2, countdown(clock, seenTwice), "LOW's countdown for a key seen twice");
            long pinned = cache.insertPinned(9, ~9L, VALUE, 0, VALUE.length, 64, Priority.LOW);
            cache.release(pinned);
            assertEquals(1, countdown(clock, 9), "a pinned one-off key on probation too");
        }
    }

    /** The countdown of a key's entry: its release count, read through a lookup's handle. */
    private static long countdown(HyperClockCache cache, long key) {
        long h = cache.lookup(key, ~key);
        try {
            return ClockProbe.releaseCount(ClockProbe.meta(cache, h));
        } finally {
            cache.release(h);
        }
    }

    /** Hits on the hot keys after 8 reads each and a flood of 5,000 one-off keys (5 capacities). */
    private static int hotHitsAfterFlood(Cache cache) {
        try (cache) {
            for (int round = 0; round < 8; round++) {
                for (long k = 0; k < HOT; k++) {
                    access(cache, k);
                }
            }
            for (long k = 1_000_000; k < 1_005_000; k++) {
                access(cache, k);
            }
            int hits = 0;
            for (long k = 0; k < HOT; k++) {
                hits += access(cache, k) ? 1 : 0;
            }
            return hits;
        }
    }

    /** A lookup, and on a miss an insert of charge 1, as a cache in front of a disk is used. */
    private static boolean access(Cache cache, long key) {
        long h = cache.lookup(key, ~key);
        if (h != Cache.MISS) {
            cache.release(h);
            return true;
        }
        cache.insert(key, ~key, VALUE, 0, VALUE.length, 1, Priority.LOW);
        return false;
    }
}
