package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CheckedCache;
import dev.clockwork.cache.Priority;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link CheckedCache} refuses what a cache with a shared reference count cannot: a second
 * release of a handle while another caller also holds its entry. Each case first shows the
 * wrapped cache accepting the misuse (so the test proves the checked mode adds something), then
 * the checked cache refusing it with the other holder's reference intact.
 */
class CheckedCacheTest {
    enum Type {
        FIXED(() -> FixedHyperClockCache.builder().capacity(1 << 20).estimatedEntryCharge(256)
                .numShardBits(0).build()),
        AUTO(() -> AutoHyperClockCache.builder().capacity(1 << 20).numShardBits(0).build()),
        LRU(() -> LruCache.builder().capacity(1 << 20).numShardBits(0).build());

        final Supplier<Cache> build;

        Type(Supplier<Cache> build) {
            this.build = build;
        }
    }

    private static final byte[] VALUE = {1, 2, 3, 4, 5, 6, 7, 8};
    private final List<Cache> caches = new ArrayList<>();

    private Cache track(Cache cache) {
        caches.add(cache);
        return cache;
    }

    @AfterEach
    void close() {
        caches.forEach(Cache::close);
    }

    private static void put(Cache cache, long key) {
        assertTrue(cache.insert(key, ~key, VALUE, 0, VALUE.length, VALUE.length, Priority.LOW));
    }

    @ParameterizedTest
    @EnumSource(Type.class)
    void aSecondReleaseWhileAnotherHolderPinsTheEntryIsRefusedOnlyWhenChecked(Type type) {
        Cache raw = track(type.build.get());
        put(raw, 1);
        long mine = raw.lookup(1, ~1L);
        long theirs = raw.lookup(1, ~1L);
        raw.release(mine);
        raw.release(mine); // accepted: it takes the other holder's reference
        assertEquals(0, raw.pinnedUsage(), "premise: the plain cache cannot tell");
        assertThrows(IllegalStateException.class, () -> raw.release(theirs),
                "the other holder's own release is refused instead");

        CheckedCache checked = new CheckedCache(track(type.build.get()));
        put(checked, 1);
        long a = checked.lookup(1, ~1L);
        long b = checked.lookup(1, ~1L);
        assertNotEquals(a, b, "each pin is a handle of its own");
        long pinned = checked.pinnedUsage();
        assertFalse(checked.release(a));
        assertThrows(IllegalStateException.class, () -> checked.release(a));
        assertThrows(IllegalStateException.class, () -> checked.value(a));
        assertThrows(IllegalStateException.class, () -> checked.ref(a));
        assertEquals(pinned, checked.pinnedUsage(), "b keeps its reference");
        assertArrayEquals(VALUE, checked.value(b).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        assertEquals(1, checked.outstandingPins());
        assertFalse(checked.release(b));
        assertEquals(0, checked.pinnedUsage());
        assertEquals(0, checked.outstandingPins());
    }

    @ParameterizedTest
    @EnumSource(Type.class)
    void aPinReleasesOncePerReference(Type type) {
        CheckedCache checked = new CheckedCache(track(type.build.get()));
        long h = checked.insertPinned(2, ~2L, VALUE, 0, VALUE.length, VALUE.length, Priority.LOW);
        checked.ref(h);
        checked.release(h);
        assertEquals(8, checked.copyValue(h, new byte[8], 0), "one reference left");
        checked.release(h);
        assertThrows(IllegalStateException.class, () -> checked.release(h));
        assertThrows(IllegalStateException.class, () -> checked.release(12345));
        assertEquals(Cache.MISS, checked.lookup(3, ~3L));
        assertEquals(0, checked.pinnedUsage());
    }

    /** Two threads release one pin holding one reference: exactly one succeeds, every round. */
    @ParameterizedTest
    @EnumSource(Type.class)
    void racingReleasesOfOnePinPassOnce(Type type) throws Exception {
        CheckedCache checked = new CheckedCache(track(type.build.get()));
        put(checked, 4);
        long other = checked.lookup(4, ~4L); // another holder throughout
        for (int round = 0; round < 2_000; round++) {
            long pin = checked.lookup(4, ~4L);
            AtomicInteger passed = new AtomicInteger();
            CountDownLatch start = new CountDownLatch(1);
            Runnable release = () -> {
                try {
                    start.await();
                    checked.release(pin);
                    passed.incrementAndGet();
                } catch (IllegalStateException refused) {
                    // the loser
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            Thread t1 = Thread.ofPlatform().start(release);
            Thread t2 = Thread.ofPlatform().start(release);
            start.countDown();
            t1.join();
            t2.join();
            assertEquals(1, passed.get(), "round " + round);
        }
        assertEquals(1, checked.outstandingPins());
        assertEquals(8, checked.valueSize(other));
        checked.release(other);
        assertEquals(0, checked.pinnedUsage());
    }
}
