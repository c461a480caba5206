package dev.clockwork.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CheckedCache;
import dev.clockwork.cache.Priority;
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
 * What the checked mode ({@link CheckedCache}, a pin tracked per handle) costs on a hit: lookup,
 * read the value's first long, release, on a fixed HyperClock cache of {@code entries} 64-byte
 * values, plain and wrapped, in the same run. Compare the two rows as a ratio.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class CheckedModeBenchmark {
    @Param({"65536"})
    public int entries;

    @Param({"false", "true"})
    public boolean checked;

    Cache cache;
    int[] keys;
    int keyMask;

    @Setup(Level.Trial)
    public void fill() {
        Cache plain = LookupHitBenchmark.ClockworkState.buildToHold(entries, true);
        byte[] value = new byte[LookupHitBenchmark.VALUE_BYTES];
        for (int i = 0; i < entries; i++) {
            value[0] = (byte) i;
            if (!plain.insert(i, 0L, value, 0, value.length, value.length, Priority.LOW)) {
                throw new IllegalStateException("insert refused at " + i);
            }
        }
        cache = checked ? new CheckedCache(plain) : plain;
        keys = BenchRandom.uniformKeys(entries);
        keyMask = keys.length - 1;
    }

    @TearDown(Level.Trial)
    public void close() {
        cache.close();
    }

    @Benchmark
    @Threads(1)
    public long lookupReadRelease_1t(KeyCursor cursor) {
        long h = cache.lookup(keys[cursor.next(keyMask)], 0L);
        if (h == Cache.MISS) {
            return -1;
        }
        long first = cache.value(h).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        cache.release(h);
        return first;
    }
}
