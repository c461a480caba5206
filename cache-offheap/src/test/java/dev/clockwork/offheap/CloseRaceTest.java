package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code close()} while other threads are still calling (inserts, pinned inserts, erases,
 * {@code put}, {@code putIfAbsent}, {@code eraseIf}, lookups and releases): every racing call
 * either completes or throws {@link IllegalStateException}, values read before close are intact,
 * nothing crashes, and close returns every native byte (a value freed twice would abort the
 * process in glibc, or show here as a negative balance).
 *
 * <p>LRU runs its operations under the shard lock against unscoped memory, and close frees under
 * that lock, so a racing call finishes or does nothing. HyperClock calls run lock-free against
 * arena-scoped memory and may be stopped half way by the closed arena: an insert that filled a
 * slot but did not publish it, an eviction, erase or release that took a slot but did not empty
 * it, a standalone entry being registered or freed. Close must find and free each such value
 * exactly once (the small fixed table here forces evictions and standalone entries).
 */
class CloseRaceTest {
    private static final int ROUNDS = 40;
    private static final int THREADS = 3;
    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private static void race(Supplier<Cache> factory) throws InterruptedException {
        long baseline = NativeMemory.outstandingBytes();
        SplittableRandom seeds = new SplittableRandom(42);
        AtomicLong refused = new AtomicLong();
        for (int round = 0; round < ROUNDS; round++) {
            Cache cache = factory.get();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] workers = new Thread[THREADS];
            for (int t = 0; t < THREADS; t++) {
                SplittableRandom random = seeds.split();
                workers[t] = new Thread(() -> {
                    try {
                        work(cache, random);
                    } catch (IllegalStateException closed) {
                        refused.incrementAndGet(); // the contract for calls racing close
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                workers[t].start();
            }
            Thread.sleep(1 + round % 5);
            cache.close();
            for (Thread w : workers) {
                w.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("round " + round, failure.get());
            }
            assertEquals(baseline, NativeMemory.outstandingBytes(), "round " + round);
        }
        assertTrue(refused.get() > 0, "no call raced close");
    }

    /** Mixed calls until the cache refuses one; values carry their key, checked on every read. */
    private static void work(Cache cache, SplittableRandom random) {
        byte[] value = new byte[256];
        while (true) {
            long key = random.nextInt(2_000);
            switch (random.nextInt(8)) {
                case 0 -> {
                    stamp(value, key);
                    cache.insert(key, ~key, value, 0, value.length, value.length, Priority.LOW);
                }
                case 1 -> {
                    stamp(value, key);
                    long h = cache.insertPinned(key, ~key, value, 0, value.length, value.length,
                            Priority.HIGH);
                    if (h != Cache.MISS) {
                        check(cache, h, key);
                        cache.release(h);
                    }
                }
                case 2 -> cache.erase(key, ~key);
                case 3 -> {
                    stamp(value, key);
                    cache.put(key, ~key, value, 0, value.length, value.length, Priority.LOW);
                }
                case 4 -> {
                    stamp(value, key);
                    cache.putIfAbsent(key, ~key, value, 0, value.length, value.length,
                            Priority.LOW);
                }
                case 5 -> {
                    if (random.nextInt(32) == 0) {
                        long residue = key & 15;
                        cache.eraseIf((key0, key1) -> (key0 & 15) == residue);
                    }
                }
                default -> {
                    long h = cache.lookup(key, ~key);
                    if (h != Cache.MISS) {
                        check(cache, h, key);
                        cache.release(h, random.nextInt(8) == 0);
                    }
                }
            }
        }
    }

    private static void stamp(byte[] value, long key) {
        for (int i = 0; i < value.length; i += 8) {
            LONGS.set(value, i, key);
        }
    }

    private static void check(Cache cache, long handle, long key) {
        MemorySegment v = cache.value(handle);
        for (long i = 0; i < v.byteSize(); i += 8) {
            long read = v.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
            if (read != key) {
                throw new AssertionError("key " + key + " read " + read + " at " + i);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void closeWhileOtherThreadsCall(CacheKind kind) throws InterruptedException {
        race(() -> kind.build(256 << 10, 256, 1));
    }
}
