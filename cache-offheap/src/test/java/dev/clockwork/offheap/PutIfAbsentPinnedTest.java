package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.versioned;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link EngineCache#putIfAbsentPinned}, the get-or-load's store: pins the present entry or the
 * one it stores, refuses as an insert does, and of racing calls on one key exactly one stores.
 */
class PutIfAbsentPinnedTest {

    @AfterEach
    void noNativeLeak() {
        assertEquals(0, NativeMemory.outstandingBytes());
    }

    private static EngineCache build(CacheKind kind) {
        return (EngineCache) kind.build(1 << 22, 256, 2);
    }

    private static byte[] read(Cache cache, long handle) {
        byte[] out = new byte[(int) cache.valueSize(handle)];
        cache.copyValue(handle, out, 0);
        return out;
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void storesWhenAbsentAndPinsThePresentEntryOtherwise(CacheKind kind) {
        try (EngineCache cache = build(kind)) {
            byte[] a = versioned(5, 1, 100);
            byte[] b = versioned(5, 2, 100);
            long first = cache.putIfAbsentPinned(5, 55, a, 0, a.length, 100, Priority.LOW);
            assertNotEquals(Cache.MISS, first);
            assertArrayEquals(a, read(cache, first));
            long inserts = cache.stats().inserts();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment bs = arena.allocate(b.length);
                bs.copyFrom(MemorySegment.ofArray(b));
                long second = cache.putIfAbsentPinned(5, 55, bs, 100, Priority.LOW);
                assertArrayEquals(a, read(cache, second), "the present entry, not the new value");
                cache.release(second);
            }
            assertEquals(inserts, cache.stats().inserts(), "nothing stored the second time");
            assertEquals(1, cache.entryCount());
            cache.release(first);
            long looked = cache.lookup(5, 55);
            assertArrayEquals(a, read(cache, looked));
            cache.release(looked);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void answersMissWhenTheStrictLimitRefuses(CacheKind kind) {
        try (EngineCache cache = (EngineCache) kind.unitCharged(64).strictCapacityLimit(true)
                .build()) {
            byte[] v = versioned(1, 1, 16);
            long pinned = cache.insertPinned(1, 1, v, 0, v.length, 64, Priority.LOW);
            assertNotEquals(Cache.MISS, pinned);
            long rejects = cache.stats().memoryLimitRejects();
            assertEquals(Cache.MISS, cache.putIfAbsentPinned(2, 2, v, 0, v.length, 64,
                    Priority.LOW));
            assertEquals(rejects + 1, cache.stats().memoryLimitRejects());
            assertEquals(Cache.MISS, cache.lookup(2, 2));
            cache.release(pinned);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void checksArgumentsBeforeAnythingChanges(CacheKind kind) {
        try (EngineCache cache = build(kind)) {
            byte[] v = versioned(1, 1, 16);
            assertThrows(IllegalArgumentException.class,
                    () -> cache.putIfAbsentPinned(1, 1, v, 0, v.length, -1, Priority.LOW));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> cache.putIfAbsentPinned(1, 1, v, 4, v.length, 8, Priority.LOW));
            assertThrows(NullPointerException.class,
                    () -> cache.putIfAbsentPinned(1, 1, v, 0, v.length, 8, null));
            assertEquals(0, cache.entryCount());
        }
    }

    /** Threads race on each key with their own values: every one pins the single value stored. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void racingCallsOnOneKeyStoreOnceAndAllPinIt(CacheKind kind) throws Exception {
        int threads = 4;
        int keys = 2_000;
        try (EngineCache cache = build(kind)) {
            long[][] handles = new long[threads][keys];
            CyclicBarrier start = new CyclicBarrier(threads);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers[t] = new Thread(() -> {
                    try {
                        start.await();
                        for (int k = 0; k < keys; k++) {
                            byte[] v = versioned(k, id, 64);
                            handles[id][k] = cache.putIfAbsentPinned(k, ~k, v, 0, v.length, 64,
                                    Priority.LOW);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                workers[t].start();
            }
            for (Thread w : workers) {
                w.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(keys, cache.stats().inserts(), "one store per key");
            assertEquals(keys, cache.entryCount(), "one entry per key");
            for (int k = 0; k < keys; k++) {
                byte[] stored = read(cache, handles[0][k]);
                for (int t = 0; t < threads; t++) {
                    assertArrayEquals(stored, read(cache, handles[t][k]), "key " + k);
                    cache.release(handles[t][k]);
                }
            }
        }
    }
}
