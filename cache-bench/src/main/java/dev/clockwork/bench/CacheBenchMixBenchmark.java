package dev.clockwork.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.key.DbId;
import dev.clockwork.cache.key.FileCacheKey;
import dev.clockwork.cache.key.SessionId;
import dev.clockwork.cache.key.SessionIdGenerator;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.ShardedCache;
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
 * RocksDB's {@code cache_bench} operation mix on Clockwork's caches, with handles: 82% lookup
 * and, on a miss, insert keeping a handle; 2% insert keeping a handle; 5% insert without a
 * handle; 10% lookup; 1% erase. Keys are skewed like {@code cache_bench -skew=5}: the minimum of
 * 6 uniform draws from {@code [0, max_key)}, {@code max_key = capacity / resident_ratio (0.25) /
 * value_bytes}, so about a quarter of the key space fits. Each thread draws its keys and ops on
 * the fly from its own SplitMix64 stream (7 draws per op, a few ns), as cache_bench does; a
 * precomputed, repeating sequence would shrink the key space and inflate hit ratios. The cache is
 * pre-filled with the most popular keys.
 *
 * <p>Handles kept go into a per-thread FIFO; pushing releases the oldest once the thread holds
 * its share of cache_bench's {@code total_pin_count = capacity * pinnedRatio / valueBytes}.
 * {@code pinnedRatio} 0.25 is cache_bench's default mix; 1.7 is the <b>pinned-stress mix</b>:
 * the threads keep more handles than the cache can hold, so eviction sweeps mostly meet pinned
 * entries and the eviction effort cap ({@code effortCap}, HyperClock only) decides how much CPU
 * they may burn.
 *
 * <p>Caches: {@code table=fixed} ({@link FixedHyperClockCache}, {@code estimatedEntryCharge} =
 * value size), {@code auto} ({@link dev.clockwork.offheap.AutoHyperClockCache}, no estimate),
 * {@code lru} ({@link LruCache}, default pool ratios 0.5/0); 64 MiB for 64-byte values,
 * 256 MiB otherwise; charge = value size (the caches add their own 64 bytes of slot or record
 * metadata). All entries are inserted {@code LOW}. Inserts copy the thread's reusable value
 * buffer into malloc'd native memory (no Java allocation per op). Lookup hits read the value's
 * first long in place. Eviction runs inline in the inserting thread. The peers run this mix,
 * without handles, in {@link PeerMixBenchmark}.
 *
 * <p>The {@code hits}/{@code misses} secondary results count lookups (both lookup ops) per
 * second. {@code _1t} methods run one thread, {@code _2t} two sharing one cache.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class CacheBenchMixBenchmark {
    static final double RESIDENT_RATIO = 0.25;

    // cumulative op thresholds out of 100
    static final int LOOKUP_INSERT = 82;
    static final int INSERT = LOOKUP_INSERT + 2;
    static final int BLIND_INSERT = INSERT + 5;
    static final int LOOKUP = BLIND_INSERT + 10;
    // the remaining 1%: erase

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    @Param({"64", "1024", "8192"})
    public int valueBytes;

    /** cache_bench's {@code -pinned_ratio}: 0.25 the default mix, 1.7 the pinned-stress mix. */
    @Param({"0.25", "1.7"})
    public double pinnedRatio;

    /** HyperClock's eviction effort cap (cache_bench's {@code -eviction_effort_cap}). */
    @Param({"30"})
    public int effortCap;

    /** Admission policy: {@code none} or {@code tinylfu}. */
    @Param({"none"})
    public String admission;

    /**
     * Keys: {@code plain} {@code (k, 0)}, or {@code file}: block {@code k % 4096} of file
     * {@code k / 4096}, its key derived from the file's {@link FileCacheKey} (offsets 4 KiB
     * apart), so that the cost of the scheme's keys shows end to end.
     */
    @Param({"plain"})
    public String keys;

    /** log2 of the blocks per file with {@code keys=file}. */
    static final int BLOCKS_PER_FILE_BITS = 12;

    /** The files' base keys with {@code keys=file}, else null. */
    FileCacheKey[] files;

    long capacity;
    long estimatedEntryCharge;
    long maxKey;
    long totalPinCount;

    @Setup(Level.Trial)
    public void size() {
        capacity = valueBytes <= 64 ? 64L << 20 : 256L << 20;
        estimatedEntryCharge = valueBytes <= 64 ? 128 : valueBytes;
        totalPinCount = (long) (capacity * pinnedRatio / valueBytes + 0.999999);
        maxKey = (long) (capacity / RESIDENT_RATIO / valueBytes);
        files = switch (keys) {
            case "plain" -> null;
            case "file" -> fileKeys((int) (maxKey >>> BLOCKS_PER_FILE_BITS) + 1);
            default -> throw new IllegalArgumentException("keys: " + keys);
        };
    }

    /** Base keys of {@code n} files of one database, written in one session. */
    static FileCacheKey[] fileKeys(int n) {
        DbId db = new DbId(0x0123_4567_89ab_cdefL, 0x0fed_cba9_8765_4321L);
        SessionId session = new SessionIdGenerator(0x5eed, 0xc10c).next();
        FileCacheKey[] files = new FileCacheKey[n];
        for (int i = 0; i < n; i++) {
            files[i] = FileCacheKey.of(db, session, i + 1);
        }
        return files;
    }

    /** The first word of key {@code k}'s cache key. */
    long key0(long k) {
        return files == null ? k : files[(int) (k >>> BLOCKS_PER_FILE_BITS)].key0();
    }

    /** The second word of key {@code k}'s cache key. */
    long key1(long k) {
        return files == null ? 0L : files[(int) (k >>> BLOCKS_PER_FILE_BITS)]
                .key1((k & ((1 << BLOCKS_PER_FILE_BITS) - 1)) << 12);
    }

    /** Keys pre-filled: the most popular ones, as many as the capacity holds. */
    long prefillKeys() {
        return Math.min(maxKey, capacity / (valueBytes + 64));
    }

    /** Per-thread random stream, pinned-handle FIFO and reusable value buffer. */
    @State(Scope.Thread)
    public static class Worker {
        MixDraws draws;
        long maxKey;
        byte[] buffer;
        long[] pinned;
        int pinnedNext;

        @Setup(Level.Trial)
        public void start(CacheBenchMixBenchmark bench, ThreadParams thread) {
            BenchRandom seeds = new BenchRandom(1000 + thread.getThreadIndex());
            draws = new MixDraws(seeds.nextLong());
            maxKey = bench.maxKey;
            buffer = new byte[bench.valueBytes];
            seeds.nextBytes(buffer);
            int threads = thread.getThreadCount();
            pinned = new long[(int) ((bench.totalPinCount + thread.getThreadIndex()) / threads)];
        }

        /** Skewed key, as cache_bench's {@code -skew=5}. */
        int nextKey() {
            return (int) draws.key(maxKey);
        }

        /** Uniform in [0, 100): picks the op. */
        int nextOp() {
            return draws.percent();
        }

        /** Keeps a handle, releasing the oldest once the thread holds its share. */
        void pin(ShardedCache cache, long handle) {
            if (pinned.length == 0) {
                if (handle != Cache.MISS) {
                    cache.release(handle);
                }
                return;
            }
            long oldest = pinned[pinnedNext];
            pinned[pinnedNext] = handle;
            pinnedNext = pinnedNext + 1 == pinned.length ? 0 : pinnedNext + 1;
            if (oldest != Cache.MISS) {
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

        ShardedCache cache;

        @Setup(Level.Trial)
        public void fill(CacheBenchMixBenchmark bench) {
            cache = switch (table) {
                case "fixed", "auto" -> {
                    HyperClockCache.Builder b = HyperClockCache.builder()
                            .capacity(bench.capacity)
                            .numShardBits(-1)
                            .evictionEffortCap(bench.effortCap)
                            .admission(LookupHitBenchmark.admissionPolicy(bench.admission));
                    yield table.equals("auto") ? b.build()
                            : b.estimatedEntryCharge(bench.estimatedEntryCharge).build();
                }
                case "lru" -> LruCache.builder()
                        .capacity(bench.capacity)
                        .numShardBits(-1)
                        .admission(LookupHitBenchmark.admissionPolicy(bench.admission))
                        .build();
                default -> throw new IllegalArgumentException("table: " + table);
            };
            byte[] value = new byte[bench.valueBytes];
            long n = bench.prefillKeys();
            for (long k = 0; k < n; k++) {
                LONG_LE.set(value, 0, k);
                cache.insert(bench.key0(k), bench.key1(k), value, 0, value.length, value.length,
                        Priority.LOW);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            // Handles still in the workers' FIFOs are freed with the cache.
            cache.close();
        }
    }

    // ------------------------------------------------------------------ shared bodies

    private long clockworkOp(ShardedCache cache, Worker w, LookupCounts n) {
        int op = w.nextOp();
        long key = w.nextKey();
        long k0 = key0(key);
        long k1 = key1(key);
        int len = valueBytes;
        if (op < LOOKUP_INSERT) {
            long h = cache.lookup(k0, k1);
            long result;
            if (h != Cache.MISS) {
                n.hits++;
                result = cache.value(h).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            } else {
                n.misses++;
                h = cache.insertPinned(k0, k1, w.valueFor(key), 0, len, len, Priority.LOW);
                result = h;
            }
            w.pin(cache, h);
            return result;
        } else if (op < INSERT) {
            long h = cache.insertPinned(k0, k1, w.valueFor(key), 0, len, len, Priority.LOW);
            w.pin(cache, h);
            return h;
        } else if (op < BLIND_INSERT) {
            return cache.insert(k0, k1, w.valueFor(key), 0, len, len, Priority.LOW) ? 1 : 0;
        } else if (op < LOOKUP) {
            long h = cache.lookup(k0, k1);
            if (h == Cache.MISS) {
                n.misses++;
                return 0;
            }
            n.hits++;
            long first = cache.value(h).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            cache.release(h);
            return first;
        } else {
            return cache.erase(k0, k1) ? 1 : 0;
        }
    }

    // ------------------------------------------------------------------ benchmarks

    @Benchmark
    @Threads(1)
    public long clockwork_1t(ClockworkState c, Worker w, LookupCounts n) {
        return clockworkOp(c.cache, w, n);
    }

    @Benchmark
    @Threads(2)
    public long clockwork_2t(ClockworkState c, Worker w, LookupCounts n) {
        return clockworkOp(c.cache, w, n);
    }

}
