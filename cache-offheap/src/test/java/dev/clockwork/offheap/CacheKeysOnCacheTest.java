package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.key.CacheKeys;
import org.junit.jupiter.api.Test;

/** Cache-lifetime keys count up from 1 per cache, each cache on its own. */
class CacheKeysOnCacheTest {

    @Test
    void eachCacheCountsItsOwnIdsFromOne() {
        try (Cache a = LruCache.builder().capacity(1 << 20).build();
             Cache b = HyperClockCache.builder().capacity(1 << 20).estimatedEntryCharge(1024)
                     .build()) {
            for (long expected = 1; expected <= 100; expected++) {
                assertEquals(expected, CacheKeys.uniqueForCacheLifetime(a));
            }
            assertEquals(1, CacheKeys.uniqueForCacheLifetime(b));
        }
    }
}
