package dev.clockwork.offheap;

import static dev.clockwork.offheap.DumpTestKit.dumpToBytes;
import static dev.clockwork.offheap.DumpTestKit.idOf;
import static dev.clockwork.offheap.DumpTestKit.isValueOf;
import static dev.clockwork.offheap.DumpTestKit.key0;
import static dev.clockwork.offheap.DumpTestKit.key1;
import static dev.clockwork.offheap.DumpTestKit.records;
import static dev.clockwork.offheap.DumpTestKit.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.DumpTestKit.Entry;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Dumps taken while other threads insert, erase, look up and pin, on every cache type: no crash,
 * every dump a valid one, every record whole and its key's (values name their key), and every
 * entry present throughout (the stable keys, which only lookups touch) written exactly once. A
 * churned key may be written twice: erased and inserted again during the dump, it is two
 * entries, each written at most once (each writer owns its keys, so no key is inserted by two
 * threads at once, which a HyperClock cache may store twice). Lookups move entries on the LRU's
 * list and raise HyperClock countdowns between passes, the cases the walks' marks are for. And a
 * close during a dump stops it with {@link IllegalStateException}, leaking nothing.
 */
class DumpRaceTest {
    private static final int STABLE = 1500;
    private static final int WRITERS = 2;

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void dumpsRacingWritersAreWholeAndExactlyOnce(CacheKind kind) throws Exception {
        try (EngineCache cache = (EngineCache) kind.builder(256 << 20, 4 << 10).numShardBits(2)
                .admission(AdmissionPolicy.NONE).build()) {
            for (int k = 0; k < STABLE; k++) {
                insert(cache, k, 1 + (k * 37) % (12 << 10));
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int id = w;
                writers.add(Thread.ofPlatform().start(() -> churn(cache, id, stop, failure)));
            }
            try {
                for (int round = 0; round < 12; round++) {
                    check(records(dumpToBytes(cache)), round);
                }
            } finally {
                stop.set(true);
                for (Thread t : writers) {
                    t.join();
                }
            }
            assertNull(failure.get(), () -> "a writer failed: " + failure.get());
        }
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    private static void check(List<Entry> dumped, int round) {
        Map<Long, Entry> byId = new HashMap<>();
        for (Entry e : dumped) {
            long k = idOf(e.key());
            assertTrue(k >= 0, "a key no thread inserted");
            assertTrue(isValueOf(k, e.value()), "round " + round + ": key " + k + " torn");
            assertEquals(e.value().length, e.charge(), "the charge of key " + k);
            Entry before = byId.put(k, e);
            // A churned key erased and inserted again meanwhile is two entries: once each.
            assertTrue(before == null || k >= STABLE,
                    "round " + round + ": stable key " + k + " written twice");
        }
        for (long k = 0; k < STABLE; k++) {
            assertTrue(byId.containsKey(k), "round " + round + ": stable key " + k + " missing");
        }
    }

    /** Inserts, erases and pins its own keys; looks up and pins the stable ones. */
    private static void churn(EngineCache cache, int id, AtomicBoolean stop,
                              AtomicReference<Throwable> failure) {
        SplittableRandom random = new SplittableRandom(id);
        long base = 1_000_000L * (id + 1);
        try {
            while (!stop.get()) {
                long own = base + random.nextInt(3000);
                switch (random.nextInt(4)) {
                    case 0 -> insert(cache, own, 1 + random.nextInt(16 << 10));
                    case 1 -> cache.erase(key0(own), key1(own));
                    case 2 -> {
                        long stable = random.nextInt(STABLE);
                        long h = cache.lookup(key0(stable), key1(stable));
                        cache.release(h);
                    }
                    default -> {
                        long h = cache.lookup(key0(own), key1(own));
                        if (h != Cache.MISS) {
                            Thread.onSpinWait();
                            cache.release(h);
                        }
                    }
                }
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    private static void insert(Cache cache, long k, int length) {
        byte[] v = value(k, length);
        cache.insert(key0(k), key1(k), v, 0, v.length, v.length, Priority.values()[(int) (k % 3)]);
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void closeDuringADumpStopsIt(CacheKind kind) throws Exception {
        EngineCache cache = (EngineCache) kind.builder(64 << 20, 4 << 10).numShardBits(2)
                .admission(AdmissionPolicy.NONE).build();
        for (int k = 0; k < 3000; k++) {
            insert(cache, k, 4 << 10);
        }
        // A channel that closes the cache after the first block: the walk goes on, then stops.
        WritableByteChannel closing = new WritableByteChannel() {
            private long written;

            @Override
            public int write(ByteBuffer src) {
                int n = src.remaining();
                src.position(src.limit());
                written += n;
                if (written > (1 << 20)) {
                    cache.close();
                }
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> cache.dump(closing));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
        assertThrows(IllegalStateException.class, () -> cache.dump(closing));
    }

    /** A file dump that fails leaves the previous dump in place, and no partial file. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aFailedFileDumpKeepsThePreviousOne(CacheKind kind, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("cache.dump");
        EngineCache cache = (EngineCache) kind.builder(64 << 20, 4 << 10).numShardBits(1)
                .admission(AdmissionPolicy.NONE).build();
        for (int k = 0; k < 300; k++) {
            insert(cache, k, 4 << 10);
        }
        cache.dump(file);
        byte[] previous = Files.readAllBytes(file);
        cache.close();
        assertThrows(IllegalStateException.class, () -> cache.dump(file));
        assertArrayEquals(previous, Files.readAllBytes(file), "the previous dump is intact");
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no partial file left");
        }
    }
}
