package dev.clockwork.cli.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import dev.clockwork.cli.RunMain;
import dev.clockwork.cli.common.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code clockwork simulate} end to end: outputs, the pollution scenario, flag errors. */
class SimulateCommandTest {

    @TempDir
    Path dir;

    /** A LIRS trace of {@code accesses} skewed keys, gzip-compressed. */
    private Path lirsTrace(String name, int accesses) throws IOException {
        StringBuilder text = new StringBuilder();
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        for (int i = 0; i < accesses; i++) {
            text.append(Math.min(random.nextInt(400), random.nextInt(400))).append('\n');
        }
        return TraceReaderTest.write(dir, name, text.toString().getBytes(StandardCharsets.US_ASCII));
    }

    private static Object[] run(String... args) {
        return RunMain.run(args);
    }

    private static List<String> lines(Object[] result) {
        return ((String) result[1]).lines().toList();
    }

    @Test
    void csvHasTheHeaderAndARowPerTraceCapacityAndPolicy() throws IOException {
        Path a = lirsTrace("a.trace.gz", 3000);
        Path b = TraceReaderTest.write(dir, "b.trace.xz", TraceReaderTest.cache2k(1, 2, 1, 2, 3));
        Object[] r = run("simulate", "--trace", a.toString(), "--trace", b.toString(),
                "--capacities", "10,50", "--csv");
        assertEquals(0, r[0], (String) r[2]);
        List<String> lines = lines(r);
        assertEquals("trace,capacity,policy,hit_ratio", lines.get(0));
        List<String> names = PolicyRegistry.standard().names();
        assertEquals(1 + 2 * 2 * names.size(), lines.size());
        assertEquals("a.trace,10,lru,", lines.get(1).substring(0, "a.trace,10,lru,".length()));
        for (String row : lines.subList(1, lines.size())) {
            assertTrue(row.matches("(a|b)\\.trace,(10|50),[a-z_]+,[01]\\.\\d{4}"), row);
        }
        // b: 1 2 1 2 3 at 10 entries: two hits of five for every policy
        assertTrue(lines.contains("b.trace,10,opt,0.4000"), lines.toString());
        assertTrue(lines.contains("b.trace,50,lru_cache,0.4000"), lines.toString());
    }

    @Test
    void csvRowFormat() {
        assertEquals("w,300,opt,0.4523",
                CsvReport.line(new SimResult("w", 300, false, "opt", 10_000, 4523)));
        assertEquals("\"a,b\",1,lru,0.0000",
                CsvReport.line(new SimResult("a,b", 1, false, "lru", 0, 0)));
    }

    @Test
    void jsonLinesCarryTheCounts() throws IOException {
        Path a = lirsTrace("j.trace", 2000);
        Object[] r = run("simulate", "-trace=" + a, "-capacities=20", "-policies=lru,opt",
                "-json");
        assertEquals(0, r[0], (String) r[2]);
        List<String> lines = lines(r);
        assertEquals(2, lines.size());
        JsonNode lru = Json.read(lines.get(0));
        assertEquals("j.trace", lru.get("trace").asText());
        assertEquals(20, lru.get("capacity").asLong());
        assertEquals("entries", lru.get("unit").asText());
        assertEquals("lru", lru.get("policy").asText());
        assertEquals(2000, lru.get("accesses").asLong());
        assertEquals(lru.get("hits").asLong() / 2000.0, lru.get("hit_ratio").asDouble(), 1e-6);
        assertEquals("opt", Json.read(lines.get(1)).get("policy").asText());
    }

    @Test
    void tableHasACapacityRowAndAPolicyColumn() throws IOException {
        Path a = lirsTrace("t.trace", 2000);
        Object[] r = run("simulate", "-trace", a.toString(), "-capacities", "20,40",
                "-policies", "lru,opt,caffeine");
        assertEquals(0, r[0], (String) r[2]);
        List<String> lines = lines(r);
        assertTrue(lines.get(0).startsWith("t.trace: 2,000 accesses"), lines.get(0));
        assertTrue(lines.get(1).matches("capacity \\(entries\\)\\s+lru\\s+opt\\s+caffeine"),
                lines.get(1));
        assertTrue(lines.get(2).matches("\\s+20(\\s+\\d+\\.\\d\\d){3}"), lines.get(2));
        assertTrue(lines.get(3).matches("\\s+40(\\s+\\d+\\.\\d\\d){3}"), lines.get(3));
    }

    @Test
    void bytesCapacitiesWeighEachAccess() throws IOException {
        Path csv = TraceReaderTest.write(dir, "s.csv", "1,600\n2,600\n1,600\n2,600\n"
                .getBytes(StandardCharsets.US_ASCII));
        Object[] r = run("simulate", "-trace", csv.toString(), "-capacities", "1000,1200",
                "-bytes", "-csv", "-policies", "lru,lru_cache,caffeine");
        assertEquals(0, r[0], (String) r[2]);
        List<String> lines = lines(r);
        // at 1000 bytes the two 600-byte keys evict each other; at 1200 both fit
        assertTrue(lines.contains("s.csv,1000,lru,0.0000"), lines.toString());
        assertTrue(lines.contains("s.csv,1200,lru,0.5000"), lines.toString());
        assertTrue(lines.contains("s.csv,1200,lru_cache,0.5000"), lines.toString());
    }

    @Test
    void pollutionIsDeterministicForASeed() {
        String[] args = {"simulate", "--pollution", "zipf", "--capacity", "100", "--accesses",
            "20000", "--seed", "9", "--policies", "lru,opt,lru_cache", "--csv"};
        Object[] first = run(args);
        assertEquals(0, first[0], (String) first[2]);
        assertEquals(first[1], run(args)[1]);
        List<String> lines = lines(first);
        assertEquals(4, lines.size());
        assertTrue(lines.get(1).startsWith("pollution-zipf,100,lru,"), lines.get(1));
        Trace nine = PollutionTrace.generate(PollutionTrace.Distribution.ZIPF, 1000, 100, 9);
        Trace ten = PollutionTrace.generate(PollutionTrace.Distribution.ZIPF, 1000, 100, 10);
        boolean differ = false;
        for (int i = 0; i < 1000; i += 2) {
            differ |= nine.key(i) != ten.key(i);
        }
        assertTrue(differ, "another seed draws another good stream");
    }

    @Test
    void pollutionTraceAlternatesAndMeasuresGoodKeysAfterWarmup() {
        Trace t = PollutionTrace.generate(PollutionTrace.Distribution.UNIFORM, 1000, 40, 1);
        assertEquals("pollution-uniform", t.name());
        for (int i = 0; i < 1000; i++) {
            if (i % 2 == 0) {
                assertTrue(t.key(i) >= 0 && t.key(i) < 40);
                assertEquals(i >= 100, t.isMeasured(i), "access " + i);
            } else {
                assertEquals(40 + i / 2, t.key(i));
                assertTrue(!t.isMeasured(i));
            }
        }
        assertEquals(450, t.measuredCount());
    }

    @Test
    void flagErrorsNameTheFlag() throws IOException {
        Path a = lirsTrace("e.trace", 10);
        String t = a.toString();
        assertRefused("give -trace <file>", "simulate", "-capacities=10");
        assertRefused("-trace needs -capacities", "simulate", "-trace", t);
        assertRefused("-capacities: every capacity must be >= 1", "simulate", "-trace", t,
                "-capacities=10,0");
        assertRefused("-trace: cannot read", "simulate", "-trace", t + ".missing",
                "-capacities=10");
        assertRefused("-format must be", "simulate", "-trace", t, "-capacities=10",
                "-format=parquet");
        assertRefused("-policies: unknown policy 'arc'", "simulate", "-trace", t,
                "-capacities=10", "-policies=lru,arc");
        assertRefused("-policies names lru twice", "simulate", "-trace", t,
                "-capacities=10", "-policies=lru,lru");
        assertRefused("-csv and -json", "simulate", "-trace", t, "-capacities=10", "-csv",
                "-json");
        assertRefused("-trace and -pollution", "simulate", "-trace", t, "-capacities=10",
                "-pollution=zipf");
        assertRefused("-pollution must be uniform or zipf", "simulate", "-pollution=normal",
                "-capacity=10");
        assertRefused("-pollution needs -capacity", "simulate", "-pollution=zipf");
        assertRefused("-accesses must be", "simulate", "-pollution=zipf", "-capacity=10",
                "-accesses=1");
        assertRefused("-capacities is for -trace", "simulate", "-pollution=zipf",
                "-capacity=10", "-capacities=10");
        assertRefused("is negative", "simulate", "-trace", t, "-capacities=-5");
    }

    @Test
    void bytesNeedsATraceWithSizes() throws IOException {
        Path a = lirsTrace("n.trace", 10);
        Object[] r = run("simulate", "-trace", a.toString(), "-capacities=10", "-bytes");
        assertEquals(1, r[0]);
        assertTrue(((String) r[2]).contains("-bytes needs sizes"), (String) r[2]);
    }

    private static void assertRefused(String message, String... args) {
        Object[] r = RunMain.run(args);
        assertEquals(2, r[0], "exit code for " + List.of(args) + ": " + r[2]);
        assertTrue(((String) r[2]).contains(message), "expected '" + message + "' in " + r[2]);
    }

    /**
     * The LIRS cpp trace, when a directory of traces holding {@code cpp.trace.gz} is named by the
     * {@code CLOCKWORK_TRACES} environment variable or the {@code clockwork.traces} property.
     */
    @Test
    void cppTraceMatchesPublishedLruAndOpt() {
        String dir = System.getProperty("clockwork.traces", System.getenv("CLOCKWORK_TRACES"));
        Path cpp = dir == null ? null : Path.of(dir, "cpp.trace.gz");
        assumeTrue(cpp != null && Files.isRegularFile(cpp),
                "no trace directory with cpp.trace.gz in CLOCKWORK_TRACES");
        Object[] r = run("simulate", "-trace", cpp.toString(), "-capacities=250",
                "-policies=lru,opt", "-csv");
        assertEquals(0, r[0], (String) r[2]);
        // Caffeine's simulator and the LIRS paper's figures: LRU 83.00 %, OPT 86.48 %
        assertEquals(List.of(CsvReport.HEADER, "cpp.trace,250,lru,0.8300",
                "cpp.trace,250,opt,0.8648"), lines(r));
    }
}
