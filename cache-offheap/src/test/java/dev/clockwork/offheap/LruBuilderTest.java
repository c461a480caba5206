package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The LRU builder: arguments checked and named, defaults as RocksDB's. */
class LruBuilderTest extends LruCacheTestBase {
    @Test
    void builderArgumentsAreCheckedAndNamed() {
        assertBuildFails(LruCache.builder().admission(AdmissionPolicy.NONE), "capacity");
        assertBuildFails(LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(0), "capacity");
        assertBuildFails(LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(-1), "capacity");
        assertBuildFails(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000)
                .numShardBits(17), "numShardBits");
        assertBuildFails(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000)
                .numShardBits(-2), "numShardBits");
        for (double bad : new double[] {-0.01, -1, 1.01, 2, Double.NaN,
                Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertBuildFails(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000)
                    .highPriPoolRatio(bad),
                    "highPriPoolRatio");
            assertBuildFails(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000)
                    .highPriPoolRatio(0)
                    .lowPriPoolRatio(bad), "lowPriPoolRatio");
        }
        String sum = assertBuildFails(LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(1000).highPriPoolRatio(0.6)
                .lowPriPoolRatio(0.5), "highPriPoolRatio");
        assertTrue(sum.contains("lowPriPoolRatio"), sum);
        // The default high ratio is 0.5: a low ratio of 0.6 alone overflows the sum.
        assertBuildFails(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000)
                .lowPriPoolRatio(0.6), "lowPriPoolRatio");
        assertEquals(0, NativeMemory.outstandingBytes(), "a failed build leaked");

        // The edges are allowed.
        track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000).highPriPoolRatio(1)
                .lowPriPoolRatio(0).build());
        track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000).highPriPoolRatio(0)
                .lowPriPoolRatio(1).build());
        track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000)
                .highPriPoolRatio(0.25).lowPriPoolRatio(0.75)
                .build());
        track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000).highPriPoolRatio(0)
                .lowPriPoolRatio(0).build());
    }

    private static String assertBuildFails(LruCache.Builder builder, String argument) {
        var e = assertThrows(IllegalArgumentException.class, builder::build);
        assertTrue(e.getMessage().contains(argument),
                "message should name " + argument + ": " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void defaultsFollowRocksDb() {
        LruCache cache = track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1000)
                .numShardBits(0)
                .chargeMetadata(false).build());
        // high 0.5, low 0: HIGH to the high pool up to 500, LOW to bottom.
        for (long k = 1; k <= 6; k++) {
            put(cache, k, HIGH);
        }
        put(cache, 7, LOW);
        assertPools(cache, 500, 0, 200, 0);
        assertEquals(1, track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(512 << 10)
                .build()).numShards());
        assertEquals(2, track(LruCache.builder().admission(AdmissionPolicy.NONE).capacity(1 << 20)
                .build()).numShards());
    }
}
