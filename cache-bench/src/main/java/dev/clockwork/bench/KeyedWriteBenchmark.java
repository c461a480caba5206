package dev.clockwork.bench;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.ShardedCache;
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
 * The uniform writes against the plain insert, on each cache type: {@code put} (erase, then
 * insert, under the key's stripe), {@code putIfAbsent} (presence check, then insert, under the
 * stripe) and {@code insert} (no stripe; its type-specific meaning), one and two threads.
 *
 * <ul>
 *   <li>{@code keys=present}: every call writes a key of a working set inserted at setup, which
 *       the cache holds whole (no eviction). {@code insert} keeps the present entry on a
 *       HyperClock table (the value is copied in and freed) and replaces it on LRU; {@code put}
 *       replaces it on every type; {@code putIfAbsent} finds it and stores nothing.</li>
 *   <li>{@code keys=new}: every call writes a key never seen before into a cache filled to
 *       capacity at setup, so every write evicts; all three store.</li>
 * </ul>
 * Threads take disjoint keys (thread {@code i} of {@code n}: keys {@code i, i + n, ...}), so two
 * threads contend for a stripe only when their keys' stripes meet, as distinct keys do.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g",
    "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class KeyedWriteBenchmark {
    @Param({"fixed", "auto", "lru"})
    public String cache;

    @Param({"present", "new"})
    public String keys;

    @Param({"256"})
    public int valueBytes;

    @Param({"64"})
    public int capacityMiB;

    ShardedCache target;
    /** Keys written at setup: the working set ({@code present}), or the fill ({@code new}). */
    long prefilled;
    boolean present;

    @Setup(Level.Trial)
    public void setUp() {
        long capacity = (long) capacityMiB << 20;
        target = switch (cache) {
            case "fixed" -> HyperClockCache.newBuilder().capacity(capacity)
                    .estimatedEntryCharge(valueBytes).build();
            case "auto" -> HyperClockCache.newBuilder().capacity(capacity)
                    .minAvgEntryCharge(valueBytes).build();
            case "lru" -> LruCache.builder().capacity(capacity).build();
            default -> throw new IllegalArgumentException("cache: " + cache);
        };
        present = switch (keys) {
            case "present" -> true;
            case "new" -> false;
            default -> throw new IllegalArgumentException("keys: " + keys);
        };
        // present: a quarter of what the cache holds, so that nothing is evicted.
        prefilled = present ? capacity / valueBytes / 4 : capacity / valueBytes;
        byte[] value = new byte[valueBytes];
        for (long k = 0; k < prefilled; k++) {
            target.insert(k, 0, value, 0, valueBytes, valueBytes, Priority.LOW);
        }
        if (present && target.entryCount() != prefilled) {
            throw new IllegalStateException("working set not held whole: " + target.entryCount()
                    + " of " + prefilled);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        target.close();
    }

    /** A thread's next key and its value buffer. */
    @State(Scope.Thread)
    public static class Writer {
        long next;
        long first;
        int stride;
        long end;
        boolean cycle;
        byte[] value;

        @Setup(Level.Trial)
        public void start(KeyedWriteBenchmark bench, ThreadParams thread) {
            stride = thread.getThreadCount();
            cycle = bench.present;
            first = cycle ? thread.getThreadIndex() : bench.prefilled + thread.getThreadIndex();
            next = first;
            end = bench.prefilled;
            value = new byte[bench.valueBytes];
            new BenchRandom(11 + thread.getThreadIndex()).nextBytes(value);
        }

        /** The next key: around the working set ({@code present}), or never seen ({@code new}). */
        long key() {
            long key = next;
            next += stride;
            if (cycle && next >= end) {
                next = first;
            }
            value[0] = (byte) key;
            return key;
        }
    }

    private boolean insert(Writer w) {
        return target.insert(w.key(), 0, w.value, 0, valueBytes, valueBytes, Priority.LOW);
    }

    private boolean put(Writer w) {
        return target.put(w.key(), 0, w.value, 0, valueBytes, valueBytes, Priority.LOW);
    }

    private boolean putIfAbsent(Writer w) {
        return target.putIfAbsent(w.key(), 0, w.value, 0, valueBytes, valueBytes, Priority.LOW);
    }

    @Benchmark
    @Threads(1)
    public boolean insert_1t(Writer w) {
        return insert(w);
    }

    @Benchmark
    @Threads(1)
    public boolean put_1t(Writer w) {
        return put(w);
    }

    @Benchmark
    @Threads(1)
    public boolean putIfAbsent_1t(Writer w) {
        return putIfAbsent(w);
    }

    @Benchmark
    @Threads(2)
    public boolean insert_2t(Writer w) {
        return insert(w);
    }

    @Benchmark
    @Threads(2)
    public boolean put_2t(Writer w) {
        return put(w);
    }

    @Benchmark
    @Threads(2)
    public boolean putIfAbsent_2t(Writer w) {
        return putIfAbsent(w);
    }
}
