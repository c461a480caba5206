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
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Inserts with eviction against the peers: the cache is filled past its capacity at setup, then
 * every measured call inserts a key never seen before, so every insert makes the cache evict
 * (or, for OHC, evict or refuse: OHC refuses a put that does not fit its segment).
 *
 * <p>Each insert copies the thread's value buffer (stamped with the key) into the cache: into
 * native memory for Clockwork and OHC, into a fresh {@code byte[]} for the on-heap peers. New keys
 * need new key objects on the peers' side ({@link Key16}, one per insert); Clockwork's keys are
 * two longs. {@code chm} cannot evict: it erases the key its thread inserted one window ago, a
 * FIFO of about as many entries as the capacity holds (an upper bound for any policy's
 * bookkeeping). Capacity semantics per peer: {@link BenchPeer#open}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class PeerInsertBenchmark {
    @Param({"clockwork-fixed", "clockwork-auto", "clockwork-lru", "caffeine", "chm",
        "ohc-linked", "ohc-chunked"})
    public String cache;

    @Param({"64", "1024", "8192"})
    public int valueBytes;

    @Param({"64"})
    public int capacityMiB;

    BenchPeer peer;
    /** Keys inserted at setup; measured inserts start above them. */
    long prefilled;
    /** chm only: how many of its own inserts a thread keeps before erasing the oldest. */
    long window;

    @Setup(Level.Trial)
    public void setUp() {
        long capacity = (long) capacityMiB << 20;
        peer = BenchPeer.open(cache, capacity, valueBytes, null);
        window = capacity / (valueBytes + 16);
        prefilled = peer.unbounded() ? window : capacity / valueBytes;
        byte[] value = new byte[valueBytes];
        for (long k = 0; k < prefilled; k++) {
            peer.insert(k, value);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        peer.close();
    }

    /** A thread's next new key, its value buffer, and (chm) its FIFO window. */
    @State(Scope.Thread)
    public static class Inserter {
        long next;
        int stride;
        long window;
        byte[] value;

        @Setup(Level.Trial)
        public void start(PeerInsertBenchmark bench, ThreadParams thread) {
            stride = thread.getThreadCount();
            next = bench.prefilled + thread.getThreadIndex();
            window = bench.window / stride * stride;
            value = new byte[bench.valueBytes];
            new BenchRandom(7 + thread.getThreadIndex()).nextBytes(value);
        }

        long insert(BenchPeer peer) {
            long key = next;
            next += stride;
            value[0] = (byte) key;
            boolean stored = peer.insert(key, value);
            if (peer.unbounded() && key >= window) {
                peer.erase(key - window);
            }
            return stored ? key : -key;
        }
    }

    @Benchmark
    @Threads(1)
    public long insert_1t(Inserter inserter) {
        return inserter.insert(peer);
    }

    @Benchmark
    @Threads(2)
    public long insert_2t(Inserter inserter) {
        return inserter.insert(peer);
    }
}
