package dev.clockwork.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicLong;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A tiny real run against the real cache. */
class BenchEndToEndTest {

    @Test
    void tinyRun() {
        Object[] r = BenchFlagsTest.runMain("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-seed=1",
                "-cache_type=fixed_hyper_clock_cache");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Population complete ("), out);
        assertTrue(out.contains("Cache impl name     : FixedHyperClockCache"), out);
        assertTrue(out.contains("Rough parallel ops/sec = "), out);
        assertTrue(out.contains("Thread ops/sec = "), out);
        assertTrue(out.contains("Lookup hit ratio: "), out);
        assertTrue(out.contains("Final load factor: "), out);
        assertTrue(out.contains("Final pinned count: "), out);
        assertTrue(out.contains("Operation latency (ns):"), out);
        assertTrue(out.contains("Percentiles: P50: "), out);
        assertTrue(out.contains("Max RSS: "), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        String err = (String) r[2];
        assertTrue(err.matches("(?s).*Slot occupancy stats: Overall \\d+% \\(\\d+/\\d+\\),"
                + " Min/Max/Window = \\d+%/\\d+%/\\d+, MaxRun\\{Pos/Neg\\} = \\d+/\\d+\n.*"), err);
        assertTrue(err.contains("Eviction effort exceeded: "), err);
    }

    @Test
    void defaultTypeIsAutoAndReportsItsChains() {
        Object[] r = BenchFlagsTest.runMain("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Cache impl name     : AutoHyperClockCache"), out);
        assertTrue(out.contains("Final load factor: "), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        String err = (String) r[2];
        assertTrue(err.matches("(?s).*Head occupancy \\d+% \\(\\d+/\\d+\\), entries at home"
                + " \\d+% \\(\\d+/\\d+\\), longest chain \\d+, yield count \\d+,"
                + " lookup restarts \\d+\n.*"), err);
        assertTrue(err.contains("Table reservation: "), err);
    }

    @Test
    void lruRunReportsItsPools() {
        Object[] r = BenchFlagsTest.runMain("bench", "-cache_type=lru_cache",
                "-cache_size=1048576", "-threads=2", "-ops_per_thread=4000", "-value_bytes=256",
                "-seed=1", "-jit_warmup_ops=0", "-high_pri_pool_ratio=0.3",
                "-low_pri_pool_ratio=0.3", "-verify_values");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Cache impl name     : LruCache"), out);
        assertTrue(out.contains("High pri pool ratio : 0.3"), out);
        assertTrue(out.contains("Low pri pool ratio  : 0.3"), out);
        assertTrue(out.contains("Value verification failures: 0"), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        String err = (String) r[2];
        assertTrue(err.matches("(?s).*Pool usage: high [0-9.]+ MiB, low [0-9.]+ MiB, bottom"
                + " [0-9.]+ MiB, pinned [0-9.]+ MiB\n.*"), err);
        assertTrue(err.matches("(?s).*Entries: \\d+, index and records: [0-9.]+ MiB"
                + " \\([0-9.]+ bytes per entry\\)\n.*"), err);
        assertTrue(!err.contains("Slot occupancy stats"), err);
    }

    @Test
    void leanWithoutPopulationOrHistograms() {
        Object[] r = BenchFlagsTest.runMain("bench", "-cache_size=1048576", "-threads=3",
                "-ops_per_thread=1000", "-value_bytes=1000", "-lean", "-populate_cache=0",
                "-histograms=false", "-pinned_ratio=0", "-noreport_problems");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.startsWith("Using seed = " + (ProcessHandle.current().pid() & 0xFFFFFFFFL)),
                out);
        assertTrue(!out.contains("Population complete"), out);
        assertTrue(!out.contains("Operation latency"), out);
        assertTrue(out.contains("Final pinned count: 0"), out);
        assertTrue(!((String) r[2]).contains("Slot occupancy stats"), (String) r[2]);
        assertTrue(out.contains("Rough parallel ops/sec = "), out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"fixed_hyper_clock_cache", "auto_hyper_clock_cache", "lru_cache"})
    void degenerateKeysWithVerifiedValues(String type) {
        Object[] r = BenchFlagsTest.runMain("bench", "-cache_type=" + type, "-cache_size=8000000",
                "-threads=4", "-populate_cache=0", "-ops_per_thread=20000",
                "-degenerate_hash_bits=6", "-num_shard_bits=0", "-verify_values",
                "-jit_warmup_ops=0");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Value verification failures: 0\n"), out);
        assertTrue(out.contains("Degenerate hash bits: 6"), out);
        assertTrue(out.contains("Lookup hit ratio: "), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
    }

    @Test
    void verificationFailuresAreReportedWithExitCode3() {
        BenchOptions o = BenchFlagsTest.parse("-cache_size=1048576", "-threads=2",
                "-ops_per_thread=2000", "-value_bytes=256", "-verify_values", "-histograms=0",
                "-noreport_problems");
        long seed = 11;
        Cache real = CacheFactory.create(o.cacheSettings(seed));
        AtomicLong copies = new AtomicLong();
        // a cache whose every 50th value read comes back with one byte flipped
        Cache corrupting = (Cache) Proxy.newProxyInstance(Cache.class.getClassLoader(),
                new Class<?>[] {Cache.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("copyValue") && args[1] instanceof MemorySegment dst
                            && copies.incrementAndGet() % 50 == 0) {
                        long at = (Long) args[2] + 100;
                        dst.set(ValueLayout.JAVA_BYTE, at,
                                (byte) (dst.get(ValueLayout.JAVA_BYTE, at) ^ 1));
                    }
                    return result;
                });
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CacheBench(o, seed, corrupting, new PrintWriter(out, true),
                new PrintWriter(err, true)).execute();
        assertEquals(3, code, out + "\n" + err);
        long failures = copies.get() / 50;
        assertTrue(failures > 0);
        assertTrue(out.toString().contains("Value verification failures: " + failures + "\n"),
                out.toString());
        assertTrue(err.toString().contains(failures + " values failed verification"),
                err.toString());
    }

    @Test
    void noVerificationLineWithoutTheFlag() {
        Object[] r = BenchFlagsTest.runMain("bench", "-cache_size=1048576", "-threads=2",
                "-ops_per_thread=1000", "-value_bytes=256", "-seed=3", "-jit_warmup_ops=0",
                "-degenerate_hash_bits=3");
        assertEquals(0, r[0], (String) r[2]);
        assertTrue(!((String) r[1]).contains("Value verification"), (String) r[1]);
    }
}
