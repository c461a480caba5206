package dev.clockwork.bench;

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
 * RocksDB {@code cache_bench}'s operation mix against the peers, in the shape of a "mixed"
 * reference run of them: a cache of
 * {@code capacityMiB}, a key space of {@code capacity / resident_ratio (0.25) / valueBytes} keys
 * drawn with {@code -skew=5} (the minimum of 6 uniform draws), and per call one of: 82% lookup and
 * insert on a miss, 7% insert (cache_bench's 2% insert + 5% blind insert: the peers have no
 * handles), 10% lookup, 1% erase. A hit reads the value's first and last byte the way
 * {@link BenchPeer#hit} does (Clockwork: in place, then release; nothing stays pinned); an
 * insert copies the thread's buffer, stamped with the key. The cache is pre-filled with the most
 * popular keys.
 *
 * <p>Secondary results: {@code hits} and {@code misses} (lookups per second, for the hit ratio)
 * and {@code residentEntries}, because capacity means something else to each peer
 * ({@link BenchPeer#open}): Clockwork and OHC charge their own metadata against it, Caffeine
 * weighs key + value only, and {@code chm} grows towards the whole key space (a speed bound,
 * not a peer).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Xms6g", "-Xmx6g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class PeerMixBenchmark {
    static final double RESIDENT_RATIO = 0.25;

    // cumulative op thresholds out of 100
    static final int LOOKUP_INSERT = 82;
    static final int INSERT = LOOKUP_INSERT + 7;
    static final int LOOKUP = INSERT + 10;
    // the remaining 1%: erase

    @Param({"clockwork-fixed", "clockwork-auto", "clockwork-lru", "caffeine", "chm",
        "ohc-linked", "ohc-chunked"})
    public String cache;

    @Param({"64", "1024", "8192"})
    public int valueBytes;

    @Param({"256"})
    public int capacityMiB;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    BenchPeer peer;
    long maxKey;

    @Setup(Level.Trial)
    public void setUp() {
        long capacity = (long) capacityMiB << 20;
        maxKey = (long) (capacity / RESIDENT_RATIO / valueBytes);
        Key16[] keys = cache.startsWith("clockwork") ? null : Key16.range(0, maxKey);
        peer = BenchPeer.open(cache, capacity, valueBytes, keys);
        byte[] value = new byte[valueBytes];
        long prefill = Math.min(maxKey, capacity / valueBytes);
        for (long k = 0; k < prefill; k++) {
            stamp(value, k);
            peer.insert(k, value);
        }
    }

    /** {@code value} with {@code key} in its first 8 bytes, so that stored values differ. */
    static byte[] stamp(byte[] value, long key) {
        LONG_LE.set(value, 0, key);
        return value;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        peer.close();
    }

    /** A thread's random stream (keys and ops drawn on the fly, as cache_bench does). */
    @State(Scope.Thread)
    public static class Worker {
        MixDraws draws;
        long maxKey;
        byte[] value;

        @Setup(Level.Trial)
        public void start(PeerMixBenchmark bench, ThreadParams thread) {
            BenchRandom seeds = new BenchRandom(1000 + thread.getThreadIndex());
            draws = new MixDraws(seeds.nextLong());
            maxKey = bench.maxKey;
            value = new byte[bench.valueBytes];
            seeds.nextBytes(value);
        }

        /** Skewed key, as cache_bench's {@code -skew=5}. */
        long nextKey() {
            return draws.key(maxKey);
        }

        /** Uniform in [0, 100): picks the op. */
        int nextOp() {
            return draws.percent();
        }

        long op(BenchPeer peer, LookupCounts counts) {
            int op = nextOp();
            long key = nextKey();
            if (op < LOOKUP_INSERT || (op >= INSERT && op < LOOKUP)) {
                long read = peer.hit(key);
                if (read != BenchPeer.MISS) {
                    counts.hits++;
                    return read;
                }
                counts.misses++;
                return op < LOOKUP_INSERT && peer.insert(key, stamp(value, key)) ? 1 : 0;
            } else if (op < INSERT) {
                return peer.insert(key, stamp(value, key)) ? 1 : 0;
            }
            return peer.erase(key) ? 2 : 3;
        }
    }

    @Benchmark
    @Threads(1)
    public long mix_1t(Worker w, LookupCounts counts, ResidentEntries resident) {
        resident.sample(peer);
        return w.op(peer, counts);
    }

    @Benchmark
    @Threads(2)
    public long mix_2t(Worker w, LookupCounts counts, ResidentEntries resident) {
        resident.sample(peer);
        return w.op(peer, counts);
    }
}
