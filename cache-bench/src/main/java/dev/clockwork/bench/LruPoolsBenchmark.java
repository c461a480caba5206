package dev.clockwork.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.LruCache;
import java.lang.foreign.ValueLayout;
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

/**
 * What the {@link LruCache}'s three priority pools cost: the same cache and workload with the pools
 * in use ({@code 0.5/0}, {@code 0.5/0.2}) against none ({@code 0/0}). With both ratios at 0 the
 * list is a plain LRU: every entry goes to the newest end and no cursor or pool usage is kept,
 * after one test of a final field per list operation, so the {@code 0/0} row is the plain LRU's
 * cost and the others' ratio to it the pools' overhead. One JMH invocation runs all three; each
 * trial checks that its cache's pools are as its ratios say (a {@code HIGH} entry shows up in
 * {@link LruCache#poolUsage()} exactly when there is a high pool).
 *
 * <h2>Parameters</h2>
 * <ul>
 *   <li>{@code ratios}: {@code highPriPoolRatio/lowPriPoolRatio}.
 *       {@code 0/0}: no high or low pool, the passive-cost case. {@code 0.5/0}: RocksDB's default
 *       (high pool, no low pool). {@code 0.5/0.2}: all three pools.</li>
 * </ul>
 *
 * <h2>Workloads</h2>
 * <ul>
 *   <li>{@code hit}: lookup + release of resident keys. {@value #HIT_ENTRIES} entries of
 *       {@value #VALUE_BYTES}-byte values, inserted {@code LOW}, in a cache with room for all of
 *       them plus 25 % (16 shards), so nothing is evicted. A lookup unlinks the entry
 *       from its shard's list, the release links it back (as a hit: into the high pool when there
 *       is one, demoting that pool's oldest entries when it overflows); that is where the pool
 *       code runs. Keys: a precomputed pseudo-random sequence over all entries.</li>
 *   <li>{@code mix}: a {@code cache_bench}-like mix over {@value #MIX_KEYS} keys of which about
 *       half fit ({@code capacity} = {@value #MIX_KEYS} / 2 &times; ({@value #VALUE_BYTES} + 64
 *       bytes of record)): 85 % lookup (+ release on a hit), 10 % insert without a handle
 *       (evicting the oldest; replacing a present key), 5 % erase. Keys are skewed (the minimum of
 *       two uniform draws, so low keys are hot); each key has a fixed priority, 1/8 {@code HIGH},
 *       5/8 {@code LOW}, 2/8 {@code BOTTOM}. The cache starts full. Ops and keys are a
 *       precomputed sequence of 2^20; the {@code hits}/{@code misses} columns count lookups per
 *       second, since the pools change which keys stay resident, hence the hit ratio.</li>
 * </ul>
 * Lookup stats are off ({@code recordStats(false)}), so the pool code is a larger share of
 * each operation than in a default cache: the check is, if anything, stricter. The measured loop
 * allocates nothing (keys and ops are array reads; inserts copy one shared, never-written
 * {@code byte[]} into native memory); {@code -prof gc} should show ~0 B/op. {@code _1t}
 * methods run one thread, {@code _2t} two threads sharing one cache (and its shard locks).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class LruPoolsBenchmark {
    static final int VALUE_BYTES = 64;
    /** What an entry counts against capacity: its value and its 64-byte record. */
    static final long ENTRY_CHARGE = VALUE_BYTES + 64;

    /**
     * Small enough (4,096 entries: 256 KiB of records and ~330 KiB of values) to stay in the
     * caches, so the score is the CPU work the pool code adds, not memory stalls, which on a VM
     * swing by 2x between iterations and would hide a few percent.
     */
    static final int HIT_ENTRIES = 4096;
    static final long HIT_CAPACITY = HIT_ENTRIES * ENTRY_CHARGE * 5 / 4;
    static final int HIT_SEQUENCE = 1 << 18;

    static final int MIX_KEYS = 8192;
    /** 16 shards for both workloads, as a cache of a few hundred MiB would have. */
    static final int SHARD_BITS = 4;
    static final long MIX_CAPACITY = MIX_KEYS / 2 * ENTRY_CHARGE;
    static final int MIX_SEQUENCE = 1 << 20;
    static final byte OP_LOOKUP = 0;
    static final byte OP_INSERT = 1;
    static final byte OP_ERASE = 2;
    /** Priority by {@code key & 7}: one HIGH, five LOW, two BOTTOM. */
    private static final Priority[] PRIORITY_OF = {
        Priority.HIGH, Priority.LOW, Priority.LOW, Priority.LOW,
        Priority.LOW, Priority.LOW, Priority.BOTTOM, Priority.BOTTOM,
    };

    /** Hit workload: entry indices. */
    int[] hitKeys;
    /** Mix workload: op codes and keys, index by index. */
    byte[] mixOps;
    int[] mixKeys;
    /** The value every insert copies; never written after setup, so threads may share it. */
    byte[] value;

    @Setup(Level.Trial)
    public void sequences() {
        BenchRandom random = new BenchRandom(42);
        hitKeys = new int[HIT_SEQUENCE];
        for (int i = 0; i < HIT_SEQUENCE; i++) {
            hitKeys[i] = random.nextInt(HIT_ENTRIES);
        }
        mixOps = new byte[MIX_SEQUENCE];
        mixKeys = new int[MIX_SEQUENCE];
        for (int i = 0; i < MIX_SEQUENCE; i++) {
            int op = random.nextInt(100);
            mixOps[i] = op < 85 ? OP_LOOKUP : op < 95 ? OP_INSERT : OP_ERASE;
            mixKeys[i] = Math.min(random.nextInt(MIX_KEYS), random.nextInt(MIX_KEYS));
        }
        value = new byte[VALUE_BYTES];
        random.nextBytes(value);
    }

    // ------------------------------------------------------------------ setup

    /** Fails unless a {@code HIGH} entry lands in the high pool exactly when it should. */
    static void checkPools(LruCache cache, double high) {
        try (LruCache probe = LruCache.builder().capacity(1 << 20).numShardBits(0)
                .highPriPoolRatio(high).lowPriPoolRatio(0).build()) {
            probe.insert(1, 0, new byte[8], 0, 8, 8, Priority.HIGH);
            long highUsage = probe.poolUsage().high();
            if ((highUsage > 0) != (high > 0)) {
                throw new IllegalStateException("highPriPoolRatio " + high
                        + " but the probe's high pool holds " + highUsage + " B");
            }
        }
    }

    static double[] parseRatios(String ratios) {
        int slash = ratios.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("ratios must be high/low, got " + ratios);
        }
        return new double[] {
            Double.parseDouble(ratios.substring(0, slash)),
            Double.parseDouble(ratios.substring(slash + 1)),
        };
    }

    static LruCache build(long capacity, double high, double low) {
        return LruCache.builder()
                .capacity(capacity)
                .numShardBits(SHARD_BITS)
                .highPriPoolRatio(high)
                .lowPriPoolRatio(low)
                .recordStats(false)
                .build();
    }

    // ------------------------------------------------------------------ hit workload states

    /** A cache holding all {@value #HIT_ENTRIES} entries, each hit once already. */
    public abstract static class HitCache {
        LruCache cache;

        void fill(double high, double low) {
            cache = build(HIT_CAPACITY, high, low);
            checkPools(cache, high);
            byte[] v = new byte[VALUE_BYTES];
            for (int i = 0; i < HIT_ENTRIES; i++) {
                v[0] = (byte) i;
                if (!cache.insert(i, 0L, v, 0, VALUE_BYTES, VALUE_BYTES, Priority.LOW)) {
                    throw new IllegalStateException("insert refused at " + i);
                }
            }
            if (cache.entryCount() != HIT_ENTRIES) {
                throw new IllegalStateException("LRU holds " + cache.entryCount()
                        + " entries, expected " + HIT_ENTRIES + " (a shard too small?)");
            }
            for (int i = 0; i < HIT_ENTRIES; i++) {
                long h = cache.lookup(i, 0L);
                if (h == Cache.MISS || cache.value(h).get(ValueLayout.JAVA_BYTE, 0)
                        != (byte) i) {
                    throw new IllegalStateException("LRU lost key " + i);
                }
                cache.release(h);
            }
            System.out.printf("%nlru hit: ratios %.2f/%.2f, capacity %d B, %d shards,"
                            + " usage %d B, %s%n", high, low,
                    cache.capacity(), cache.numShards(), cache.usage(), cache.poolUsage());
        }

        @TearDown(Level.Trial)
        public void close() {
            System.out.printf("%nlru hit after: %s%n", cache.poolUsage());
            cache.close();
        }
    }

    @State(Scope.Benchmark)
    public static class PooledHit extends HitCache {
        /** highPriPoolRatio/lowPriPoolRatio. */
        @Param({"0/0", "0.5/0", "0.5/0.2"})
        public String ratios;

        @Setup(Level.Trial)
        public void setUp() {
            double[] r = parseRatios(ratios);
            fill(r[0], r[1]);
        }
    }

    // ------------------------------------------------------------------ mix workload states

    /** A cache with room for about half of the {@value #MIX_KEYS} keys, filled. */
    public abstract static class MixCache {
        LruCache cache;

        void fill(LruPoolsBenchmark bench, double high, double low) {
            cache = build(MIX_CAPACITY, high, low);
            checkPools(cache, high);
            for (int k = MIX_KEYS - 1; k >= 0; k--) { // hottest keys last, so they stay
                cache.insert(k, 0L, bench.value, 0, VALUE_BYTES, VALUE_BYTES, priorityOf(k));
            }
            System.out.printf("%nlru mix: ratios %.2f/%.2f, capacity %d B, %d shards,"
                            + " %d entries, %s%n", high, low,
                    cache.capacity(), cache.numShards(), cache.entryCount(), cache.poolUsage());
        }

        @TearDown(Level.Trial)
        public void close() {
            System.out.printf("%nlru mix after: %d entries, %s%n", cache.entryCount(),
                    cache.poolUsage());
            cache.close();
        }
    }

    @State(Scope.Benchmark)
    public static class PooledMix extends MixCache {
        /** highPriPoolRatio/lowPriPoolRatio. */
        @Param({"0/0", "0.5/0", "0.5/0.2"})
        public String ratios;

        @Setup(Level.Trial)
        public void setUp(LruPoolsBenchmark bench) {
            double[] r = parseRatios(ratios);
            fill(bench, r[0], r[1]);
        }
    }

    static Priority priorityOf(int key) {
        return PRIORITY_OF[key & 7];
    }

    // ------------------------------------------------------------------ shared bodies

    private long hit(LruCache cache, KeyCursor cursor) {
        long h = cache.lookup(hitKeys[cursor.next(HIT_SEQUENCE - 1)], 0L);
        if (h != Cache.MISS) {
            cache.release(h);
        }
        return h;
    }

    private long mix(LruCache cache, KeyCursor cursor, LookupCounts n) {
        int i = cursor.next(MIX_SEQUENCE - 1);
        int key = mixKeys[i];
        switch (mixOps[i]) {
            case OP_LOOKUP -> {
                long h = cache.lookup(key, 0L);
                if (h == Cache.MISS) {
                    n.misses++;
                    return 0;
                }
                n.hits++;
                cache.release(h);
                return h;
            }
            case OP_INSERT -> {
                return cache.insert(key, 0L, value, 0, VALUE_BYTES, VALUE_BYTES, priorityOf(key))
                        ? 1 : 0;
            }
            default -> {
                return cache.erase(key, 0L) ? 1 : 0;
            }
        }
    }

    // ------------------------------------------------------------------ hit: lookup + release

    @Benchmark
    @Threads(1)
    @Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
    public long hit_1t(PooledHit c, KeyCursor cursor) {
        return hit(c.cache, cursor);
    }

    @Benchmark
    @Threads(2)
    @Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
    public long hit_2t(PooledHit c, KeyCursor cursor) {
        return hit(c.cache, cursor);
    }

    // ------------------------------------------------------------------ mix: lookup / insert /
    // erase

    @Benchmark
    @Threads(1)
    @Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
    public long mix_1t(PooledMix c, KeyCursor cursor, LookupCounts n) {
        return mix(c.cache, cursor, n);
    }

    @Benchmark
    @Threads(2)
    @Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
    public long mix_2t(PooledMix c, KeyCursor cursor, LookupCounts n) {
        return mix(c.cache, cursor, n);
    }
}
