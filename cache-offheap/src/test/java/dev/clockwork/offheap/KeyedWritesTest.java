package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.versioned;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CheckedCache;
import dev.clockwork.cache.KeyPredicate;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.key.DbId;
import dev.clockwork.cache.key.FileCacheKey;
import dev.clockwork.cache.key.SessionIdGenerator;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code put}, {@code putIfAbsent}, {@code clear} and {@code eraseIf}, case by case on every cache
 * type: the meanings the model test ({@link KeyedWritesModelTest}) checks at random, each forced
 * here, plus the races on one key and the callbacks' rules.
 */
class KeyedWritesTest {

    @AfterEach
    void noNativeLeak() {
        assertEquals(0, NativeMemory.outstandingBytes());
    }

    private static ShardedCache build(CacheKind kind) {
        return kind.build(1 << 22, 256, 2);
    }

    private static byte[] read(Cache cache, long handle) {
        byte[] out = new byte[(int) cache.valueSize(handle)];
        cache.copyValue(handle, out, 0);
        return out;
    }

    private static byte[] lookupValue(Cache cache, long key) {
        long h = cache.lookup(key, ~key);
        if (h == Cache.MISS) {
            return null;
        }
        try {
            return read(cache, h);
        } finally {
            cache.release(h);
        }
    }

    private static boolean put(Cache cache, long key, byte[] v, long charge) {
        return cache.put(key, ~key, v, 0, v.length, charge, Priority.LOW);
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void putReplacesWhereInsertMayKeep(CacheKind kind) {
        try (ShardedCache cache = build(kind)) {
            byte[] a = versioned(1, 1, 100);
            byte[] b = versioned(1, 2, 100);
            byte[] c = versioned(1, 3, 100);
            assertTrue(cache.insert(1, ~1L, a, 0, a.length, 100, Priority.LOW));
            assertTrue(put(cache, 1, b, 100));
            assertArrayEquals(b, lookupValue(cache, 1));
            assertEquals(1, cache.entryCount());
            assertTrue(cache.insert(1, ~1L, c, 0, c.length, 100, Priority.LOW));
            // The plain insert keeps its RocksDB meaning: HyperClock keeps the present entry.
            assertArrayEquals(kind.hyperClock() ? b : c, lookupValue(cache, 1));
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aPinnedOldValueStaysReadableAndIsFreedOnItsLastRelease(CacheKind kind) {
        try (ShardedCache cache = build(kind)) {
            byte[] a = versioned(2, 1, 3000);
            byte[] b = versioned(2, 2, 100);
            assertTrue(put(cache, 2, a, 3000));
            long pinned = cache.lookup(2, ~2L);
            long usageWithOld = cache.usage();
            assertTrue(put(cache, 2, b, 100));
            assertArrayEquals(b, lookupValue(cache, 2));
            assertArrayEquals(a, read(cache, pinned), "the reader's bytes are intact");
            assertTrue(cache.release(pinned), "the last release frees the old entry");
            assertTrue(cache.usage() < usageWithOld, "its charge went with it");
        }
    }

    /** Strict limit, the rest pinned: the new value cannot fit, and the old one is gone too. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aRefusedPutLeavesTheKeyAbsent(CacheKind kind) {
        try (ShardedCache cache = (ShardedCache) kind.unitCharged(64).strictCapacityLimit(true)
                .admission(AdmissionPolicy.NONE).build()) {
            byte[] v = versioned(3, 1, 16);
            long other = cache.insertPinned(9, ~9L, v, 0, v.length, 50, Priority.LOW);
            assertNotEquals(Cache.MISS, other);
            assertTrue(put(cache, 3, v, 10));
            long rejects = cache.stats().memoryLimitRejects();
            assertFalse(put(cache, 3, versioned(3, 2, 16), 30));
            assertEquals(rejects + 1, cache.stats().memoryLimitRejects());
            assertEquals(Cache.MISS, cache.lookup(3, ~3L), "no lookup returns the old value");
            cache.release(other);
        }
    }

    /**
     * Without a strict limit and without room (the rest pinned), the new value is stored over
     * capacity and evicted at once: accepted, and the old value is gone.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aPutWithoutRoomLeavesTheKeyAbsent(CacheKind kind) {
        try (ShardedCache cache = (ShardedCache) kind.unitCharged(64)
                .admission(AdmissionPolicy.NONE).build()) {
            byte[] v = versioned(4, 1, 16);
            long other = cache.insertPinned(9, ~9L, v, 0, v.length, 50, Priority.LOW);
            assertNotEquals(Cache.MISS, other);
            assertTrue(put(cache, 4, v, 10));
            assertTrue(put(cache, 4, versioned(4, 2, 16), 30), "accepted");
            byte[] now = lookupValue(cache, 4);
            assertTrue(now == null || now[8] == 2, "never the old value");
            cache.release(other);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void putIfAbsentStoresOnlyWhenAbsentAndTheStatsTellWhyNot(CacheKind kind) {
        try (ShardedCache cache = (ShardedCache) kind.unitCharged(64).strictCapacityLimit(true)
                .admission(AdmissionPolicy.NONE).build()) {
            byte[] a = versioned(5, 1, 16);
            byte[] b = versioned(5, 2, 16);
            long pinned = cache.insertPinned(9, ~9L, a, 0, a.length, 50, Priority.LOW);
            assertNotEquals(Cache.MISS, pinned);
            assertTrue(cache.putIfAbsent(5, ~5L, a, 0, a.length, 10, Priority.LOW));
            var before = cache.stats();
            assertFalse(cache.putIfAbsent(5, ~5L, b, 0, b.length, 10, Priority.LOW));
            assertEquals(before, cache.stats(), "present: nothing counted");
            assertArrayEquals(a, lookupValue(cache, 5));
            assertFalse(cache.putIfAbsent(6, ~6L, b, 0, b.length, 30, Priority.LOW));
            assertEquals(before.memoryLimitRejects() + 1, cache.stats().memoryLimitRejects(),
                    "absent and refused: counted as a refusal");
            assertEquals(Cache.MISS, cache.lookup(6, ~6L));
            cache.release(pinned);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void badArgumentsChangeNothing(CacheKind kind) {
        try (ShardedCache cache = build(kind)) {
            byte[] a = versioned(7, 1, 16);
            assertTrue(put(cache, 7, a, 16));
            assertThrows(IllegalArgumentException.class, () -> put(cache, 7, a, -1));
            assertThrows(IllegalArgumentException.class, () -> put(cache, 7, a, 1L << 40));
            assertThrows(NullPointerException.class,
                    () -> cache.put(7, ~7L, a, 0, a.length, 16, null));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> cache.putIfAbsent(7, ~7L, a, 8, a.length, 16, Priority.LOW));
            assertThrows(NullPointerException.class, () -> cache.eraseIf(null));
            assertArrayEquals(a, lookupValue(cache, 7), "the key kept its value");
        }
    }

    /** Threads put their own values into the same keys at once: one entry, one of the values. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void racingPutsLeaveOneEntryPerKey(CacheKind kind) throws Exception {
        int threads = 4;
        int keys = 1_000;
        try (ShardedCache cache = build(kind)) {
            AtomicInteger stored = new AtomicInteger();
            race(threads, id -> {
                for (int k = 0; k < keys; k++) {
                    put(cache, k, versioned(k, id, 64), 64);
                    if (cache.putIfAbsent(k + keys, ~(k + keys), versioned(k, id, 64), 0, 64, 64,
                            Priority.LOW)) {
                        stored.incrementAndGet();
                    }
                }
            });
            assertEquals(keys, stored.get(), "one putIfAbsent per key stored");
            assertEquals(2L * keys, cache.entryCount(), "one entry per key");
            int[] visits = new int[2 * keys];
            cache.forEachEntry((key0, key1, value, charge) -> visits[(int) key0]++, 256);
            for (int k = 0; k < 2 * keys; k++) {
                assertEquals(1, visits[k], "key " + k);
            }
        }
    }

    interface Worker {
        void run(int id) throws Exception;
    }

    static void race(int threads, Worker worker) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] all = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            all[t] = new Thread(() -> {
                try {
                    start.await();
                    worker.run(id);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            all[t].start();
        }
        for (Thread t : all) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void eraseIfErasesWhatThePredicatePicksAndClearTheRest(CacheKind kind) {
        try (ShardedCache cache = build(kind)) {
            for (int k = 0; k < 1000; k++) {
                assertTrue(put(cache, k, versioned(k, 1, 32), 32));
            }
            long pinned = cache.lookup(2, ~2L);
            assertEquals(500, cache.eraseIf((key0, key1) -> key0 % 2 == 0));
            for (int k = 0; k < 1000; k++) {
                assertEquals(k % 2 == 0, lookupValue(cache, k) == null, "key " + k);
            }
            assertArrayEquals(versioned(2, 1, 32), read(cache, pinned), "erased, still pinned");
            cache.release(pinned);
            cache.clear();
            assertEquals(0, cache.entryCount());
            assertEquals(0, cache.eraseIf(KeySweep.EVERY_KEY));
        }
    }

    /**
     * A predicate that throws: the call stops, what it picked is erased, nothing is pinned. Through
     * a {@link CheckedCache}, which forwards the new calls and tracks every pin taken meanwhile.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aThrowingPredicateStopsTheCallWithTheCacheConsistent(CacheKind kind) {
        try (CheckedCache cache = new CheckedCache(build(kind))) {
            for (int k = 0; k < 1000; k++) {
                assertTrue(put(cache, k, versioned(k, 1, 32), 32));
            }
            boolean[] picked = new boolean[1000];
            AtomicInteger calls = new AtomicInteger();
            RuntimeException boom = new RuntimeException("boom");
            KeyPredicate predicate = (key0, key1) -> {
                if (calls.incrementAndGet() == 600) {
                    throw boom;
                }
                picked[(int) key0] = key0 % 3 == 0;
                return picked[(int) key0];
            };
            assertSame(boom, assertThrows(RuntimeException.class, () -> cache.eraseIf(predicate)));
            int erasedKeys = 0;
            for (int k = 0; k < 1000; k++) {
                boolean absent = lookupValue(cache, k) == null;
                assertEquals(picked[k], absent, "key " + k);
                erasedKeys += absent ? 1 : 0;
            }
            assertTrue(erasedKeys > 0);
            assertEquals(0, cache.pinnedUsage(), "nothing left pinned");
            assertEquals(0, cache.outstandingPins());
            assertTrue(cache.putIfAbsent(5000, ~5000L, versioned(5000, 1, 32), 0, 32, 32,
                    Priority.LOW));
            cache.clear();
            assertEquals(0, cache.entryCount());
        }
    }

    /** Calls back from the predicate: as a visitor's (HyperClock: work; LRU: refused). */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aPredicateCallingBackFollowsTheVisitorsRules(CacheKind kind) {
        try (ShardedCache cache = build(kind)) {
            for (int k = 0; k < 100; k++) {
                assertTrue(put(cache, k, versioned(k, 1, 32), 32));
            }
            KeyPredicate callsBack = (key0, key1) -> cache.erase(key0 + 1, ~(key0 + 1)) || true;
            if (kind.hyperClock()) {
                assertTrue(cache.eraseIf(callsBack) > 0);
                cache.clear();
                assertEquals(0, cache.entryCount());
            } else {
                assertThrows(IllegalStateException.class, () -> cache.eraseIf(callsBack));
                cache.clear();
                assertEquals(0, cache.entryCount(), "the cache works after the refusal");
            }
        }
    }

    /** A put from inside an admission policy is refused: it might wait for a held stripe. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void putFromInsideAnAdmissionPolicyIsRefused(CacheKind kind) {
        AtomicReference<Cache> self = new AtomicReference<>();
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Admission calling = new Admission() {
            @Override
            public void recordAccess(long keyHash, boolean hit) {
            }

            @Override
            public boolean admit(long candidateHash, long victimHash) {
                try {
                    self.get().putIfAbsent(1, 2, new byte[8], 0, 8, 8, Priority.LOW);
                } catch (Throwable t) {
                    seen.compareAndSet(null, t);
                }
                return true;
            }
        };
        try (ShardedCache cache = (ShardedCache) kind.unitCharged(4).admission(calling).build()) {
            self.set(cache);
            for (int k = 0; k < 20; k++) {
                put(cache, k, versioned(k, 1, 16), 1);
            }
            assertTrue(seen.get() instanceof IllegalStateException, String.valueOf(seen.get()));
        }
    }

    /**
     * A policy's {@code recordInsert} runs under the stripe of a striped write's key: a put or a
     * load of another key from there is refused (it would take a second stripe, and two threads
     * doing so in opposite orders would wait for each other), while under a plain insert, which
     * holds no stripe, the same calls work.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void writesFromRecordInsertUnderAStripeAreRefused(CacheKind kind) {
        AtomicReference<Cache> self = new AtomicReference<>();
        List<Throwable> seen = new CopyOnWriteArrayList<>();
        AtomicBoolean inside = new AtomicBoolean();
        AtomicInteger keys = new AtomicInteger();
        Admission calling = new Admission() {
            @Override
            public void recordAccess(long keyHash, boolean hit) {
            }

            @Override
            public boolean admit(long candidateHash, long victimHash) {
                return true;
            }

            @Override
            public void recordInsert(long charge) {
                if (!inside.compareAndSet(false, true)) {
                    return; // not for the inserts its own calls make
                }
                try {
                    Cache cache = self.get();
                    long key = keys.incrementAndGet();
                    try {
                        cache.put(1000, key, new byte[8], 0, 8, 8, Priority.LOW);
                    } catch (Throwable t) {
                        seen.add(t);
                    }
                    try {
                        cache.getOrLoad(2000, key, new byte[8], 0,
                                (k0, k1) -> MemorySegment.ofArray(new byte[8]), Priority.LOW);
                    } catch (Throwable t) {
                        seen.add(t);
                    }
                } finally {
                    inside.set(false);
                }
            }
        };
        try (ShardedCache cache = (ShardedCache) kind.unitCharged(1 << 10).admission(calling)
                .build()) {
            self.set(cache);
            cache.insert(1, 1, new byte[8], 0, 8, 8, Priority.LOW);
            assertEquals(List.of(), seen, "under a plain insert the policy's calls work");
            put(cache, 2, versioned(2, 1, 16), 1);
            assertEquals(2, seen.size(), "under put's stripe the policy's put and load: " + seen);
            for (Throwable t : seen) {
                assertTrue(t instanceof IllegalStateException, String.valueOf(t));
            }
        }
    }

    @Test
    void blocksBelowPicksOneFilesBlocks() {
        SessionIdGenerator sessions = new SessionIdGenerator(0x1234_5678L, 1);
        DbId db = DbId.random();
        FileCacheKey file = FileCacheKey.of(db, sessions.next(), 7);
        FileCacheKey other = FileCacheKey.of(db, sessions.next(), 7);
        try (ShardedCache cache = build(CacheKind.AUTO)) {
            byte[] v = versioned(1, 1, 16);
            for (long offset = 0; offset < 64 * 4096; offset += 4096) {
                cache.put(file.key0(), file.key1(offset), v, 0, 16, 16, Priority.LOW);
                cache.put(other.key0(), other.key1(offset), v, 0, 16, 16, Priority.LOW);
            }
            assertEquals(64, cache.eraseIf(file.blocksBelow(64 * 4096)));
            assertEquals(64, cache.entryCount(), "the other file's blocks stay");
            assertEquals(Cache.MISS, cache.lookup(file.key0(), file.key1(4096)));
            assertEquals(1, cache.eraseIf(other.blocksBelow(1)), "offset 0 only");
            assertEquals(63, cache.entryCount());
        }
    }
}
