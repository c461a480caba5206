package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.versioned;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.CheckedCache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code Cache.read}: a value read in place by a callback, on every cache type; on the HyperClock
 * caches without a reference (the reader's result counts only if the entry did not change under
 * it). Values are {@link TestValues#versioned}'s: key, version, then a pattern of both.
 */
class ReadTest {
    private static final long ABSENT = -77;

    @AfterEach
    void noNativeLeak() {
        assertEquals(0, NativeMemory.outstandingBytes());
    }

    /** The version of a whole value of {@code key}; throws if the bytes are not one. */
    static long versionOf(MemorySegment value, long key) {
        long found = value.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        long version = value.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        byte[] expected = versioned(key, version, (int) value.byteSize());
        if (found != key || MemorySegment.mismatch(value, 0, value.byteSize(),
                MemorySegment.ofArray(expected), 0, expected.length) != -1) {
            throw new IllegalStateException("key " + key + ": read bytes of key " + found
                    + " version " + version);
        }
        return version;
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void readsHitsInPlaceAndSaysAbsent(CacheKind kind) {
        try (ShardedCache cache = kind.build(1 << 20, 64, 1)) {
            byte[] v = versioned(7, 3, 100);
            assertTrue(cache.insert(7, 70, v, 0, v.length, 100, Priority.LOW));
            assertEquals(3, cache.read(7, 70, value -> versionOf(value, 7), ABSENT));
            assertEquals(100, cache.read(7, 70, MemorySegment::byteSize, ABSENT));
            assertEquals(ABSENT, cache.read(7, 71, MemorySegment::byteSize, ABSENT));
            assertTrue(cache.read(7, 70, value -> value.isReadOnly() ? 1 : 0, ABSENT) == 1,
                    "the view is read-only");
            assertEquals(0, cache.pinnedUsage());
            var npe = assertThrows(NullPointerException.class, () -> cache.read(7, 70, null, 0));
            assertTrue(npe.getMessage().contains("reader"), npe.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aReaderExceptionOnAWholeValueReachesTheCaller(CacheKind kind) {
        try (ShardedCache cache = kind.build(1 << 20, 64, 1)) {
            byte[] v = versioned(9, 1, 64);
            assertTrue(cache.insert(9, 90, v, 0, v.length, 64, Priority.LOW));
            IllegalArgumentException mine = new IllegalArgumentException("the reader's own");
            ValueReader throwing = value -> {
                throw mine;
            };
            assertSame(mine, assertThrows(IllegalArgumentException.class,
                    () -> cache.read(9, 90, throwing, ABSENT)));
            assertEquals(0, cache.pinnedUsage());
            cache.close();
            assertThrows(IllegalStateException.class,
                    () -> cache.read(9, 90, MemorySegment::byteSize, ABSENT));
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void checkedCacheReadsThroughTheWrappedCache(CacheKind kind) {
        try (ShardedCache cache = kind.build(1 << 20, 64, 1)) {
            CheckedCache checked = new CheckedCache(cache);
            byte[] v = versioned(5, 2, 80);
            assertTrue(checked.insert(5, 50, v, 0, v.length, 80, Priority.LOW));
            assertEquals(2, checked.read(5, 50, value -> versionOf(value, 5), ABSENT));
            assertEquals(0, cache.pinnedUsage());
        }
    }

    /**
     * Readers read in place while writers erase, evict and re-insert the same keys with new
     * versions. The reader throws on any bytes that are not one whole value of its key; such a
     * throw, or a result from such bytes, must never reach the caller: every read returns a
     * version or says absent, and no reference is left behind.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void readersNeverGetAResultOfAnotherKeysOrATornValue(CacheKind kind) throws Exception {
        raceReaders(kind, key -> value -> versionOf(value, key));
    }

    /**
     * The race above with the reader {@code readerOf} makes for each key: it must return the
     * version of a whole value of its key, and throw on anything else.
     */
    static void raceReaders(CacheKind kind, LongFunction<ValueReader> readerOf) throws Exception {
        int keys = 256;
        int length = 96;
        try (ShardedCache cache = kind.build(64L * 200, 64, 1)) { // room for ~100: eviction
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong hits = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                threads.add(GetTest.churn(cache, keys, length, stop));
            }
            for (int r = 0; r < 2; r++) {
                threads.add(new Thread(() -> {
                    var random = ThreadLocalRandom.current();
                    try {
                        while (!stop.get()) {
                            long key = random.nextInt(keys);
                            long version = cache.read(key, ~key, readerOf.apply(key), ABSENT);
                            if (version != ABSENT) {
                                assertTrue(version > 0, "version " + version);
                                hits.incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            threads.forEach(Thread::start);
            Thread.sleep(1500);
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("a reader got a result it must not", failure.get());
            }
            assertTrue(hits.get() > 1000, "readers hit " + hits.get() + " times");
            assertEquals(0, cache.pinnedUsage());
        }
    }
}
