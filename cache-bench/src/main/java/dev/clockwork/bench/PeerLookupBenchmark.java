package dev.clockwork.bench;

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
 * Lookups against the peers, in one run, with nothing inserted or evicted while measuring:
 * {@code hit} (zero-copy where the cache can: Clockwork's {@code value(h)}, the on-heap peers'
 * stored array, OHC linked's {@code getDirect}; OHC chunked copies out), {@code hitCopy} (the
 * value copied into the thread's own buffer) and {@code miss} (a key that is absent). What each
 * cache stores and copies: {@link BenchPeer}.
 *
 * <p>{@code entries} keys are resident (checked at setup), with the builders' defaults (Clockwork
 * counts hits and misses). Capacity is twice what they need, so nothing is evicted (Caffeine's is
 * exactly what they need: see {@link #capacity}); the fixed
 * table, whose slot count follows its capacity, is sized for the entries instead (load ~0.7). Hits
 * draw from a precomputed uniform sequence over the resident keys;
 * misses from the same sequence shifted past them. {@code _1t}/{@code _2t} run 1 and 2 threads
 * on one cache; JMH's {@code -t N} runs any method with N. Each parameter combination runs in a
 * fork of its own.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
    // OHC: sun.misc.Unsafe memory access (deprecated since JDK 23), and its chunked
    // implementation reads DirectBuffer addresses.
    "--sun-misc-unsafe-memory-access=allow", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class PeerLookupBenchmark {
    @Param({"clockwork-fixed", "clockwork-auto", "clockwork-lru", "caffeine", "chm",
        "ohc-linked", "ohc-chunked"})
    public String cache;

    @Param({"64", "1024", "8192"})
    public int valueBytes;

    /** Resident entries. */
    @Param({"65536"})
    public int entries;

    int[] keys;
    int keyMask;
    BenchPeer peer;

    @Setup(Level.Trial)
    public void setUp() {
        keys = BenchRandom.uniformKeys(entries);
        keyMask = keys.length - 1;
        Key16[] keyObjects = Key16.range(0, 2L * entries);
        peer = cache.equals("clockwork-fixed")
                // sized as a user would size it for this data: table load ~0.7, not 4x the slots
                ? new BenchPeer.Clockwork(LookupHitBenchmark.ClockworkState.buildToHold(entries,
                        valueBytes, true))
                : BenchPeer.open(cache, capacity(), valueBytes, keyObjects);
        byte[] value = new byte[valueBytes];
        for (int i = 0; i < entries; i++) {
            value[0] = (byte) i;
            value[valueBytes - 1] = (byte) i;
            if (!peer.insert(i, value)) {
                throw new IllegalStateException(cache + " refused key " + i);
            }
        }
        for (int i = 0; i < entries; i++) {
            if (peer.hit(i) != BenchPeer.ends((byte) i, (byte) i)) {
                throw new IllegalStateException(cache + " lost key " + i);
            }
            if (peer.hit(entries + i) != BenchPeer.MISS) {
                throw new IllegalStateException(cache + " has absent key " + (entries + i));
            }
        }
        if (peer.entryCount() != entries) {
            throw new IllegalStateException(cache + " holds " + peer.entryCount() + " entries");
        }
    }

    /**
     * Room for twice the entries; Caffeine exactly at its capacity instead: below half of it,
     * Caffeine 3 has not sized its frequency sketch and skips its read buffer, so its hits cost
     * less than in a full cache, which is what a cache is in use.
     */
    private long capacity() {
        return cache.equals("caffeine") ? (long) entries * (16 + valueBytes)
                : 2L * entries * (valueBytes + 256);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        peer.close();
    }

    /**
     * Each thread's copy-out buffer: a value's bytes, then 128 bytes no one writes, so that two
     * threads' buffers (allocated side by side) never share a cache line.
     */
    @State(Scope.Thread)
    public static class Buffer {
        byte[] bytes;

        @Setup(Level.Trial)
        public void allocate(PeerLookupBenchmark bench) {
            bytes = new byte[bench.valueBytes + 128];
        }
    }

    @Benchmark
    @Threads(1)
    public long hit_1t(KeyCursor cursor) {
        return peer.hit(keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long hit_2t(KeyCursor cursor) {
        return peer.hit(keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long hitInPlace_1t(KeyCursor cursor) {
        return peer.hitInPlace(keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long hitInPlace_2t(KeyCursor cursor) {
        return peer.hitInPlace(keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long hitCopy_1t(KeyCursor cursor, Buffer buffer) {
        return peer.hitCopy(keys[cursor.next(keyMask)], buffer.bytes);
    }

    @Benchmark
    @Threads(2)
    public long hitCopy_2t(KeyCursor cursor, Buffer buffer) {
        return peer.hitCopy(keys[cursor.next(keyMask)], buffer.bytes);
    }

    @Benchmark
    @Threads(1)
    public long miss_1t(KeyCursor cursor) {
        return peer.hit(entries + keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long miss_2t(KeyCursor cursor) {
        return peer.hit(entries + keys[cursor.next(keyMask)]);
    }
}
