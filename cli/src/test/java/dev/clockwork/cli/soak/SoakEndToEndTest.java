package dev.clockwork.cli.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.RunMain;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.Random64;
import dev.clockwork.cli.workload.ValueStamp;
import dev.clockwork.offheap.NativeMemory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Short real soaks, and proof that the soak's checks can fail. */
class SoakEndToEndTest {

    /** A small, quick soak; 2 s with a line every 0.5 s. */
    private static final List<String> SHORT = List.of("soak", "-duration=2",
            "-report_interval=0.5", "-threads=2", "-cache_size=4194304", "-value_bytes_max=4096",
            "-seed=5");

    private static final Pattern LINE = Pattern.compile(
            "(?m)^ +(\\d+\\.\\d) +(\\d+) +(\\d+) +(\\d\\.\\d{4}) +(\\d+) +(\\d+\\.\\d) "
                    + "+(\\d+\\.\\d) +(\\d+\\.\\d) +(\\d+\\.\\d) +(\\d+\\.\\d) +(\\d+)$");

    private static Object[] run(String... extra) {
        List<String> args = new ArrayList<>(SHORT);
        args.addAll(List.of(extra));
        return RunMain.run(args.toArray(String[]::new));
    }

    @ParameterizedTest
    @ValueSource(strings = {"fixed_hyper_clock_cache", "auto_hyper_clock_cache",
        "hyper_clock_cache", "lru_cache"})
    void shortSoakPasses(String type) {
        Object[] r = run("-cache_type=" + type);
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        assertTrue(out.contains("Cache type          : " + type + " ("), out);
        assertTrue(out.contains("Duration            : 2s (warm-up 400ms), report every 500ms"),
                out);
        assertTrue(out.contains("Population complete: "), out);
        assertTrue(out.contains("\nelapsed_s      ops/s     total_ops hit_ratio failures   rss_MiB"
                + " native_MiB  heap_MiB usage_MiB   cap_MiB   entries\n"), out);
        Matcher m = LINE.matcher(out);
        int lines = 0;
        long lastTotal = 0;
        while (m.find()) {
            lines++;
            long total = Long.parseLong(m.group(3));
            assertTrue(total >= lastTotal, out);
            lastTotal = total;
            assertEquals("0", m.group(5), "failures column: " + m.group());
            assertTrue(Double.parseDouble(m.group(6)) > 0, "RSS column: " + m.group());
        }
        assertTrue(lines >= 3 && lines <= 5, lines + " interval lines:\n" + out);
        assertTrue(lastTotal > 0, out);
        assertTrue(out.contains("\nSummary\n"), out);
        assertTrue(out.contains("  Checksum failures     : 0 (wrong size 0, wrong charge 0, wrong"
                + " key stamp or checksum 0)  PASS\n"), out);
        assertTrue(out.contains("  Worker errors         : none  PASS\n"), out);
        assertTrue(out.matches("(?s).*  RSS flat              : PASS \\(max after warm-up"
                + " [0-9.]+ <= [0-9.]+ \\+ max\\(5%, 32 MiB\\) = [0-9.]+ MiB\\)\n.*"), out);
        assertTrue(out.contains("  Pinned after release  : 0 bytes  PASS\n"), out);
        assertTrue(out.matches("(?s).*  After erasing \\d+ keys: 0 entries, usage \\d+ bytes"
                + " \\(expected \\d+( = table metadata)?\\), native [0-9.]+ MiB  PASS\n.*"), out);
        assertTrue(out.matches("(?s).*  Native after close    : 0 bytes \\(before the cache: 0\\),"
                + " reserved 0 bytes \\(before: 0\\)  PASS\n.*"), out);
        assertTrue(out.endsWith("Result: PASS\n"), out);
        assertTrue(out.matches("(?s).*  Value checks          : [1-9]\\d* \\(copyValue"
                + "\\(MemorySegment\\) [1-9]\\d*, value\\(\\) [1-9]\\d*, copyValue\\(byte\\[\\]\\)"
                + " [1-9]\\d*\\)\n.*"), "every read path used:\n" + out);
        assertTrue(out.matches("(?s).*  Releases              : [1-9]\\d* \\(eraseIfLastRef"
                + " [1-9]\\d*, freed \\d+\\), extra refs [1-9]\\d*\n.*"), out);
        assertEquals(0, NativeMemory.outstandingBytes());
    }

    @Test
    void jsonLines() {
        Object[] r = run("-cache_type=lru_cache", "-json", "-report_interval=1");
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        String[] lines = out.split("\n");
        assertTrue(lines.length >= 3, out);
        for (int i = 0; i < lines.length - 1; i++) {
            assertTrue(lines[i].matches("\\{\"type\":\"interval\",\"elapsed_s\":[0-9.]+,"
                    + "\"ops_per_s\":\\d+,\"total_ops\":\\d+,\"hit_ratio\":[0-9.E-]+,"
                    + "\"failures\":0,\"rss_bytes\":\\d+,\"native_bytes\":\\d+,"
                    + "\"heap_used_bytes\":\\d+,\"usage_bytes\":\\d+,\"capacity_bytes\":\\d+,"
                    + "\"entries\":\\d+}"), lines[i]);
        }
        String summary = lines[lines.length - 1];
        assertTrue(summary.startsWith("{\"type\":\"summary\",\"cache_type\":\"lru_cache\","),
                summary);
        assertTrue(summary.contains("\"checksum_failures\":0,\"worker_error\":null,"), summary);
        assertTrue(summary.contains("\"rss_flat\":true,"), summary);
        assertTrue(summary.contains("\"native_after_close_bytes\":0,"), summary);
        assertTrue(summary.contains("\"leak_free\":true,"), summary);
        assertTrue(summary.endsWith("\"result\":\"PASS\",\"exit_code\":0}"), summary);
    }

    /** Wraps a cache so that {@code hook} may replace any call's result. */
    private static Cache intercept(Cache real, BiFunction<Method, Object[],
            Object> hook) {
        return (Cache) Proxy.newProxyInstance(Cache.class.getClassLoader(),
                new Class<?>[] {Cache.class}, (proxy, method, args) -> {
                    Object replaced = hook.apply(method, args);
                    if (replaced != null) {
                        return replaced;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static Object[] runSoak(SoakOptions o, Cache cache) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new SoakRun(o, 5, cache, NativeMemory.outstandingBytes(),
                NativeMemory.reservedBytes(), RunStop.manual(), new PrintWriter(out, true),
                new PrintWriter(err, true)).execute();
        return new Object[] {code, out.toString(), err.toString()};
    }

    @Test
    void corruptedValuesAreCountedAndFailTheRun() {
        SoakOptions o = SoakFlagsTest.parse("-cache_type=lru_cache", "-duration=1.5",
                "-report_interval=0.5", "-threads=2", "-cache_size=2097152",
                "-value_bytes_max=2048", "-max_failure_reports=3");
        Cache real = CacheFactory.create(o.cacheSettings(5));
        AtomicLong copies = new AtomicLong();
        AtomicLong flipped = new AtomicLong();
        // every 100th copyValue into a MemorySegment comes back with one byte flipped
        Cache corrupting = intercept(real, (method, args) -> {
            if (method.getName().equals("copyValue") && args[1] instanceof MemorySegment dst
                    && copies.incrementAndGet() % 100 == 0) {
                long n = real.copyValue((Long) args[0], dst, (Long) args[2]);
                long at = (Long) args[2] + n / 2;
                dst.set(ValueLayout.JAVA_BYTE, at, (byte) (dst.get(ValueLayout.JAVA_BYTE, at) ^ 4));
                flipped.incrementAndGet();
                return n;
            }
            return null;
        });
        Object[] r = runSoak(o, corrupting);
        String out = (String) r[1];
        String err = (String) r[2];
        assertEquals(SoakRun.EXIT_CHECK_FAILED, r[0], out + "\n" + err);
        assertTrue(flipped.get() > 0);
        assertTrue(out.contains("  Checksum failures     : " + flipped.get() + " (wrong size 0,"
                + " wrong charge 0, wrong key stamp or checksum " + flipped.get() + ")  FAIL\n"),
                "every flipped byte is caught exactly once (" + flipped.get() + "):\n" + out);
        assertTrue(out.endsWith("Result: FAIL\n"), out);
        assertTrue(err.contains("clockwork soak: value check failed (wrong key stamp or"
                + " checksum)"), err);
        assertEquals(3, err.lines().filter(l -> l.contains("value check failed")).count(),
                "-max_failure_reports=3 limits the descriptions:\n" + err);
        Matcher m = LINE.matcher(out);
        long lastFailures = 0;
        while (m.find()) {
            lastFailures = Long.parseLong(m.group(5));
        }
        assertTrue(lastFailures > 0, "the interval lines count failures too:\n" + out);
    }

    @Test
    void unreleasedHandlesFailTheLeakAccounting() {
        SoakOptions o = SoakFlagsTest.parse("-cache_type=lru_cache", "-duration=1",
                "-report_interval=0.5", "-threads=2", "-cache_size=2097152",
                "-value_bytes_max=2048");
        Cache real = CacheFactory.create(o.cacheSettings(5));
        AtomicLong releases = new AtomicLong();
        // every 1000th release is lost: the handle stays pinned
        Cache leaking = intercept(real, (method, args) -> method.getName().equals("release")
                && releases.incrementAndGet() % 1000 == 0 ? Boolean.FALSE : null);
        Object[] r = runSoak(o, leaking);
        String out = (String) r[1];
        assertEquals(SoakRun.EXIT_LEAK, r[0], out + "\n" + r[2]);
        assertTrue(releases.get() >= 1000);
        assertTrue(out.contains("  Checksum failures     : 0 "), out);
        assertTrue(out.matches("(?s).*  Pinned after release  : [1-9]\\d* bytes  FAIL\n.*"), out);
        assertTrue(out.matches("(?s).*  After erasing \\d+ keys: \\d+ entries, usage [1-9]\\d*"
                + " bytes \\(expected 0\\), native [0-9.]+ MiB  FAIL\n.*"), out);
        // close frees pinned entries too
        assertTrue(out.contains("  Native after close    : 0 bytes"), out);
        assertTrue(out.endsWith("Result: FAIL\n"), out);
    }

    @Test
    void aWorkerExceptionFailsTheRun() {
        SoakOptions o = SoakFlagsTest.parse("-cache_type=fixed_hyper_clock_cache",
                "-duration=5", "-report_interval=1", "-threads=2", "-cache_size=2097152",
                "-value_bytes_max=2048");
        Cache real = CacheFactory.create(o.cacheSettings(5));
        AtomicLong erases = new AtomicLong();
        Cache failing = intercept(real, (method, args) -> {
            if (method.getName().equals("erase") && erases.incrementAndGet() == 5000) {
                throw new IllegalStateException("injected");
            }
            return null;
        });
        long start = System.nanoTime();
        Object[] r = runSoak(o, failing);
        assertEquals(SoakRun.EXIT_ERROR, r[0], r[1] + "\n" + r[2]);
        assertTrue(((String) r[2]).contains("a worker thread failed:"
                + " java.lang.IllegalStateException: injected"), (String) r[2]);
        assertTrue(((String) r[1]).contains("  Worker errors         :"
                + " java.lang.IllegalStateException: injected  FAIL"), (String) r[1]);
        assertTrue(System.nanoTime() - start < 4_500_000_000L, "the run stops early");
    }

    /**
     * The check itself, against each real cache: a right value passes through every read path;
     * a flipped byte, another key's stamp, a wrong size or a wrong charge is caught.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fixed_hyper_clock_cache", "auto_hyper_clock_cache", "lru_cache"})
    void checkCatchesTamperedEntries(String type) {
        SoakOptions o = SoakFlagsTest.parse("-cache_type=" + type, "-cache_size=1048576",
                "-value_bytes_min=32", "-value_bytes_max=4096");
        SoakValues.Sizes sizes = new SoakValues.Sizes(o.minValueBytes, o.maxValueBytes);
        KeyGen gen = new KeyGen();
        try (Cache cache = CacheFactory.create(o.cacheSettings(5));
             SoakValues values = new SoakValues(sizes);
             Arena arena = Arena.ofConfined()) {
            Random64 rnd = new Random64(3);
            int readModes = 3;
            for (long k = 0; k < 200; k++) {
                gen.encode(k);
                long k0 = gen.key0();
                long k1 = gen.key1();
                int n = sizes.sizeOf(k0, k1);
                MemorySegment good = arena.allocate(n);
                MemorySegment.copy(values.next(rnd, k0, k1, false), 0, good, 0, n);

                // right value, inserted both ways
                assertEquals(SoakValues.OK, checkInserted(cache, values, k0, k1, good, n,
                        k % readModes), "k=" + k);
                values.next(rnd, k0, k1, true);
                long h = cache.insertPinned(k0, k1, values.array(), 0, n, n, Priority.HIGH);
                for (int mode = 0; mode < readModes; mode++) {
                    assertEquals(SoakValues.OK, values.check(cache, h, k0, k1, mode));
                }
                cache.release(h);

                // one flipped bit anywhere
                MemorySegment bad = arena.allocate(n);
                MemorySegment.copy(good, 0, bad, 0, n);
                long at = rnd.uniform(n);
                bad.set(ValueLayout.JAVA_BYTE, at, (byte) (bad.get(ValueLayout.JAVA_BYTE, at)
                        ^ (1 << rnd.uniform(8))));
                assertEquals(SoakValues.BAD_STAMP, checkInserted(cache, values, k0, k1, bad, n,
                        k % readModes), "flip at " + at + " of " + n);

                // a value stamped for another key of the same size
                long other = k + 1;
                gen.encode(other);
                long o0 = gen.key0();
                long o1 = gen.key1();
                MemorySegment foreign = arena.allocate(n);
                MemorySegment.copy(good, 0, foreign, 0, n);
                ValueStamp.stamp(foreign, o0, o1);
                assertEquals(SoakValues.BAD_STAMP, checkInserted(cache, values, k0, k1, foreign,
                        n, k % readModes));

                // right bytes, wrong length or charge
                MemorySegment longer = arena.allocate(n + 8);
                MemorySegment.copy(good, 0, longer, 0, n);
                assertEquals(SoakValues.WRONG_SIZE, checkInserted(cache, values, k0, k1, longer,
                        n + 8, k % readModes));
                assertEquals(SoakValues.WRONG_CHARGE, checkInserted(cache, values, k0, k1, good,
                        n + 1, k % readModes));
                gen.encode(k);
            }
        }
    }

    private static int checkInserted(Cache cache, SoakValues values, long k0, long k1,
                                     MemorySegment value, long charge, long readMode) {
        long h = cache.insertPinned(k0, k1, value, charge, Priority.LOW);
        assertFalse(h == Cache.MISS);
        try {
            return values.check(cache, h, k0, k1, (int) readMode);
        } finally {
            cache.release(h, true);
        }
    }
}
