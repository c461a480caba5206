package dev.clockwork.cli.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.clockwork.cli.RunMain;
import dev.clockwork.cli.common.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code clockwork simulate} end to end: outputs, the pollution scenario, flag errors. */
class SimulateCommandTest {

    @TempDir
    Path dir;

    /** A LIRS trace of {@code accesses} skewed keys, gzip-compressed. */
    private Path lirsTrace(String name, int accesses) throws IOException {
        StringBuilder text = new StringBuilder();
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < accesses; i++) {
            text.append(Math.min(random.nextInt(400), random.nextInt(400))).append('\n');
        }
        return TraceReaderTest.write(dir, name,
                text.toString().getBytes(StandardCharsets.US_ASCII));
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
        assertEquals("trace,capacity,policy,threads,hit_ratio", lines.get(0));
        List<String> names = PolicyRegistry.standard().names();
        assertEquals(1 + 2 * 2 * names.size(), lines.size());
        assertEquals("a.trace,10,lru,1,", lines.get(1).substring(0, "a.trace,10,lru,1,".length()));
        for (String row : lines.subList(1, lines.size())) {
            assertTrue(row.matches("(a|b)\\.trace,(10|50),[a-z0-9_]+,1,[01]\\.\\d{4}"), row);
        }
        // b: 1 2 1 2 3 at 10 entries: two hits of five for every policy
        assertTrue(lines.contains("b.trace,10,opt,1,0.4000"), lines.toString());
        assertTrue(lines.contains("b.trace,50,lru_cache,1,0.4000"), lines.toString());
    }

    @Test
    void csvRowFormat() {
        assertEquals("w,300,opt,1,0.4523",
                CsvReport.line(new SimResult("w", 300, false, "opt", 10_000, 4523)));
        assertEquals("\"a,b\",1,lru,1,0.0000",
                CsvReport.line(new SimResult("a,b", 1, false, "lru", 0, 0)));
        SimResult single = new SimResult("w", 300, false, "lru_cache_tinylfu", 10_000, 4523, 1,
                17, null);
        SimResult two = new SimResult("w", 300, false, "lru_cache_tinylfu", 10_000, 4500, 2, 20,
                null).besideSingleThread(single);
        assertEquals("w,300,lru_cache_tinylfu,2,0.4500,0.4523,20,17",
                CsvReport.concurrentLine(two));
        assertEquals("w,300,opt,1,0.4523,,,",
                CsvReport.concurrentLine(new SimResult("w", 300, false, "opt", 10_000, 4523)));
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
        assertEquals(1, lru.get("threads").asInt());
        assertTrue(lru.get("hit_ratio_1_thread") == null, "one thread: nothing beside it");
        assertTrue(lru.get("admission_rejects") == null, "lru counts no admission rejects");
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
        assertTrue(lines.get(2).matches("\\s+threads(\\s+1){3}"), lines.get(2));
        assertTrue(lines.get(3).matches("\\s+20(\\s+\\d+\\.\\d\\d){3}"), lines.get(3));
        assertTrue(lines.get(4).matches("\\s+40(\\s+\\d+\\.\\d\\d){3}"), lines.get(4));
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
        assertTrue(lines.contains("s.csv,1000,lru,1,0.0000"), lines.toString());
        assertTrue(lines.contains("s.csv,1200,lru,1,0.5000"), lines.toString());
        assertTrue(lines.contains("s.csv,1200,lru_cache,1,0.5000"), lines.toString());
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
        assertRefused("-trace " + t + ".missing: no such file", "simulate", "-trace",
                t + ".missing", "-capacities=10");
        assertRefused("-format must be", "simulate", "-trace", t, "-capacities=10",
                "-format=parquet");
        assertRefused("-policies: unknown policy 'fifo'", "simulate", "-trace", t,
                "-capacities=10", "-policies=lru,fifo");
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
        for (String threads : List.of("0", "-2", "65")) {
            assertEquals("clockwork simulate: -threads must be in [1, 64], was " + threads,
                    refusedInOneLine("simulate", "-trace", t, "-capacities=10",
                            "-threads=" + threads));
        }
        assertEquals("clockwork simulate: -threads must be in [1, 64], was 0",
                refusedInOneLine("simulate", "-pollution=zipf", "-capacity=10", "-threads", "0"));
    }

    @Test
    void bytesNeedsATraceWithSizes() throws IOException {
        Path a = lirsTrace("n.trace", 10);
        assertEquals("clockwork simulate: -trace " + a + ": -bytes needs sizes, and this trace"
                + " has none (only -format=csv traces do)",
                refusedInOneLine("simulate", "-trace", a.toString(), "-capacities=10", "-bytes"));
    }

    /**
     * Runs the tool and checks that it refused before printing anything: exit code 2, one line
     * on stderr without a stack frame; returns that line.
     */
    private static String refusedInOneLine(String... args) {
        Object[] r = RunMain.run(args);
        String err = (String) r[2];
        assertEquals(2, r[0], "exit code for " + List.of(args) + ": " + err);
        assertEquals("", r[1], "nothing printed before the refusal");
        assertEquals(1, err.lines().count(), "one line:\n" + err);
        assertTrue(err.lines().noneMatch(l -> l.strip().startsWith("at ")), err);
        assertTrue(!err.contains("null"), err);
        return err.strip();
    }

    /** A 4-access CSV trace whose mean access size is 125 bytes. */
    private Path meanSize125() throws IOException {
        return TraceReaderTest.write(dir, "s.csv", "1,100\n2,200\n3,100\n1,100\n"
                .getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * A byte capacity a cache builder refuses (a fixed table sized for entries of the mean size,
     * 125 bytes, cannot hold one in 100 bytes) is one line naming the capacity and the policy,
     * given before any result is printed.
     */
    @Test
    void byteCapacitiesABuilderRefusesAreOneLineNamingTheCapacity() throws IOException {
        Path csv = meanSize125();
        String line = refusedInOneLine("simulate", "-trace", csv.toString(),
                "-capacities=1000,100", "-bytes");
        assertTrue(line.startsWith("clockwork simulate: -trace " + csv + ": -capacities=100"
                + " (bytes): fixed_hyper_clock_cache cannot be built for it: estimatedEntryCharge"
                + " 125 is larger than"), line);
        assertTrue(line.endsWith("(give another capacity, or leave fixed_hyper_clock_cache out"
                + " of -policies)"), line);
        Object[] r = run("simulate", "-trace", csv.toString(), "-capacities=100", "-bytes",
                "-policies=lru,lru_cache,auto_hyper_clock_cache", "-csv");
        assertEquals(0, r[0], "the other types take it: " + r[2]);
    }

    /**
     * ARC and LIRS count entries: with -bytes they are left out of the default policies, and
     * naming one is refused in one line naming it. LIRS refuses a capacity of 1, for a trace
     * and for the pollution scenario alike.
     */
    @Test
    void entriesOnlyPoliciesAreLeftOutOfBytesAndRefusedByName() throws IOException {
        Path csv = meanSize125();
        Object[] r = run("simulate", "-trace", csv.toString(), "-capacities=1000", "-bytes",
                "-csv");
        assertEquals(0, r[0], (String) r[2]);
        List<String> rows = lines(r);
        assertEquals(1 + PolicyRegistry.standard().namesTakingBytes().size(), rows.size());
        assertTrue(rows.contains("s.csv,1000,s3fifo,1,0.2500"), rows.toString());
        assertTrue(rows.contains("s.csv,1000,sieve,1,0.2500"), rows.toString());
        assertTrue(rows.stream().noneMatch(l -> l.contains(",arc,") || l.contains(",lirs,")));
        assertEquals("clockwork simulate: -policies: arc counts entries only and cannot run"
                + " with -bytes (leave it out of -policies)",
                refusedInOneLine("simulate", "-trace", csv.toString(), "-capacities=1000",
                        "-bytes", "-policies=lru,arc"));
        String line = refusedInOneLine("simulate", "-trace", csv.toString(), "-capacities=1");
        assertTrue(line.contains(": -capacities=1: lirs cannot be built for it: LIRS needs at"
                + " least 2 entries"), line);
        line = refusedInOneLine("simulate", "-pollution=uniform", "-capacity=1",
                "-accesses=100");
        assertTrue(line.startsWith("clockwork simulate: -pollution: -capacity=1: lirs cannot"
                + " be built for it"), line);
    }

    /** A fixed table is allocated up front: bytes allow it as many entries as entries do. */
    @Test
    void aFixedTableTooLargeForByteCapacitiesIsRefused() throws IOException {
        Path csv = meanSize125();
        long tooMany = 125 * (SimulateOptions.MAX_ENTRIES + 1);
        String line = refusedInOneLine("simulate", "-trace", csv.toString(),
                "-capacities=" + tooMany, "-bytes", "-policies=fixed_hyper_clock_cache");
        assertTrue(line.contains("-capacities=" + tooMany + " (bytes):"
                + " fixed_hyper_clock_cache cannot be built for it: a fixed table"), line);
        assertTrue(line.contains("more than " + SimulateOptions.MAX_ENTRIES), line);
    }

    /** Whatever is wrong with a trace file, one line naming it and saying what, exit code 2. */
    @Test
    void traceProblemsAreOneLineNamingTheFile() throws IOException {
        Path empty = TraceReaderTest.write(dir, "empty.trace", new byte[0]);
        assertEquals("clockwork simulate: -trace " + empty + ": holds no accesses",
                refusedInOneLine("simulate", "-trace", empty.toString(), "-capacities=10"));
        assertEquals("clockwork simulate: -trace needs a file name, was empty",
                refusedInOneLine("simulate", "-trace=", "-capacities=10"));
        Path sub = Files.createDirectory(dir.resolve("sub.trace"));
        assertEquals("clockwork simulate: -trace " + sub + ": is a directory, not a trace file",
                refusedInOneLine("simulate", "-trace", sub.toString(), "-capacities=10"));
        byte[] gz = Files.readAllBytes(lirsTrace("whole.trace.gz", 3000));
        Path cut = Files.write(dir.resolve("cut.trace.gz"), Arrays.copyOf(gz, 5));
        assertEquals("clockwork simulate: -trace " + cut + ": the gzip data ends early (is the"
                + " file truncated?)",
                refusedInOneLine("simulate", "-trace", cut.toString(), "-capacities=10"));
        Path zeros = TraceReaderTest.write(dir, "zeros.gz", new byte[4 << 20]);
        assertTrue(refusedInOneLine("simulate", "-trace", zeros.toString(), "-capacities=10",
                "-max_accesses=1000").startsWith("clockwork simulate: -trace " + zeros
                + ": more than 1000 accesses (-max_accesses=1000;"));
        assertTrue(refusedInOneLine("simulate", "-trace", zeros.toString(), "-capacities=10",
                "-format=lirs").startsWith("clockwork simulate: -trace " + zeros
                + ":1: line longer than " + TraceLines.MAX_LINE_BYTES + " bytes"));
        Path text = TraceReaderTest.write(dir, "text.gz", "hello\n".getBytes(
                StandardCharsets.US_ASCII));
        assertEquals("clockwork simulate: -trace " + text + ":1: key 'hello' is not a decimal"
                + " 64-bit integer (is the trace in this format? see -format)",
                refusedInOneLine("simulate", "-trace", text.toString(), "-capacities=10"));
    }

    @Test
    void maxAccessesIsBoundedAndForTracesOnly() throws IOException {
        String t = lirsTrace("m.trace", 10).toString();
        assertEquals("clockwork simulate: -max_accesses must be in [1, "
                + Trace.Builder.MAX_LENGTH + "], was 0",
                refusedInOneLine("simulate", "-trace", t, "-capacities=10", "-max_accesses=0"));
        assertTrue(refusedInOneLine("simulate", "-trace", t, "-capacities=10",
                "-max_accesses=2147483632").contains("-max_accesses must be in"));
        assertEquals("clockwork simulate: -max_accesses is for -trace; with -pollution give"
                + " -accesses", refusedInOneLine("simulate", "-pollution=zipf", "-capacity=10",
                "-max_accesses=5"));
        Object[] r = run("simulate", "-trace", t, "-capacities=10", "-max_accesses=10", "-csv");
        assertEquals(0, r[0], (String) r[2]);
    }

    /** The scenario's trace and zipf table are made before it runs: checked against the heap. */
    @Test
    void pollutionThatCannotFitTheHeapIsRefused() {
        assertTrue(Runtime.getRuntime().maxMemory() < 6L << 30, "a heap under 6 GiB");
        String line = refusedInOneLine("simulate", "-pollution=zipf", "-capacity=10",
                "-good_keys=1000000000");
        assertTrue(line.startsWith("clockwork simulate: -good_keys=1000000000: -accesses=1000000"
                + " (default) and a zipf table of 1000000000 good keys (-good_keys) take"
                + " 8008000000 bytes of heap (8 an access, 8 a good key), more than 75% of the"
                + " JVM's maximum heap ("), line);
        Object[] r = run("simulate", "-pollution=uniform", "-capacity=10", "-accesses=1000",
                "-good_keys=1000000000", "-policies=lru", "-csv");
        assertEquals(0, r[0], "uniform draws need no table: " + r[2]);
        SimulateOptions o = new SimulateOptions();
        o.pollution = "uniform";
        o.accesses = 1000;
        assertEquals(null, o.pollutionHeapProblem(10_667), "75% of it: 8,000 bytes");
        assertTrue(o.pollutionHeapProblem(10_666).startsWith("-accesses=1000 take"
                + " 8000 bytes of heap (8 an access), more than 75%"));
    }

    @Test
    void helpDocumentsTheTraceLimits() {
        String help = (String) run("simulate", "--help")[1];
        assertTrue(help.contains("-max_accesses=<uint64>"), help);
        String flat = help.replaceAll("\\s+", " ");
        assertTrue(flat.contains("Default: " + TraceReader.DEFAULT_MAX_ACCESSES), flat);
        assertTrue(flat.contains("at most " + TraceLines.MAX_LINE_BYTES + " bytes"), flat);
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
    /**
     * The LIRS loop trace is 500 rounds of keys 0..1010 in order. At a capacity C below 1,011,
     * LIRS's first {@code (int) (0.99 C)} keys are LIR and hit in each of the 499 rounds after
     * the first, and every other key is a miss (out of S and Q by its next use: the HIR part,
     * 1 %, holds far fewer than the 1,011 - 0.99 C keys between two uses). LRU, ARC and SIEVE
     * never hit (see {@code PeerPolicyTest}). Derived, not published: the LIRS paper gives its
     * results as curves, so there is no figure to hold it to a tolerance of.
     */
    @Test
    void loopTraceHitsOfLirsArcAndSieveAsDerived() {
        Path loop = tracesDir("loop.trace.gz");
        Object[] r = run("simulate", "-trace", loop.toString(), "-capacities=250,500,1000",
                "-policies=lirs,arc,sieve", "-json");
        assertEquals(0, r[0], (String) r[2]);
        List<String> lines = lines(r);
        assertEquals(9, lines.size());
        int row = 0;
        for (int capacity : new int[] {250, 500, 1000}) {
            for (String policy : new String[] {"lirs", "arc", "sieve"}) {
                JsonNode n = Json.read(lines.get(row++));
                assertEquals(policy, n.get("policy").asText());
                assertEquals(505_500, n.get("accesses").asLong());
                long expected = policy.equals("lirs") ? 499L * (int) (0.99 * capacity) : 0;
                assertEquals(expected, n.get("hits").asLong(), policy + " at " + capacity);
            }
        }
    }

    /** The trace {@code name} in the CLOCKWORK_TRACES directory; skips the test without it. */
    private static Path tracesDir(String name) {
        String dir = System.getProperty("clockwork.traces", System.getenv("CLOCKWORK_TRACES"));
        Path trace = dir == null ? null : Path.of(dir, name);
        assumeTrue(trace != null && Files.isRegularFile(trace),
                "no trace directory with " + name + " in CLOCKWORK_TRACES");
        return trace;
    }

    @Test
    void cppTraceMatchesPublishedLruAndOpt() {
        Path cpp = tracesDir("cpp.trace.gz");
        Object[] r = run("simulate", "-trace", cpp.toString(), "-capacities=250",
                "-policies=lru,opt", "-csv");
        assertEquals(0, r[0], (String) r[2]);
        // Caffeine's simulator and the LIRS paper's figures: LRU 83.00 %, OPT 86.48 %
        assertEquals(List.of(CsvReport.HEADER, "cpp.trace,250,lru,1,0.8300",
                "cpp.trace,250,opt,1,0.8648"), lines(r));
    }
}
