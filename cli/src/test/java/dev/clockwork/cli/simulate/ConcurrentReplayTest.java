package dev.clockwork.cli.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cli.RunMain;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -threads}: every access is replayed once whatever the threads; a replay from two
 * threads of a policy without admission hits as one thread does, within a tolerance; the rows
 * say their threads and carry the single-threaded figures.
 */
class ConcurrentReplayTest {
    /**
     * Points of hit ratio a 2-thread replay of a no-admission Clockwork cache may differ from
     * one thread's on the skewed random trace below: the threads reorder accesses within the
     * batches in flight (2 x 64 accesses), and a key accessed in both at once may hit or miss
     * either way. Measured on 2 cores: within 0.08 points, either sign.
     */
    static final double TOLERANCE_POINTS = 1.0;

    @TempDir
    Path dir;

    private static Trace skewedTrace(long seed, int length, int keySpace, BitSet measured) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] keys = new long[length];
        for (int i = 0; i < length; i++) {
            keys[i] = Math.min(random.nextInt(keySpace), random.nextInt(keySpace));
        }
        return new Trace("skewed", keys, null, measured);
    }

    /** Counts each key's accesses; hits on the keys' even accesses, so hits are countable. */
    private static final class CountingPolicy implements SimPolicy {
        final AtomicLongArray counts;

        CountingPolicy(int keySpace) {
            counts = new AtomicLongArray(keySpace);
        }

        @Override
        public boolean access(long key, long size) {
            return counts.incrementAndGet((int) key) % 2 == 0;
        }
    }

    @Test
    void everyAccessIsReplayedOnceWhateverTheThreads() {
        int keySpace = 300;
        BitSet measured = new BitSet();
        measured.set(10_000, 100_003); // not a multiple of the batch, nor where it starts
        Trace t = skewedTrace(3, 100_003, keySpace, measured);
        long[] expected = new long[keySpace];
        for (int i = 0; i < t.length(); i++) {
            expected[(int) t.key(i)]++;
        }
        for (int threads : new int[] {1, 2, 7, 64}) {
            CountingPolicy policy = new CountingPolicy(keySpace);
            long hits = ConcurrentReplay.replay(t, false, policy, threads, Progress.none(), "");
            long total = 0;
            for (int k = 0; k < keySpace; k++) {
                assertEquals(expected[k], policy.counts.get(k), "key " + k + ", " + threads);
                total += policy.counts.get(k);
            }
            assertEquals(t.length(), total);
            assertTrue(hits > 0 && hits < t.measuredCount(), threads + " threads: " + hits);
        }
        // one thread claims the batches in order: the same hits as the plain replay
        assertEquals(Replay.replay(t, false, new CountingPolicy(keySpace), Progress.none(), ""),
                ConcurrentReplay.replay(t, false, new CountingPolicy(keySpace), 1,
                        Progress.none(), ""));
    }

    @Test
    void aFailureInAReplayThreadReachesTheCaller() {
        Trace t = skewedTrace(3, 10_000, 100, null);
        SimPolicy failing = (key, size) -> {
            throw new IllegalStateException("broken policy");
        };
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> ConcurrentReplay.replay(t, false, failing, 3, Progress.none(), ""));
        assertEquals("broken policy", e.getMessage());
    }

    @Test
    void twoThreadsWithoutAdmissionHitAsOneWithinTheTolerance() {
        Trace t = skewedTrace(5, 60_000, 5000, null);
        PolicyRegistry registry = PolicyRegistry.standard();
        for (String type : List.of(ClockworkPolicy.LRU_CACHE, ClockworkPolicy.FIXED_HYPER_CLOCK,
                ClockworkPolicy.AUTO_HYPER_CLOCK)) {
            String name = ClockworkPolicy.withoutAdmission(type);
            for (long capacity : new long[] {200, 1000}) {
                PolicyFactory factory = registry.factory(name);
                assertTrue(factory.concurrent(), name);
                SimResult one = Replay.run(t, capacity, false, name, factory, Progress.none());
                SimResult two = ConcurrentReplay.run(t, capacity, false, name, factory, 2,
                        Progress.none());
                assertEquals(2, two.threads());
                assertEquals(0, two.admissionRejects(), "no admission, no rejects");
                assertTrue(two.hitRatio() > 0.01 && two.hitRatio() < 0.99,
                        name + " " + capacity + ": " + two.hitRatio());
                assertEquals(one.hitRatio(), two.hitRatio(), TOLERANCE_POINTS / 100,
                        name + " at " + capacity);
            }
        }
    }

    @Test
    void theCsvOfTwoThreadsSaysSoAndCarriesTheSingleThreadedFigures() throws Exception {
        StringBuilder text = new StringBuilder();
        SplittableRandom random = new SplittableRandom(9);
        for (int i = 0; i < 20_000; i++) {
            text.append(Math.min(random.nextInt(2000), random.nextInt(2000))).append('\n');
        }
        Path trace = TraceReaderTest.write(dir, "c.trace",
                text.toString().getBytes(StandardCharsets.US_ASCII));
        Object[] r = RunMain.run("simulate", "-trace", trace.toString(), "-capacities=300",
                "-threads=2", "-csv", "-policies=lru,caffeine,lru_cache_no_admission,lru_cache");
        assertEquals(0, r[0], (String) r[2]);
        List<String> lines = ((String) r[1]).lines().toList();
        assertEquals(CsvReport.CONCURRENT_HEADER, lines.get(0));
        Map<String, String[]> rows = new HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(8, f.length, line);
            rows.put(f[2], f);
        }
        assertEquals(List.of("1", "", "", ""), fields(rows.get("lru"), 3, 5, 6, 7),
                "lru is not concurrent: one thread, nothing beside it");
        assertEquals("2", rows.get("caffeine")[3]);
        assertEquals("", rows.get("caffeine")[6], "caffeine's rejects are not exposed");
        assertEquals(List.of("2", "0", "0"), fields(rows.get("lru_cache_no_admission"), 3, 6, 7));
        String[] tiny = rows.get("lru_cache");
        assertEquals("2", tiny[3]);
        assertTrue(Long.parseLong(tiny[6]) > 0 && Long.parseLong(tiny[7]) > 0,
                "TinyLFU refuses some one-off keys: " + String.join(",", tiny));
        for (String policy : List.of("caffeine", "lru_cache_no_admission", "lru_cache")) {
            double two = Double.parseDouble(rows.get(policy)[4]);
            double one = Double.parseDouble(rows.get(policy)[5]);
            assertTrue(two > 0.2 && two < 0.9, policy + " " + two);
            assertEquals(one, two, 0.05, policy + ": plausible beside its single thread");
        }
    }

    private static List<String> fields(String[] row, int... at) {
        List<String> out = new ArrayList<>();
        for (int i : at) {
            out.add(row[i]);
        }
        return out;
    }
}
