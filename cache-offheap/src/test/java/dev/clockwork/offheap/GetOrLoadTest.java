package dev.clockwork.offheap;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CheckedCache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueLoader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Get-or-load ({@link Cache#lookupOrLoad}, {@link Cache#getOrLoad}, {@link Cache#getOrLoadAsync})
 * on every cache type: one load per key however many threads miss it, a loader's failure reaching
 * every waiter with nothing left behind, a refused value still reaching its callers, loaders that
 * call back, and close racing a load. Every test ends with no load in flight and, after close,
 * every native byte back.
 */
class GetOrLoadTest {
    private static final long CAPACITY = 4 << 20;
    private static final int LEN = 512;
    private static final int THREADS = 4;
    /** Seconds a test that could hang may take before it fails as a hang. */
    private static final long DEADLINE = 30;

    private long baseline;

    @BeforeEach
    void baseline() {
        baseline = NativeMemory.outstandingBytes();
    }

    @AfterEach
    void everyNativeByteReturned() {
        assertEquals(baseline, NativeMemory.outstandingBytes(), "native bytes after close");
    }

    private static EngineCache build(CacheKind kind) {
        return (EngineCache) kind.builder(CAPACITY, LEN).numShardBits(2).build();
    }

    /** The value of a key: a pattern seeded by it, LEN bytes. */
    private static byte[] valueOf(long key) {
        return TestValues.pattern(key, LEN);
    }

    private static MemorySegment segmentOf(long key) {
        return MemorySegment.ofArray(valueOf(key));
    }

    /** A loader that counts its calls per key, and may wait before returning. */
    private static final class CountingLoader implements ValueLoader {
        final AtomicIntegerArray calls;
        final long sleepMillis;

        CountingLoader(int keys, long sleepMillis) {
            this.calls = new AtomicIntegerArray(keys);
            this.sleepMillis = sleepMillis;
        }

        @Override
        public MemorySegment load(long key0, long key1) throws Exception {
            calls.incrementAndGet((int) key0);
            if (sleepMillis > 0) {
                Thread.sleep(sleepMillis);
            }
            return segmentOf(key0);
        }
    }

    // ---------------------------------------------------------------- one load per key

    /**
     * Four threads miss the same keys together, each through another form (pinned, copying into
     * an array, copying into a segment, asynchronous): every key is loaded exactly once, and every
     * caller gets its key's bytes. The cache is large enough that nothing is evicted.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void concurrentMissesOfAKeyLoadItOnce(CacheKind kind) throws Exception {
        int keys = 200;
        CountingLoader loader = new CountingLoader(keys, 1);
        try (EngineCache cache = build(kind)) {
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int form = t;
                    done.add(pool.submit(() -> {
                        start.await();
                        for (int k = 0; k < keys; k++) {
                            readThroughForm(cache, form, k, loader);
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : done) {
                    f.get(DEADLINE, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            for (int k = 0; k < keys; k++) {
                assertEquals(1, loader.calls.get(k), "loads of key " + k);
            }
            assertEquals(0, cache.loadsInFlight());
            assertEquals(0, cache.pinnedUsage(), "every caller released what it was given");
            assertEquals(keys, cache.entryCount());
        }
    }

    /** Reads key {@code k} through one of the four forms and checks the bytes. */
    private static void readThroughForm(Cache cache, int form, long k, ValueLoader loader)
            throws Exception {
        byte[] expected = valueOf(k);
        switch (form) {
            case 0 -> {
                long h = cache.lookupOrLoad(k, ~k, loader, Priority.LOW);
                try {
                    assertArrayEquals(expected, cache.value(h).toArray(
                            JAVA_BYTE));
                } finally {
                    cache.release(h);
                }
            }
            case 1 -> {
                byte[] dst = new byte[LEN + 3];
                assertEquals(LEN, cache.getOrLoad(k, ~k, dst, 3, loader, Priority.LOW));
                assertArrayEquals(expected, Arrays.copyOfRange(dst, 3, 3 + LEN));
            }
            case 2 -> {
                MemorySegment dst = MemorySegment.ofArray(new byte[LEN]);
                assertEquals(LEN, cache.getOrLoad(k, ~k, dst, 0, loader, Priority.LOW));
                assertArrayEquals(expected, dst.toArray(JAVA_BYTE));
            }
            default -> {
                byte[] got = cache.getOrLoadAsync(k, ~k, (a, b) -> CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return loader.load(a, b);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        }), Priority.LOW).get(DEADLINE, TimeUnit.SECONDS);
                assertArrayEquals(expected, got);
            }
        }
    }

    /** A hit runs no loader, and the checked wrapper tracks the pin get-or-load returns. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aHitRunsNoLoaderAndCheckedCacheTracksThePin(CacheKind kind) {
        try (CheckedCache cache = new CheckedCache(build(kind))) {
            assertTrue(cache.insert(7, ~7L, valueOf(7), 0, LEN, LEN, Priority.LOW));
            long h = cache.lookupOrLoad(7, ~7L, (a, b) -> {
                throw new AssertionError("a hit must not load");
            }, Priority.LOW);
            assertEquals(1, cache.outstandingPins());
            cache.release(h);
            assertThrows(IllegalStateException.class, () -> cache.release(h));
            assertEquals(0, cache.outstandingPins());
        }
    }

    // ---------------------------------------------------------------- failures

    /**
     * The loader blocks until three other callers wait for its load, then throws a checked
     * exception: all four get that same exception object, and the cache is as before (usage,
     * entry count, value blocks, no load in flight); the next call loads again.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aLoadersExceptionReachesEveryWaiterAndLeavesNothing(CacheKind kind) throws Exception {
        try (EngineCache cache = build(kind)) {
            long usage = cache.usage();
            long entries = cache.entryCount();
            long live = CallbackKit.liveValueBytes(cache);
            IOException failure = new IOException("disk gone");
            CountDownLatch loading = new CountDownLatch(1);
            ValueLoader failing = (a, b) -> {
                loading.countDown();
                Thread.sleep(300); // the other callers join meanwhile
                throw failure;
            };
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> calls = new ArrayList<>();
                calls.add(pool.submit(() -> cache.lookupOrLoad(5, ~5L, failing, Priority.LOW)));
                loading.await();
                calls.add(pool.submit(() -> cache.lookupOrLoad(5, ~5L, failing, Priority.LOW)));
                calls.add(pool.submit(() -> cache.getOrLoad(5, ~5L, new byte[LEN], 0, failing,
                        Priority.LOW)));
                CompletableFuture<byte[]> async = cache.getOrLoadAsync(5, ~5L,
                        (a, b) -> CompletableFuture.failedFuture(new AssertionError("not run")),
                        Priority.LOW);
                for (Future<?> call : calls) {
                    ExecutionException e = assertThrows(ExecutionException.class,
                            () -> call.get(DEADLINE, TimeUnit.SECONDS));
                    assertSame(failure, e.getCause());
                }
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> async.get(DEADLINE, TimeUnit.SECONDS));
                assertSame(failure, e.getCause());
            } finally {
                pool.shutdownNow();
            }
            assertEquals(0, cache.loadsInFlight());
            assertEquals(usage, cache.usage());
            assertEquals(entries, cache.entryCount());
            assertEquals(live, CallbackKit.liveValueBytes(cache));
            assertEquals(Cache.MISS, cache.lookup(5, ~5L));
            long h = cache.lookupOrLoad(5, ~5L, (a, b) -> segmentOf(5), Priority.LOW);
            assertEquals(LEN, cache.valueSize(h));
            cache.release(h);
        }
    }

    /** Null and too-large values, and a null future, are refused naming the loader. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aBadValueIsRefusedNamingTheLoader(CacheKind kind) {
        try (EngineCache cache = build(kind); Arena arena = Arena.ofConfined()) {
            long live = CallbackKit.liveValueBytes(cache);
            NullPointerException npe = assertThrows(NullPointerException.class,
                    () -> cache.lookupOrLoad(1, 1, (a, b) -> null, Priority.LOW));
            assertTrue(npe.getMessage().contains("ValueLoader returned null"), npe.getMessage());
            MemorySegment huge = arena.allocate(CAPACITY + 1);
            IllegalArgumentException iae = assertThrows(IllegalArgumentException.class,
                    () -> cache.getOrLoad(1, 1, new byte[8], 0, (a, b) -> huge, Priority.LOW));
            assertTrue(iae.getMessage().contains("ValueLoader returned a value of "
                    + (CAPACITY + 1)), iae.getMessage());
            ExecutionException ee = assertThrows(ExecutionException.class,
                    () -> cache.getOrLoadAsync(1, 1, (a, b) -> null, Priority.LOW).get());
            assertTrue(ee.getCause().getMessage().contains("AsyncValueLoader returned a null"));
            assertThrows(NullPointerException.class,
                    () -> cache.lookupOrLoad(1, 1, null, Priority.LOW));
            assertEquals(0, cache.loadsInFlight());
            assertEquals(live, CallbackKit.liveValueBytes(cache));
            assertEquals(0, cache.entryCount());
        }
    }

    /** A value too long for the caller's array is still stored, and refused with nothing copied. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aValueTooLongForDstIsStoredAndRefused(CacheKind kind) {
        try (EngineCache cache = build(kind)) {
            byte[] dst = new byte[LEN - 1];
            assertThrows(IllegalArgumentException.class,
                    () -> cache.getOrLoad(3, ~3L, dst, 0, (a, b) -> segmentOf(3), Priority.LOW));
            assertArrayEquals(new byte[LEN - 1], dst);
            assertEquals(1, cache.entryCount());
            assertEquals(0, cache.pinnedUsage());
        }
    }

    // ---------------------------------------------------------------- refused inserts

    /**
     * Strict capacity with everything pinned: the insert is refused, yet every form gets the
     * value; the pinned form's entry is outside the cache (no lookup finds it) and its last
     * release gives back its charge and its value block.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aRefusedValueStillReachesItsCallers(CacheKind kind) throws Exception {
        try (EngineCache cache = (EngineCache) kind.builder(CAPACITY, LEN).numShardBits(0)
                .chargeMetadata(false).build()) { // one shard: full when an insert is refused
            cache.setStrictCapacityLimit(true);
            List<Long> pins = new ArrayList<>();
            long k = 1000;
            for (long charge : new long[] {64 << 10, LEN}) { // big pins, then the last room
                for (long h; (h = cache.insertPinned(k, ~k, valueOf(k), 0, LEN, charge,
                        Priority.LOW)) != Cache.MISS; k++) {
                    pins.add(h);
                }
            }
            long usage = cache.usage();
            long entries = cache.entryCount();
            long live = CallbackKit.liveValueBytes(cache);
            long h = cache.lookupOrLoad(9, ~9L, (a, b) -> segmentOf(9), Priority.LOW);
            assertArrayEquals(valueOf(9), cache.value(h).toArray(
                    JAVA_BYTE));
            assertEquals(Cache.MISS, cache.lookup(9, ~9L), "refused: not in the cache");
            assertEquals(entries, cache.entryCount());
            assertEquals(usage + LEN, cache.usage(), "charged while pinned");
            cache.ref(h);
            cache.release(h);
            assertTrue(cache.release(h), "the last release frees it");
            assertEquals(usage, cache.usage());
            assertEquals(live, CallbackKit.liveValueBytes(cache));
            byte[] dst = new byte[LEN];
            assertEquals(LEN, cache.getOrLoad(9, ~9L, dst, 0, (a, b) -> segmentOf(9),
                    Priority.LOW));
            assertArrayEquals(valueOf(9), dst);
            assertArrayEquals(valueOf(9), cache.getOrLoadAsync(9, ~9L,
                    (a, b) -> CompletableFuture.completedFuture(segmentOf(9)), Priority.LOW)
                    .get(DEADLINE, TimeUnit.SECONDS));
            assertEquals(usage, cache.usage());
            assertEquals(live, CallbackKit.liveValueBytes(cache));
            assertTrue(cache.stats().standaloneInserts() >= 3);
            for (long pin : pins) {
                cache.release(pin);
            }
            assertEquals(0, cache.loadsInFlight());
        }
    }

    /**
     * Admission refuses the loaded value (a policy that keeps every victim, no window): the
     * callers still get it, outside the cache, and its release gives everything back.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aValueAdmissionRejectsStillReachesItsCallers(CacheKind kind) {
        CallbackKit.ScriptedPolicy keepsVictims = new CallbackKit.ScriptedPolicy();
        keepsVictims.admit = (candidate, victim) -> false;
        try (EngineCache cache = (EngineCache) MisuseKit.build(kind, 64 << 10, LEN, 0,
                keepsVictims)) {
            for (long k = 100; k < 100 + (64 << 10) / LEN; k++) { // fill: later inserts duel
                cache.insert(k, ~k, valueOf(k), 0, LEN, LEN, Priority.LOW);
            }
            long usage = cache.usage();
            long entries = cache.entryCount();
            long live = CallbackKit.liveValueBytes(cache);
            long rejects = cache.stats().admissionRejects();
            long h = cache.lookupOrLoad(9, ~9L, (a, b) -> segmentOf(9), Priority.LOW);
            assertArrayEquals(valueOf(9), cache.value(h).toArray(JAVA_BYTE));
            assertTrue(cache.stats().admissionRejects() > rejects, "admission said no");
            assertEquals(Cache.MISS, cache.lookup(9, ~9L), "rejected: not in the cache");
            assertTrue(cache.release(h), "the last release frees it");
            assertEquals(usage, cache.usage());
            assertEquals(entries, cache.entryCount());
            assertEquals(live, CallbackKit.liveValueBytes(cache));
            assertEquals(0, cache.loadsInFlight());
        }
    }

    // ---------------------------------------------------------------- loaders that call back

    /**
     * A loader that loads its own key gets IllegalStateException (the outer call fails with it,
     * nothing left); one that loads another key gets it; one that inserts its own key meanwhile
     * sees that entry kept, not replaced by the loaded value.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void loadersThatCallBack(CacheKind kind) {
        try (EngineCache cache = build(kind)) {
            IllegalStateException self = assertThrows(IllegalStateException.class,
                    () -> cache.lookupOrLoad(1, ~1L,
                            (a, b) -> {
                                cache.getOrLoad(1, ~1L, new byte[LEN], 0, (c, d) -> segmentOf(1),
                                        Priority.LOW);
                                return segmentOf(1);
                            }, Priority.LOW));
            assertTrue(self.getMessage().contains("loading"), self.getMessage());
            CompletableFuture<byte[]> selfAsync = cache.getOrLoadAsync(2, ~2L, (a, b) -> {
                cache.lookupOrLoad(2, ~2L, (c, d) -> segmentOf(2), Priority.LOW);
                return CompletableFuture.completedFuture(segmentOf(2));
            }, Priority.LOW);
            ExecutionException ee = assertThrows(ExecutionException.class, selfAsync::get);
            assertTrue(ee.getCause() instanceof IllegalStateException, ee.getCause()::toString);
            assertEquals(0, cache.entryCount());

            long h = cache.lookupOrLoad(3, ~3L, (a, b) -> {
                byte[] inner = new byte[LEN];
                assertEquals(LEN, cache.getOrLoad(4, ~4L, inner, 0, (c, d) -> segmentOf(4),
                        Priority.LOW));
                return segmentOf(3);
            }, Priority.LOW);
            assertArrayEquals(valueOf(3), cache.value(h).toArray(
                    JAVA_BYTE));
            cache.release(h);
            assertEquals(2, cache.entryCount());

            h = cache.lookupOrLoad(5, ~5L, (a, b) -> {
                assertTrue(cache.insert(5, ~5L, valueOf(50), 0, LEN, LEN, Priority.LOW));
                return segmentOf(5);
            }, Priority.LOW);
            assertArrayEquals(valueOf(50), cache.value(h).toArray(
                    JAVA_BYTE), "the entry put meanwhile is kept");
            cache.release(h);
            byte[] dst = new byte[LEN];
            cache.get(5, ~5L, dst, 0);
            assertArrayEquals(valueOf(50), dst);
            assertEquals(0, cache.loadsInFlight());
            assertEquals(0, cache.pinnedUsage());
        }
    }

    /**
     * A policy's {@code admit} asked by a load's store (the cache is full) that loads from the
     * cache is refused with IllegalStateException instead of waiting for the store it runs in,
     * and the caller gets the failure; its {@code recordInsert}, told after the store, finds the
     * key stored (a hit, no wait). Nothing stays pinned or in flight.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aPolicyThatLoadsFromInsideTheStoreIsRefused(CacheKind kind) {
        CallbackKit.ScriptedPolicy policy = new CallbackKit.ScriptedPolicy();
        policy.admit = (candidate, victim) -> false;
        try (EngineCache cache = (EngineCache) MisuseKit.build(kind, 64 << 10, LEN, 0,
                policy)) {
            for (long k = 100; k < 100 + (64 << 10) / LEN; k++) { // full: inserts duel
                cache.insert(k, ~k, valueOf(k), 0, LEN, LEN, Priority.LOW);
            }
            ValueLoader nine = (a, b) -> segmentOf(9);
            long asked = policy.admitCalls.get();
            policy.admit = (candidate, victim) -> {
                cache.lookupOrLoad(9, ~9L, nine, Priority.LOW);
                return true;
            };
            assertThrows(IllegalStateException.class,
                    () -> cache.lookupOrLoad(9, ~9L, nine, Priority.LOW));
            assertTrue(policy.admitCalls.get() > asked, "the store asked the policy");
            policy.admit = (candidate, victim) -> true;
            ValueLoader ten = (a, b) -> segmentOf(10);
            byte[] nested = new byte[LEN];
            policy.onInsert = charge -> cache.getOrLoad(10, ~10L, nested, 0, ten, Priority.LOW);
            assertEquals(LEN, cache.getOrLoad(10, ~10L, new byte[LEN], 0, ten, Priority.LOW));
            assertArrayEquals(valueOf(10), nested, "stored before recordInsert: a hit");
            policy.onInsert = charge -> { };
            assertEquals(0, cache.loadsInFlight());
            assertEquals(0, cache.pinnedUsage());
        }
    }

    // ---------------------------------------------------------------- close during a load

    /**
     * Close while a loader runs and three callers wait for it: the waiters get
     * IllegalStateException promptly (no hang, the loader still running), the loader's own call
     * fails when it stores, and close returns every native byte (checked after the test).
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void closeDuringALoadReleasesTheWaiters(CacheKind kind) throws Exception {
        EngineCache cache = build(kind);
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        ValueLoader slow = (a, b) -> {
            loading.countDown();
            closed.await();
            return segmentOf(a);
        };
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            Future<Long> starter = pool.submit(() -> cache.lookupOrLoad(8, ~8L, slow,
                    Priority.LOW));
            loading.await();
            List<Future<?>> waiters = new ArrayList<>();
            waiters.add(pool.submit(() -> cache.lookupOrLoad(8, ~8L, slow, Priority.LOW)));
            waiters.add(pool.submit(() -> cache.getOrLoad(8, ~8L, new byte[LEN], 0, slow,
                    Priority.LOW)));
            CompletableFuture<byte[]> async = cache.getOrLoadAsync(8, ~8L,
                    (a, b) -> CompletableFuture.completedFuture(segmentOf(a)), Priority.LOW);
            Thread.sleep(50);
            cache.close();
            for (Future<?> w : waiters) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> w.get(DEADLINE, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof IllegalStateException, e.getCause()::toString);
            }
            closed.countDown();
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> starter.get(DEADLINE, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalStateException, e.getCause()::toString);
            e = assertThrows(ExecutionException.class, () -> async.get(DEADLINE, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalStateException, e.getCause()::toString);
            assertEquals(0, cache.loadsInFlight());
        } finally {
            closed.countDown();
            pool.shutdownNow();
            cache.close();
        }
    }

    /**
     * A waiter interrupted while it waits keeps waiting for the load (its share of it is owed
     * a reference) and returns the value with its interrupt flag still set.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void anInterruptedWaiterGetsTheValueAndKeepsItsInterrupt(CacheKind kind) throws Exception {
        try (EngineCache cache = build(kind)) {
            CountDownLatch loading = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ValueLoader slow = (a, b) -> {
                loading.countDown();
                release.await();
                return segmentOf(a);
            };
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<Long> starter = pool.submit(() -> cache.lookupOrLoad(4, ~4L, slow,
                        Priority.LOW));
                loading.await();
                Thread[] waiter = new Thread[1];
                Future<Boolean> waited = pool.submit(() -> {
                    waiter[0] = Thread.currentThread();
                    byte[] dst = new byte[LEN];
                    cache.getOrLoad(4, ~4L, dst, 0, slow, Priority.LOW);
                    assertArrayEquals(valueOf(4), dst);
                    return Thread.interrupted();
                });
                while (waiter[0] == null || waiter[0].getState() == Thread.State.RUNNABLE) {
                    Thread.sleep(1);
                }
                waiter[0].interrupt();
                Thread.sleep(30);
                release.countDown();
                assertTrue(waited.get(DEADLINE, TimeUnit.SECONDS), "the interrupt is kept");
                cache.release(starter.get(DEADLINE, TimeUnit.SECONDS));
            } finally {
                release.countDown();
                pool.shutdownNow();
            }
            assertEquals(0, cache.pinnedUsage());
            assertEquals(0, cache.loadsInFlight());
        }
    }

    // ---------------------------------------------------------------- asynchronous loads

    /**
     * An asynchronous load in flight is shared by a synchronous caller, which waits for the
     * loader's future; a cancelled caller's future pins nothing, and the load still stores.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void asyncAndSyncCallersShareOneLoad(CacheKind kind) throws Exception {
        try (EngineCache cache = build(kind)) {
            AtomicInteger loads = new AtomicInteger();
            CompletableFuture<MemorySegment> io = new CompletableFuture<>();
            CompletableFuture<byte[]> first = cache.getOrLoadAsync(6, ~6L, (a, b) -> {
                loads.incrementAndGet();
                return io;
            }, Priority.LOW);
            CompletableFuture<byte[]> cancelled = cache.getOrLoadAsync(6, ~6L, (a, b) -> {
                loads.incrementAndGet();
                return io;
            }, Priority.LOW);
            assertTrue(cancelled.cancel(false));
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<byte[]> sync = pool.submit(() -> {
                    byte[] dst = new byte[LEN];
                    cache.getOrLoad(6, ~6L, dst, 0, (a, b) -> {
                        loads.incrementAndGet();
                        return segmentOf(6);
                    }, Priority.LOW);
                    return dst;
                });
                Thread.sleep(50);
                assertTrue(!sync.isDone() && !first.isDone(), "waiting for the loader's future");
                io.complete(segmentOf(6));
                assertArrayEquals(valueOf(6), sync.get(DEADLINE, TimeUnit.SECONDS));
            } finally {
                pool.shutdownNow();
            }
            assertArrayEquals(valueOf(6), first.get(DEADLINE, TimeUnit.SECONDS));
            assertEquals(1, loads.get());
            assertEquals(1, cache.entryCount());
            assertEquals(0, cache.pinnedUsage());
            assertEquals(0, cache.loadsInFlight());
            assertNotEquals(Cache.MISS, cache.lookup(6, ~6L));
        }
    }
}
