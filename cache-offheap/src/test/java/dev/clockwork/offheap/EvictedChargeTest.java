package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ShardedCache#evictedCharge()}: the charges of exactly the entries that were evicted. With
 * no erase, an entry no longer found was evicted, so the figure must equal the charges of the
 * missing keys; charges differ per key, so a count or a wrong entry's charge would not pass.
 */
class EvictedChargeTest {
    private static final byte[] VALUE = new byte[8];
    private static final int KEYS = 2_000;

    enum Kind {
        FIXED(() -> FixedHyperClockCache.builder().capacity(200_000).estimatedEntryCharge(250)
                .numShardBits(1).build()),
        AUTO(() -> AutoHyperClockCache.builder().capacity(200_000).numShardBits(1).build()),
        LRU(() -> LruCache.builder().capacity(200_000).numShardBits(1).build()),
        LRU_TINY_LFU(() -> LruCache.builder().capacity(200_000).numShardBits(1)
                .admission(AdmissionPolicy.TINY_LFU).build());

        final Supplier<ShardedCache> maker;

        Kind(Supplier<ShardedCache> maker) {
            this.maker = maker;
        }
    }

    private static long chargeOf(long key) {
        return 100 + key % 301;
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void isTheSumOfTheEvictedEntriesCharges(Kind kind) {
        try (ShardedCache cache = kind.maker.get()) {
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
