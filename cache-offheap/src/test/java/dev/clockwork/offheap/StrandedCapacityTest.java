package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A clock cache holds back capacity while the value slabs hold stranded pages (free blocks whose
 * pages a live block keeps resident), and takes it back once they are gone: the slabs'
 * resident bytes stay near capacity when the value sizes move.
 */
class StrandedCapacityTest {
    private static final long MIB = 1 << 20;
    private static final long CAPACITY = 64 * MIB;
    /** Under a page: a page of such blocks is free only once every block in it is. */
    private static final int SMALL = 2560;
    private static final int LARGE = 40_000;

    private static void fill(Cache cache, long firstKey, int length, long bytes) {
        byte[] value = new byte[length];
        for (long k = firstKey; k < firstKey + bytes / length; k++) {
            value[0] = (byte) k;
            assertTrue(cache.insert(k, ~k, value, 0, length, length, Priority.LOW));
        }
    }

    @Test
    void autoHoldsCapacityBackWhileEvictionsStrandPagesAndTakesItBackAfter() {
        try (Cache cache = HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(CAPACITY).numShardBits(0).build()) {
            movesFromSmallToLarge(cache);
        }
    }

    @Test
    void fixedHoldsCapacityBackWhileEvictionsStrandPagesAndTakesItBackAfter() {
        try (Cache cache = HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(CAPACITY).numShardBits(0).estimatedEntryCharge(SMALL).build()) {
            movesFromSmallToLarge(cache);
        }
    }

    private static void movesFromSmallToLarge(Cache cache) {
        fill(cache, 0, SMALL, 2 * CAPACITY);
        assertTrue(cache.usage() > CAPACITY * 95 / 100, "full: " + cache.usage());
        // the clock evicts the small values in slot order, at random in their slab: half of
        // them gone, nearly every page of theirs still holds a live neighbour
        fill(cache, 1L << 40, LARGE, CAPACITY / 2);
        long heldBack = cache.usage();
        assertTrue(heldBack < CAPACITY * 85 / 100, "usage " + heldBack);
        // the small values all evicted, their chunks emptied: no cut once a trim has seen it
        fill(cache, 1L << 41, LARGE, 2 * CAPACITY);
        LockSupport.parkNanos(200_000_000L);
        fill(cache, 1L << 42, LARGE, CAPACITY / 4);
        assertTrue(cache.usage() > CAPACITY * 90 / 100, "back: " + cache.usage());
    }
}
