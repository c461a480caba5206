package dev.clockwork.cache.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Process-lifetime ids count down from 2^64 - 1, in the upper half of key1's range. */
class CacheKeysTest {

    @Test
    void processLifetimeIdsAreDistinctAndInTheUpperHalf() {
        long previous = CacheKeys.uniqueForProcessLifetime();
        for (int i = 0; i < 1000; i++) {
            long id = CacheKeys.uniqueForProcessLifetime();
            assertTrue(id < 0, "unsigned, at least 2^63: " + Long.toUnsignedString(id));
            assertTrue(Long.compareUnsigned(id, previous) < 0, "counts down");
            previous = id;
        }
    }

    @Test
    void theEmptyKeyIsNoKindsKey() {
        assertEquals(0, CacheKeys.KEY0);
    }
}
