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
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link CheckedCache} refuses what a cache with a shared reference count cannot: a second
 * release of a handle while another caller also holds its entry. Each case first shows the
 * wrapped cache accepting the misuse (so the test proves the checked mode adds something), then
 * the checked cache refusing it with the other holder's reference intact. A pin is also refused
 * by every {@code CheckedCache} but the one that handed it out, even over the same cache.
 */
class CheckedCacheTest {
    private static final byte[] VALUE = {1, 2, 3, 4, 5, 6, 7, 8};
    private final List<Cache> caches = new ArrayList<>();

    /** A 1 MiB one-shard cache of {@code kind}. */
    private static Cache build(CacheKind kind) {
        return kind.build(1 << 20, 256, 0);
    }

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
    @EnumSource(CacheKind.class)
    void aSecondReleaseWhileAnotherHolderPinsTheEntryIsRefusedOnlyWhenChecked(CacheKind kind) {
        Cache raw = track(build(kind));
        put(raw, 1);
        long mine = raw.lookup(1, ~1L);
        long theirs = raw.lookup(1, ~1L);
        raw.release(mine);
        raw.release(mine); // accepted: it takes the other holder's reference
        assertEquals(0, raw.pinnedUsage(), "premise: the plain cache cannot tell");
        assertThrows(IllegalStateException.class, () -> raw.release(theirs),
                "the other holder's own release is refused instead");

        CheckedCache checked = new CheckedCache(track(build(kind)));
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
        assertArrayEquals(VALUE, checked.value(b).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(1, checked.outstandingPins());
        assertFalse(checked.release(b));
        assertEquals(0, checked.pinnedUsage());
        assertEquals(0, checked.outstandingPins());
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aPinReleasesOncePerReference(CacheKind kind) {
        CheckedCache checked = new CheckedCache(track(build(kind)));
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
    @EnumSource(CacheKind.class)
    void racingReleasesOfOnePinPassOnce(CacheKind kind) throws Exception {
        CheckedCache checked = new CheckedCache(track(build(kind)));
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

    /**
     * Every way a pin can be used, on {@code checked}: each must throw, as the pin is not one of
     * its own, before the wrapped cache is touched.
     */
    private static void assertRefused(CheckedCache checked, long pin) {
        List<Executable> uses = List.of(
                () -> checked.release(pin),
                () -> checked.release(pin, true),
                () -> checked.ref(pin),
                () -> checked.value(pin),
                () -> checked.valueSize(pin),
                () -> checked.copyValue(pin, new byte[VALUE.length], 0),
                () -> checked.charge(pin));
        for (Executable use : uses) {
            assertThrows(IllegalStateException.class, use, "pin " + pin);
        }
    }

    /**
     * Two checked caches, over the same cache or over two: each refuses the other's pin (the
     * first pin of each, which a counter per instance would make the same number) and the wrapped
     * cache's own handle, and nothing changes: both pins keep their reference.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aPinOfAnotherCheckedCacheIsRefusedAndChangesNothing(CacheKind kind) {
        Cache shared = track(build(kind));
        assertPinsAreNotShared(new CheckedCache(shared), new CheckedCache(shared));
        assertPinsAreNotShared(new CheckedCache(track(build(kind))),
                new CheckedCache(track(build(kind))));
    }

    private static void assertPinsAreNotShared(CheckedCache a, CheckedCache b) {
        put(a, 5);
        if (b.cache() != a.cache()) {
            put(b, 5);
        }
        long raw = a.cache().lookup(5, ~5L);
        long pinA = a.lookup(5, ~5L);
        long pinB = b.lookup(5, ~5L);
        long pinnedA = a.cache().pinnedUsage();
        long pinnedB = b.cache().pinnedUsage();

        assertRefused(b, pinA);
        assertRefused(a, pinB);
        assertRefused(a, raw);

        assertEquals(pinnedA, a.cache().pinnedUsage(), "a's entry keeps every reference");
        assertEquals(pinnedB, b.cache().pinnedUsage(), "b's entry keeps every reference");
        assertEquals(1, a.outstandingPins());
        assertEquals(1, b.outstandingPins());
        assertEquals(VALUE.length, a.valueSize(pinA), "a's pin still works on a");
        assertEquals(VALUE.length, b.valueSize(pinB), "b's pin still works on b");
        assertFalse(a.release(pinA));
        assertFalse(b.release(pinB));
        a.cache().release(raw);
        assertEquals(0, a.cache().pinnedUsage());
        assertEquals(0, b.cache().pinnedUsage());
    }

    /**
     * Two threads take pins from two checked caches over one cache at once: no pin number is
     * handed out twice, and neither cache accepts a pin of the other.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void racingCheckedCachesNeverHandOutTheSamePin(CacheKind kind) throws Exception {
        Cache shared = track(build(kind));
        put(shared, 6);
        CheckedCache a = new CheckedCache(shared);
        CheckedCache b = new CheckedCache(shared);
        int pinsEach = 500;
        long[] pinsA = new long[pinsEach];
        long[] pinsB = new long[pinsEach];
        CountDownLatch start = new CountDownLatch(1);
        Thread ta = Thread.ofPlatform().start(() -> lookUpAfter(start, a, pinsA));
        Thread tb = Thread.ofPlatform().start(() -> lookUpAfter(start, b, pinsB));
        start.countDown();
        ta.join();
        tb.join();

        long[] all = new long[2 * pinsEach];
        System.arraycopy(pinsA, 0, all, 0, pinsEach);
        System.arraycopy(pinsB, 0, all, pinsEach, pinsEach);
        assertEquals(all.length, Arrays.stream(all).distinct().count(), "a pin handed out twice");
        for (int i = 0; i < pinsEach; i++) {
            long pin = pinsA[i];
            assertThrows(IllegalStateException.class, () -> b.valueSize(pin));
            long theirs = pinsB[i];
            assertThrows(IllegalStateException.class, () -> a.release(theirs));
        }
        assertEquals(pinsEach, a.outstandingPins());
        assertEquals(pinsEach, b.outstandingPins());
        for (int i = 0; i < pinsEach; i++) {
            a.release(pinsA[i]);
            b.release(pinsB[i]);
        }
        assertEquals(0, shared.pinnedUsage());
    }

    private static void lookUpAfter(CountDownLatch start, CheckedCache checked, long[] pins) {
        try {
            start.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (int i = 0; i < pins.length; i++) {
            pins[i] = checked.lookup(6, ~6L);
        }
    }
}
