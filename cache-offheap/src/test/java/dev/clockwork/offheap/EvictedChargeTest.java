package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ShardedCache#evictedCharge()}: the charges of exactly the entries that were evicted. With
 * no erase, an entry no longer found was evicted, so the figure must equal the charges of the
 * missing keys; charges differ per key, so a count or a wrong entry's charge would not pass.
 */
class EvictedChargeTest {
    private static final byte[] VALUE = new byte[8];
    private static final int KEYS = 2_000;

    /** Every type without admission, and LRU also with TinyLFU. */
    static Stream<Arguments> caches() {
        return Stream.of(arguments(CacheKind.FIXED, AdmissionPolicy.NONE),
                arguments(CacheKind.AUTO, AdmissionPolicy.NONE),
                arguments(CacheKind.LRU, AdmissionPolicy.NONE),
                arguments(CacheKind.LRU, AdmissionPolicy.TINY_LFU));
    }

    private static long chargeOf(long key) {
        return 100 + key % 301;
    }

    @ParameterizedTest
    @MethodSource("caches")
    void isTheSumOfTheEvictedEntriesCharges(CacheKind kind, AdmissionPolicy admission) {
        try (ShardedCache cache = kind.builder(200_000, 250).numShardBits(1).admission(admission)
                .build()) {
            long refused = 0;
            for (long key = 0; key < KEYS; key++) {
                if (!cache.insert(key, 7, VALUE, 0, VALUE.length, chargeOf(key), Priority.LOW)) {
                    refused += chargeOf(key);
                }
                if (key % 3 == 0) { // some hits, so that eviction has a choice to make
                    long handle = cache.lookup(key / 2, 7);
                    if (handle != Cache.MISS) {
                        cache.release(handle);
                    }
                }
            }
            long missing = 0;
            for (long key = 0; key < KEYS; key++) {
                long handle = cache.lookup(key, 7);
                if (handle == Cache.MISS) {
                    missing += chargeOf(key);
                } else {
                    cache.release(handle);
                }
            }
            assertTrue(cache.stats().evictions() > 1000, "a cache of ~800 entries evicted");
            assertEquals(missing - refused, cache.evictedCharge());
        }
    }
}
