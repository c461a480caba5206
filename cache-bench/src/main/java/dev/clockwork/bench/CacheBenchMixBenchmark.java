package dev.clockwork.bench;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.NativeCache;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.infra.ThreadParams;

/**
 * RocksDB's {@code cache_bench} operation mix, one operation per benchmark call: 82% lookup and,
 * on a miss, insert; 2% insert keeping a handle; 5% insert without a handle; 10% lookup; 1% erase.
 * Keys are skewed like {@code cache_bench -skew=5}: the minimum of 6 uniform draws from
 * {@code [0, max_key)}, {@code max_key = capacity / resident_ratio (0.25) / value_bytes}, so about
 * a quarter of the key space fits. Each thread draws its keys and ops on the fly from its own
 * SplitMix64 stream (7 draws per op, a few ns, the same for both peers), as cache_bench does; a
 * precomputed, repeating sequence would shrink the key space and inflate hit ratios. The cache is
 * pre-filled with the most popular keys.
 *
 * <ul>
 *   <li><b>Clockwork</b>: a {@link FixedHyperClockCache} ({@code table=fixed}), an
 *       {@link dev.clockwork.offheap.AutoHyperClockCache} ({@code table=auto}, no estimate) or an
 *       {@link LruCache} ({@code table=lru}, default pool ratios 0.5/0, default shards) of
 *       64 MiB (fixed: {@code estimatedEntryCharge}
 *       128) for 64-byte values, 256 MiB ({@code estimatedEntryCharge} 8192) for 8 KiB values;
 *       charge = value size, plus 64 bytes of slot (LRU: record) metadata the cache adds itself.
 *       All entries are inserted {@code LOW}: in the LRU cache they enter the bottom pool (there
 *       is no low pool at ratio 0) and move to the high pool on their first hit. An insert of a
 *       present key replaces the entry in the LRU cache and keeps it in the HyperClock ones.
 *       Inserts copy the
 *       thread's reusable value buffer into malloc'd native memory (no Java allocation per op).
 *       Handles from lookup-insert and insert go into a per-thread FIFO of {@value #PINNED}
 *       handles; pushing releases the oldest. Lookup hits read the value's first long in place.
 *       Eviction runs inline in the inserting thread.</li>
 *   <li><b>Caffeine</b> (on-heap reference): a {@code Cache<Long, byte[]>} bounded by weight =
 *       the same capacity, weigher {@code value.length + 64} (so it holds about as many entries),
 *       maintenance on the calling thread. All {@code max_key} keys are {@code Long}s boxed once at
 *       setup (so the measured allocation is values and Caffeine's own). Caffeine
 *       stores the reference it is given, so each put stores a fresh copy of the thread's buffer
 *       (the counterpart of Clockwork's copy-in; this is Caffeine's per-op allocation). Pinning has
 *       no Caffeine equivalent: the "keep a handle" ops are plain puts/gets. A put of a present key
 *       replaces the value, where Clockwork keeps the present entry.</li>
 * </ul>
 * The {@code hits}/{@code misses} secondary results count lookups (both lookup ops) per second,
 * to compare hit ratios. {@code _1t} methods run one thread, {@code _2t} two sharing one cache.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class CacheBenchMixBenchmark {
    static final int PINNED = 4;
    static final double RESIDENT_RATIO = 0.25;
    static final int SKEW_DRAWS = 6;

    // cumulative op thresholds out of 100
    static final int LOOKUP_INSERT = 82;
    static final int INSERT = LOOKUP_INSERT + 2;
    static final int BLIND_INSERT = INSERT + 5;
    static final int LOOKUP = BLIND_INSERT + 10;
    // the remaining 1%: erase

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    @Param({"64", "8192"})
    public int valueBytes;

    long capacity;
    long estimatedEntryCharge;
    long maxKey;

    @Setup(Level.Trial)
    public void size() {
        capacity = valueBytes <= 64 ? 64L << 20 : 256L << 20;
        estimatedEntryCharge = valueBytes <= 64 ? 128 : valueBytes;
        maxKey = (long) (capacity / RESIDENT_RATIO / valueBytes);
    }

    /** Keys pre-filled: the most popular ones, as many as the capacity holds. */
    long prefillKeys() {
        return Math.min(maxKey, capacity / (valueBytes + 64));
    }

    /** Per-thread random stream, pinned-handle FIFO and reusable value buffer. */
    @State(Scope.Thread)
    public static class Worker {
        long random;
        long maxKey;
        byte[] buffer;
        final long[] pinned = new long[PINNED];
        int pinnedNext;

        @Setup(Level.Trial)
        public void start(CacheBenchMixBenchmark bench, ThreadParams thread) {
            BenchRandom seeds = new BenchRandom(1000 + thread.getThreadIndex());
            random = seeds.nextLong();
            maxKey = bench.maxKey;
            buffer = new byte[bench.valueBytes];
            seeds.nextBytes(buffer);
        }

        /** Skewed key: the minimum of {@value #SKEW_DRAWS} uniform draws from [0, maxKey). */
        int nextKey() {
            long key = Long.MAX_VALUE;
            for (int d = 0; d < SKEW_DRAWS; d++) {
                long r = BenchRandom.mix(random += BenchRandom.GOLDEN);
                key = Math.min(key, BenchRandom.below(r, maxKey));
            }
            return (int) key;
        }

        /** Uniform in [0, 100): picks the op. */
        int nextOp() {
            return (int) BenchRandom.below(BenchRandom.mix(random += BenchRandom.GOLDEN), 100);
        }

        /** Keeps a handle, releasing the one it displaces. */
        void pin(NativeCache cache, long handle) {
            long oldest = pinned[pinnedNext];
            pinned[pinnedNext] = handle;
            pinnedNext = (pinnedNext + 1) & (PINNED - 1);
            if (oldest != dev.clockwork.cache.Cache.MISS) {
                cache.release(oldest);
            }
        }

        /** The buffer, stamped with the key so stored values differ. */
        byte[] valueFor(long key) {
            LONG_LE.set(buffer, 0, key);
            return buffer;
        }
    }

    @State(Scope.Benchmark)
    public static class ClockworkState {
        /**
         * HyperClock "fixed" (sized from {@code estimatedEntryCharge}) or "auto" (grown, no
         * estimate), or "lru" ({@link LruCache}, default pool ratios); all of one capacity.
         */
        @Param({"fixed", "auto", "lru"})
        String table;

        NativeCache cache;

        @Setup(Level.Trial)
        public void fill(CacheBenchMixBenchmark bench) {
            cache = switch (table) {
                case "fixed", "auto" -> HyperClockCache.newBuilder()
                        .capacity(bench.capacity)
                        .estimatedEntryCharge(table.equals("auto") ? 0 : bench.estimatedEntryCharge)
                        .numShardBits(-1)
                        .build();
                case "lru" -> LruCache.builder()
                        .capacity(bench.capacity)
                        .numShardBits(-1)
                        .build();
                default -> throw new IllegalArgumentException("table: " + table);
            };
            byte[] value = new byte[bench.valueBytes];
            long n = bench.prefillKeys();
            for (long k = 0; k < n; k++) {
                LONG_LE.set(value, 0, k);
                cache.insert(k, 0L, value, 0, value.length, value.length, Priority.LOW);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            // Handles still in the workers' FIFOs are freed with the cache.
            cache.close();
        }
    }

    @State(Scope.Benchmark)
    public static class CaffeineState {
        Cache<Long, byte[]> cache;
        Long[] boxedKeys;

        @Setup(Level.Trial)
        public void fill(CacheBenchMixBenchmark bench) {
            cache = Caffeine.newBuilder()
                    .maximumWeight(bench.capacity)
                    .<Long, byte[]>weigher((k, v) -> v.length + 64)
                    .executor(Runnable::run)
                    .build();
            boxedKeys = new Long[(int) bench.maxKey];
            for (int i = 0; i < boxedKeys.length; i++) {
                boxedKeys[i] = (long) i;
            }
            int n = (int) bench.prefillKeys();
            for (int k = 0; k < n; k++) {
                byte[] value = new byte[bench.valueBytes];
                LONG_LE.set(value, 0, (long) k);
                cache.put(boxedKeys[k], value);
            }
            cache.cleanUp();
        }
    }

    // ------------------------------------------------------------------ shared bodies

    private long clockworkOp(NativeCache cache, Worker w, LookupCounts n) {
        int op = w.nextOp();
        long key = w.nextKey();
        int len = valueBytes;
        if (op < LOOKUP_INSERT) {
            long h = cache.lookup(key, 0L);
            long result;
            if (h != dev.clockwork.cache.Cache.MISS) {
                n.hits++;
                result = cache.value(h).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            } else {
                n.misses++;
                h = cache.insertPinned(key, 0L, w.valueFor(key), 0, len, len, Priority.LOW);
                result = h;
            }
            w.pin(cache, h);
            return result;
        } else if (op < INSERT) {
            long h = cache.insertPinned(key, 0L, w.valueFor(key), 0, len, len, Priority.LOW);
            w.pin(cache, h);
            return h;
        } else if (op < BLIND_INSERT) {
            return cache.insert(key, 0L, w.valueFor(key), 0, len, len, Priority.LOW) ? 1 : 0;
        } else if (op < LOOKUP) {
            long h = cache.lookup(key, 0L);
            if (h == dev.clockwork.cache.Cache.MISS) {
                n.misses++;
                return 0;
            }
            n.hits++;
            long first = cache.value(h).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            cache.release(h);
            return first;
        } else {
            return cache.erase(key, 0L) ? 1 : 0;
        }
    }

    private long caffeineOp(CaffeineState c, Worker w, LookupCounts n) {
        int op = w.nextOp();
        Long key = c.boxedKeys[w.nextKey()];
        Cache<Long, byte[]> cache = c.cache;
        if (op < LOOKUP_INSERT || (op >= BLIND_INSERT && op < LOOKUP)) {
            byte[] v = cache.getIfPresent(key);
            if (v != null) {
                n.hits++;
                return (long) LONG_LE.get(v, 0);
            }
            n.misses++;
            if (op < LOOKUP_INSERT) {
                cache.put(key, w.valueFor(key).clone());
            }
            return 0;
        } else if (op < BLIND_INSERT) {
            cache.put(key, w.valueFor(key).clone());
            return 1;
        } else {
            cache.invalidate(key);
            return 2;
        }
    }

    // ------------------------------------------------------------------ benchmarks

    @Benchmark
    @Threads(1)
    public long clockwork_1t(ClockworkState c, Worker w, LookupCounts n) {
        return clockworkOp(c.cache, w, n);
    }

    @Benchmark
    @Threads(1)
    public long caffeine_1t(CaffeineState c, Worker w, LookupCounts n) {
        return caffeineOp(c, w, n);
    }

    @Benchmark
    @Threads(2)
    public long clockwork_2t(ClockworkState c, Worker w, LookupCounts n) {
        return clockworkOp(c.cache, w, n);
    }

    @Benchmark
    @Threads(2)
    public long caffeine_2t(CaffeineState c, Worker w, LookupCounts n) {
        return caffeineOp(c, w, n);
    }
}
