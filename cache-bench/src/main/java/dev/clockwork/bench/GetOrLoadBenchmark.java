package dev.clockwork.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueLoader;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.ShardedCache;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Get-or-load ({@link Cache#lookupOrLoad}, {@link Cache#getOrLoad}) against what a caller does
 * without it: a lookup, and on a miss its own load and insert.
 *
 * <ul>
 *   <li><b>Hits</b> ({@code *_hit}): {@value #RESIDENT} resident entries of
 *       {@value #VALUE_BYTES} bytes under keys {@code (i, 0)}, walked by a per-thread cursor.
 *       {@code lookupOrLoadRelease_hit} against {@code lookupRelease_hit}, and
 *       {@code getOrLoad_hit} (a copy into a thread's buffer) against {@code get_hit}: the
 *       difference is get-or-load's own cost on a hit (run with {@code -prof gc}: none of them
 *       may allocate).</li>
 *   <li><b>Misses</b> ({@code *_miss}): every call a key never seen (a per-thread counter), the
 *       loader returning a prepared {@value #VALUE_BYTES}-byte native block at once (no I/O),
 *       so what is measured is the cache's part of a miss: {@code getOrLoad_miss} (lookup
 *       miss, the in-flight join, the re-lookup, the load, the striped insert-if-absent, the
 *       copy out) against {@code lookupMissInsert_miss} (lookup miss, plain insert, and a copy
 *       from the block the caller loaded). The cache holds about {@value #RESIDENT} entries, so
 *       each insert evicts one.</li>
 *   <li><b>Dedup</b> ({@code *_dedup}, 4 threads): every thread walks the same key sequence
 *       {@code (0, 7), (1, 7), ...}, the loader taking {@code loadNanos} as a disk read
 *       would ({@code loadWait}: parked, as a blocking read, or spinning). {@code naive} is
 *       get, then on a miss load and insert; {@code getOrLoad} is one call. The
 *       {@link LoadCounts} counters give loads and calls: loads per call is the share of calls
 *       that went to disk (1/4 if each key were loaded once for the four threads, up to 1 if
 *       every thread loaded every key).</li>
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class GetOrLoadBenchmark {
    static final int VALUE_BYTES = 1024;
    static final int RESIDENT = 16_384;

    /** Which cache: "fixed", "auto" (HyperClock tables) or "lru". */
    @Param({"fixed", "auto", "lru"})
    public String table;

    /** How long the dedup benchmarks' loader takes, as a disk read would stall a thread. */
    @Param({"20000"})
    public long loadNanos;

    /**
     * How the dedup loader waits: "park" (the thread sleeps, as in a blocking read: others run
     * meanwhile and reach the same key) or "spin" (it keeps its core).
     */
    @Param({"park", "spin"})
    public String loadWait;

    ShardedCache cache;
    Arena arena;
    /** The loaded block every miss returns: native, as an engine's read buffer would be. */
    MemorySegment block;

    @Setup(Level.Trial)
    public void build() {
        long capacity = (long) RESIDENT * VALUE_BYTES * 5 / 4;
        cache = switch (table) {
            case "fixed" -> FixedHyperClockCache.builder().capacity(capacity)
                    .estimatedEntryCharge(VALUE_BYTES).admission(AdmissionPolicy.NONE).build();
            case "auto" -> AutoHyperClockCache.builder().capacity(capacity)
                    .admission(AdmissionPolicy.NONE).build();
            case "lru" -> LruCache.builder().capacity(capacity)
                    .admission(AdmissionPolicy.NONE).build();
            default -> throw new IllegalArgumentException("table: " + table);
        };
        arena = Arena.ofShared();
        block = arena.allocate(VALUE_BYTES);
        for (int i = 0; i < RESIDENT; i++) {
            if (!cache.insert(i, 0L, block, VALUE_BYTES, Priority.LOW)) {
                throw new IllegalStateException("insert refused at " + i);
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        cache.close();
        arena.close();
    }

    /** A thread's cursors, buffer and loader; its own key1 for misses. */
    @State(Scope.Thread)
    public static class ThreadState {
        private static final AtomicInteger THREADS = new AtomicInteger();
        final long missKey1 = 1 + THREADS.incrementAndGet();
        final byte[] dst = new byte[VALUE_BYTES];
        int hitCursor;
        long missCursor;
        long dedupCursor;
        ValueLoader loader;

        @Setup(Level.Trial)
        public void setup(GetOrLoadBenchmark bench) {
            hitCursor = (int) (missKey1 * 7919) & (RESIDENT - 1);
            MemorySegment block = bench.block;
            loader = (k0, k1) -> block;
        }
    }

    // ---------------------------------------------------------------- hits

    @Benchmark
    @Threads(1)
    public long lookupRelease_hit(ThreadState t) {
        int k = t.hitCursor++ & (RESIDENT - 1);
        long h = cache.lookup(k, 0L);
        cache.release(h);
        return h;
    }

    @Benchmark
    @Threads(1)
    public long lookupOrLoadRelease_hit(ThreadState t) {
        int k = t.hitCursor++ & (RESIDENT - 1);
        long h = cache.lookupOrLoad(k, 0L, t.loader, Priority.LOW);
        cache.release(h);
        return h;
    }

    @Benchmark
    @Threads(1)
    public int get_hit(ThreadState t) {
        int k = t.hitCursor++ & (RESIDENT - 1);
        return cache.get(k, 0L, t.dst, 0);
    }

    @Benchmark
    @Threads(1)
    public int getOrLoad_hit(ThreadState t) {
        int k = t.hitCursor++ & (RESIDENT - 1);
        return cache.getOrLoad(k, 0L, t.dst, 0, t.loader, Priority.LOW);
    }

    // ---------------------------------------------------------------- misses

    private int lookupMissInsert(ThreadState t) {
        long k = t.missCursor++;
        int n = cache.get(k, t.missKey1, t.dst, 0);
        if (n != Cache.ABSENT) {
            return n;
        }
        MemorySegment loaded = block; // the caller's own load
        cache.insert(k, t.missKey1, loaded, VALUE_BYTES, Priority.LOW);
        MemorySegment.copy(loaded, ValueLayout.JAVA_BYTE, 0, t.dst, 0, VALUE_BYTES);
        return VALUE_BYTES;
    }

    private int getOrLoadMiss(ThreadState t) {
        return cache.getOrLoad(t.missCursor++, t.missKey1, t.dst, 0, t.loader, Priority.LOW);
    }

    @Benchmark
    @Threads(1)
    public int lookupMissInsert_miss_1t(ThreadState t) {
        return lookupMissInsert(t);
    }

    @Benchmark
    @Threads(1)
    public int getOrLoad_miss_1t(ThreadState t) {
        return getOrLoadMiss(t);
    }

    @Benchmark
    @Threads(2)
    public int lookupMissInsert_miss_2t(ThreadState t) {
        return lookupMissInsert(t);
    }

    @Benchmark
    @Threads(2)
    public int getOrLoad_miss_2t(ThreadState t) {
        return getOrLoadMiss(t);
    }

    // ---------------------------------------------------------------- dedup

    /** Loads and calls of one thread (JMH sums them over threads, per second). */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class LoadCounts {
        public long loads;
        public long calls;
        ValueLoader loader;

        @Setup(Level.Trial)
        public void setup(GetOrLoadBenchmark bench) {
            MemorySegment block = bench.block;
            long nanos = bench.loadNanos;
            boolean park = bench.loadWait.equals("park");
            loader = (k0, k1) -> {
                loads++;
                if (park) {
                    LockSupport.parkNanos(nanos);
                } else {
                    spin(nanos);
                }
                return block;
            };
        }

        @Setup(Level.Iteration)
        public void reset() {
            loads = 0;
            calls = 0;
        }
    }

    static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    @Benchmark
    @Threads(4)
    public int naive_dedup(ThreadState t, LoadCounts c) throws Exception {
        long k = t.dedupCursor++;
        c.calls++;
        int n = cache.get(k, 7L, t.dst, 0);
        if (n != Cache.ABSENT) {
            return n;
        }
        MemorySegment loaded = c.loader.load(k, 7L);
        cache.insert(k, 7L, loaded, VALUE_BYTES, Priority.LOW);
        MemorySegment.copy(loaded, ValueLayout.JAVA_BYTE, 0, t.dst, 0, VALUE_BYTES);
        return VALUE_BYTES;
    }

    @Benchmark
    @Threads(4)
    public int getOrLoad_dedup(ThreadState t, LoadCounts c) {
        long k = t.dedupCursor++;
        c.calls++;
        return cache.getOrLoad(k, 7L, t.dst, 0, c.loader, Priority.LOW);
    }
}
