package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.checksum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.Priority;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Cache#forEachEntry} on every cache type: exactly the entries in the cache, with their
 * values and charges; none erased or evicted; pinned ones included; values never torn or another
 * key's while writers (and, for the Auto table, growth) run; every entry present throughout seen
 * exactly once per pass; misuse refused with the argument named; close during a visit safe.
 */
class ForEachEntryTest {
    private final List<Cache> caches = new ArrayList<>();

    /** A cache of {@code kind}, closed after the test; a fixed table sized for 200-byte entries. */
    private Cache cache(CacheKind kind, long capacity, int shardBits) {
        Cache cache = kind.builder(capacity, 200).numShardBits(shardBits)
                .admission(AdmissionPolicy.NONE).build();
        caches.add(cache);
        return cache;
    }

    @AfterEach
    void closeAllAndCheckNativeMemory() {
        caches.forEach(Cache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
        assertEquals(0, NativeMemory.reservedBytes(), "reservation not released");
    }

    // ---------------------------------------------------------------- values that name their key

    /** Key halves of key id {@code k}: both vary, so that the key recovery is checked too. */
    static long key0(long k) {
        return 0x5EED_0000_0000_0000L ^ (k * 0x9E3779B97F4A7C15L);
    }

    static long key1(long k) {
        return ~k;
    }

    /** 24..279 bytes: key0, key1, a key-dependent pattern, a checksum of everything before it. */
    static byte[] valueFor(long k, int version) {
        int length = 24 + (int) (((k * 2654435761L) + version * 40503L) & 255);
        byte[] v = new byte[length];
        MemorySegment s = MemorySegment.ofArray(v);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, key0(k));
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, key1(k));
        for (int i = 16; i < length - 8; i++) {
            v[i] = (byte) (k * 31 + version * 7 + i);
        }
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, length - 8, checksum(s, length - 8));
        return v;
    }

    /** Null if the visited value is intact and is the visited key's; else what is wrong. */
    static String problem(long key0, long key1, MemorySegment value, long charge) {
        long length = value.byteSize();
        if (length < 24) {
            return "length " + length;
        }
        if (value.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != key0
                || value.get(ValueLayout.JAVA_LONG_UNALIGNED, 8) != key1) {
            return "another key's value";
        }
        if (value.get(ValueLayout.JAVA_LONG_UNALIGNED, length - 8) != checksum(value, length - 8)) {
            return "torn value";
        }
        if (charge != length) {
            return "charge " + charge + " for " + length + " bytes";
        }
        return null;
    }

    private static boolean insert(Cache cache, long k, int version) {
        byte[] v = valueFor(k, version);
        return cache.insert(key0(k), key1(k), v, 0, v.length, v.length, Priority.LOW);
    }

    private static long insertPinned(Cache cache, long k, int version) {
        byte[] v = valueFor(k, version);
        long h = cache.insertPinned(key0(k), key1(k), v, 0, v.length, v.length, Priority.HIGH);
        assertNotEquals(Cache.MISS, h, "insertPinned of " + k);
        return h;
    }

    private record Seen(byte[] value, long charge) {
    }

    /** Every visited entry, by key id (key ids are recovered from key1 = ~id). */
    private static Map<Long, Seen> visitAll(Cache cache, int entriesPerLock) {
        return visitAll(cache, entriesPerLock, false);
    }

    /**
     * As {@link #visitAll(Cache, int)}; with {@code duplicatesAllowed}, a key may be visited
     * twice when it is stored twice (a HyperClock cache after racing inserts of one key, see
     * {@link Cache#insert}): then each copy must be intact, and the visits must add up to
     * {@link Cache#entryCount()}.
     */
    private static Map<Long, Seen> visitAll(Cache cache, int entriesPerLock,
                                            boolean duplicatesAllowed) {
        Map<Long, Seen> seen = new HashMap<>();
        long[] visits = new long[1];
        cache.forEachEntry((k0, k1, value, charge) -> {
            long k = ~k1;
            assertEquals(key0(k), k0, "key0 of key " + k);
            assertTrue(value.isReadOnly(), "the value view must be read-only");
            assertEquals(null, problem(k0, k1, value, charge), "key " + k);
            visits[0]++;
            Seen before = seen.put(k, new Seen(value.toArray(ValueLayout.JAVA_BYTE), charge));
            if (!duplicatesAllowed) {
                assertEquals(null, before, "key " + k + " visited twice");
            }
        }, entriesPerLock);
        if (duplicatesAllowed) {
            assertEquals(cache.entryCount(), visits[0], "visits");
        }
        return seen;
    }

    /** The key ids a lookup finds among {@code 0..keys-1} (each looked-up entry released). */
    private static Map<Long, byte[]> present(Cache cache, long keys) {
        Map<Long, byte[]> present = new HashMap<>();
        for (long k = 0; k < keys; k++) {
            long h = cache.lookup(key0(k), key1(k));
            if (h != Cache.MISS) {
                present.put(k, cache.value(h).toArray(ValueLayout.JAVA_BYTE));
                cache.release(h);
            }
        }
        return present;
    }

    private static void assertSameEntries(Map<Long, byte[]> expected, Map<Long, Seen> seen) {
        assertEquals(expected.keySet(), seen.keySet(), "visited keys");
        expected.forEach((k, v) -> {
            Seen s = seen.get(k);
            assertEquals(-1, MemorySegment.ofArray(v).mismatch(MemorySegment.ofArray(s.value())),
                    "value of key " + k);
            assertEquals(v.length, s.charge(), "charge of key " + k);
        });
    }

    // ---------------------------------------------------------------- quiescent

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aQuiescentCacheIsVisitedExactly(CacheKind kind) {
        Cache cache = cache(kind, 4 << 20, 2);
        Map<Long, byte[]> expected = new HashMap<>();
        for (long k = 0; k < 3_000; k++) {
            assertTrue(insert(cache, k, 0));
            expected.put(k, valueFor(k, 0));
        }
        for (long k = 0; k < 3_000; k += 3) {
            assertTrue(cache.erase(key0(k), key1(k)));
            expected.remove(k);
        }
        assertEquals(expected.size(), cache.entryCount(), "nothing was evicted");
        for (int perLock : new int[] {1, 7, 256, Integer.MAX_VALUE}) {
            assertSameEntries(expected, visitAll(cache, perLock));
        }
        // The visits neither pinned nor freed anything, nor changed what lookups find.
        assertEquals(0, cache.pinnedUsage());
        assertEquals(expected.size(), cache.entryCount());
        assertEquals(expected.keySet(), present(cache, 3_000).keySet());
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void evictedEntriesAreNotVisited(CacheKind kind) {
        Cache cache = cache(kind, 256 << 10, 0);
        for (long k = 0; k < 5_000; k++) {
            insert(cache, k, 0);
        }
        assertTrue(cache.stats().evictions() > 0, "the test must evict");
        Map<Long, byte[]> expected = present(cache, 5_000);
        assertTrue(expected.size() < 5_000);
        assertSameEntries(expected, visitAll(cache, 64));
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void pinnedEntriesAreVisitedAndErasedPinnedOnesAreNot(CacheKind kind) {
        Cache cache = cache(kind, 1 << 20, 0);
        long pinnedKept = insertPinned(cache, 1, 0);
        long pinnedErased = insertPinned(cache, 2, 0);
        assertTrue(insert(cache, 3, 0));
        long looked = cache.lookup(key0(3), key1(3));
        assertNotEquals(Cache.MISS, looked);
        assertTrue(cache.erase(key0(2), key1(2)));
        long pinnedBefore = cache.pinnedUsage();
        Map<Long, Seen> seen = visitAll(cache, 1);
        assertEquals(Map.of(1L, valueFor(1, 0).length, 3L, valueFor(3, 0).length).keySet(),
                seen.keySet(), "pinned entries in the cache are visited, erased ones are not");
        assertEquals(pinnedBefore, cache.pinnedUsage(), "a visit leaves references as they were");
        // The erased entry is still readable through its handle and freed by its release.
        assertEquals(null, problem(key0(2), key1(2), cache.value(pinnedErased),
                cache.charge(pinnedErased)));
        assertTrue(cache.release(pinnedErased));
        cache.release(pinnedKept);
        cache.release(looked);
        assertEquals(0, cache.pinnedUsage());
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aVisitorThatSkipsValuesGetsNull(CacheKind kind) {
        Cache cache = cache(kind, 1 << 20, 1);
        for (long k = 0; k < 100; k++) {
            insert(cache, k, 0);
        }
        AtomicLong count = new AtomicLong();
        AtomicLong charges = new AtomicLong();
        cache.forEachEntry(new EntryVisitor() {
            @Override
            public void visit(long key0, long key1, MemorySegment value, long charge) {
                assertSame(MemorySegment.NULL, value);
                count.incrementAndGet();
                charges.addAndGet(charge);
            }

            @Override
            public boolean readsValues() {
                return false;
            }
        }, 16);
        assertEquals(100, count.get());
        long expected = 0;
        for (long k = 0; k < 100; k++) {
            expected += valueFor(k, 0).length;
        }
        assertEquals(expected, charges.get());
    }

    // ---------------------------------------------------------------- concurrent writers

    /**
     * Writers insert (new versions), erase, look up and pin keys of their own range, evicting
     * constantly, while one thread visits again and again. Stable keys are pinned for the whole
     * test, so they stay in the cache: each pass must see each exactly once. Every visited value
     * must be intact and its key's. Auto tables start at one page and grow during the test.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void concurrentWritersNeverShowATornValueAndStableEntriesAreSeenOncePerPass(CacheKind kind)
            throws Exception {
        final int stable = 300;
        final int writers = 2;
        final long writerKeys = 6_000;
        final int opsPerWriter = 150_000;
        Cache cache = cache(kind, 512 << 10, 1);
        long[] stableHandles = new long[stable];
        for (int i = 0; i < stable; i++) {
            stableHandles[i] = insertPinned(cache, i, 0);
        }
        var failure = new AtomicReference<Throwable>();
        var done = new AtomicBoolean();
        var barrier = new CyclicBarrier(writers + 1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            long seed = w;
            threads.add(new Thread(() -> {
                try {
                    barrier.await();
                    var random = new SplittableRandom(seed);
                    for (int op = 0; op < opsPerWriter && failure.get() == null; op++) {
                        long k = stable + random.nextLong(writerKeys);
                        int choice = random.nextInt(100);
                        if (choice < 50) {
                            insert(cache, k, random.nextInt(4));
                        } else if (choice < 65) {
                            cache.erase(key0(k), key1(k));
                        } else {
                            long h = cache.lookup(key0(k), key1(k));
                            if (h != Cache.MISS) {
                                String p = problem(key0(k), key1(k), cache.value(h),
                                        cache.charge(h));
                                if (p != null) {
                                    throw new AssertionError("lookup of " + k + ": " + p);
                                }
                                cache.release(h, choice >= 98);
                            }
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        int[] perLock = {1, 3, 64, 256};
        long[] passes = new long[1];
        long[] visited = new long[1];
        Thread visitorThread = new Thread(() -> {
            int[] counts = new int[stable];
            try {
                barrier.await();
                while (!done.get() && failure.get() == null) {
                    Arrays.fill(counts, 0);
                    cache.forEachEntry((k0, k1, value, charge) -> {
                        long k = ~k1;
                        if (k0 != key0(k)) {
                            throw new AssertionError("key recovered wrongly: " + k0 + "/" + k1);
                        }
                        String p = problem(k0, k1, value, charge);
                        if (p != null) {
                            throw new AssertionError("visit of key " + k + ": " + p);
                        }
                        if (k < stable) {
                            counts[(int) k]++;
                        }
                        visited[0]++;
                    }, perLock[(int) (passes[0] % perLock.length)]);
                    for (int i = 0; i < stable; i++) {
                        if (counts[i] != 1) {
                            throw new AssertionError("pass " + passes[0] + ": stable key " + i
                                    + " visited " + counts[i] + " times");
                        }
                    }
                    passes[0]++;
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
        threads.forEach(Thread::start);
        visitorThread.start();
        for (Thread t : threads) {
            t.join();
        }
        done.set(true);
        visitorThread.join();
        if (failure.get() != null) {
            throw new AssertionError(kind + ": " + failure.get(), failure.get());
        }
        assertTrue(passes[0] > 0, "no complete pass");
        assertTrue(cache.stats().evictions() > 0, "the writers must evict");
        for (long h : stableHandles) {
            cache.release(h);
        }
        assertEquals(0, cache.pinnedUsage(), "a visit left a reference behind");
        // Quiescent again: exactly the keys lookups find, one visit per entry. (A HyperClock
        // cache may hold a key twice after racing inserts; a lookup finds one of the copies.)
        Map<Long, Seen> seen = visitAll(cache, 256, kind != CacheKind.LRU);
        Map<Long, byte[]> present = present(cache, stable + writerKeys);
        assertEquals(present.keySet(), seen.keySet(), "visited keys");
        if (kind == CacheKind.LRU) {
            assertSameEntries(present, seen);
        }
    }

    // ---------------------------------------------------------------- misuse and close

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void misuseIsRefusedNamingTheArgument(CacheKind kind) {
        Cache cache = cache(kind, 1 << 20, 0);
        insert(cache, 1, 0);
        var npe = assertThrows(NullPointerException.class, () -> cache.forEachEntry(null, 1));
        assertTrue(npe.getMessage().contains("visitor"), npe.getMessage());
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE}) {
            var iae = assertThrows(IllegalArgumentException.class,
                    () -> cache.forEachEntry((k0, k1, v, c) -> { }, bad));
            assertTrue(iae.getMessage().contains("entriesPerLock"), iae.getMessage());
        }
        cache.close();
        var ise = assertThrows(IllegalStateException.class,
                () -> cache.forEachEntry((k0, k1, v, c) -> { }, 1));
        assertTrue(ise.getMessage().contains("closed"), ise.getMessage());
    }

    /** A visitor that throws leaves no reference and no lock behind. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aThrowingVisitorLeavesTheCacheAsItWas(CacheKind kind) {
        Cache cache = cache(kind, 1 << 20, 0);
        for (long k = 0; k < 10; k++) {
            insert(cache, k, 0);
        }
        var e = assertThrows(IllegalStateException.class, () -> cache.forEachEntry(
                (k0, k1, v, c) -> {
                    throw new IllegalStateException("visitor failed");
                }, 4));
        assertEquals("visitor failed", e.getMessage());
        assertEquals(0, cache.pinnedUsage());
        assertTrue(insert(cache, 11, 0), "the shard is not left locked or refusing");
        assertEquals(11, visitAll(cache, 4).size());
    }

    /**
     * HyperClock: erasing the entry being visited, from the visitor, makes it unfindable at once;
     * the visit's release frees it. LRU: any call into the visited shard is refused.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void callsFromTheVisitorBehaveAsDocumented(CacheKind kind) {
        Cache cache = cache(kind, 1 << 20, 0);
        for (long k = 0; k < 10; k++) {
            insert(cache, k, 0);
        }
        long usageBefore = cache.usage();
        List<String> outcomes = new ArrayList<>();
        cache.forEachEntry((k0, k1, value, charge) -> {
            if (~k1 != 4) {
                return;
            }
            try {
                boolean erased = cache.erase(k0, k1);
                assertEquals(Cache.MISS, cache.lookup(k0, k1), "erased: not findable");
                // Still pinned by the visit: the value is intact.
                assertEquals(null, problem(k0, k1, value, charge));
                outcomes.add(erased ? "ERASED" : "NOT_FOUND");
            } catch (IllegalStateException e) {
                assertTrue(e.getMessage().contains("EntryVisitor"), e.getMessage());
                outcomes.add("REFUSED");
            }
        }, 256);
        if (kind == CacheKind.LRU) {
            assertEquals(List.of("REFUSED"), outcomes);
            assertEquals(usageBefore, cache.usage());
            assertEquals(10, visitAll(cache, 256).size());
        } else {
            assertEquals(List.of("ERASED"), outcomes);
            assertEquals(usageBefore - valueFor(4, 0).length, cache.usage(),
                    "the visit's release freed the erased entry");
            assertEquals(9, cache.entryCount());
            assertEquals(9, visitAll(cache, 256).size());
        }
        assertEquals(0, cache.pinnedUsage());
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void closeFromTheVisitorStopsTheVisitAndFreesEverything(CacheKind kind) {
        Cache cache = cache(kind, 1 << 20, 1);
        for (long k = 0; k < 200; k++) {
            insert(cache, k, 0);
        }
        long[] visits = new long[1];
        assertThrows(IllegalStateException.class, () -> cache.forEachEntry((k0, k1, v, c) -> {
            if (++visits[0] == 5) {
                cache.close();
            }
        }, 3));
        assertEquals(5, visits[0], "no visit after close");
        assertEquals(0, NativeMemory.outstandingBytes());
        assertEquals(0, NativeMemory.reservedBytes());
    }

    /** Close from another thread while visits run: each visit completes or throws, no leak. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void closeRacingVisitsIsSafe(CacheKind kind) throws Exception {
        for (int round = 0; round < 20; round++) {
            Cache cache = cache(kind, 1 << 20, 1);
            for (long k = 0; k < 1_000; k++) {
                insert(cache, k, 0);
            }
            var failure = new AtomicReference<Throwable>();
            var started = new CountDownLatch(1);
            int perLock = 1 + (int) (k0Hash(round) & 63);
            Thread visitor = new Thread(() -> {
                try {
                    for (;;) {
                        cache.forEachEntry((k0, k1, value, charge) -> {
                            started.countDown();
                            String p = problem(k0, k1, value, charge);
                            if (p != null) {
                                throw new AssertionError(p);
                            }
                        }, perLock);
                    }
                } catch (IllegalStateException expected) {
                    // closed under us
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            visitor.start();
            started.await();
            cache.close();
            visitor.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(0, NativeMemory.outstandingBytes(), "round " + round);
            assertEquals(0, NativeMemory.reservedBytes(), "round " + round);
        }
    }

    private static long k0Hash(int round) {
        return round * 0x9E3779B97F4A7C15L >>> 40;
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void anEmptyCacheIsVisitedWithoutCalls(CacheKind kind) {
        Cache cache = cache(kind, 1 << 20, 2);
        cache.forEachEntry((k0, k1, v, c) -> {
            throw new AssertionError("no entries");
        }, 1);
        assertFalse(cache.entryCount() != 0);
    }
}
