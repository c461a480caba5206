package dev.clockwork.cli.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.clockwork.cli.ChildRun;
import dev.clockwork.cli.RunMain;
import dev.clockwork.cli.common.Json;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code bench -stress_cache_key}: cache_bench's lines (so one script reads both tools), the same
 * lines for the same seed whatever the thread count, the JSON result, and refused flags. Small
 * simulations: few files a day, so few bits kept still collide quickly.
 */
class StressCacheKeyTest {
    private static final String[] SMALL = {"bench", "-stress_cache_key", "-sck_files_per_day=20000",
        "-sck_days_per_run=5", "-sck_keep_bits=30", "-sck_table_bits=12", "-sck_db_count=10",
        "-sck_restarts_per_day=4", "-progress_interval=0", "-seed=7"};

    private static String[] with(String... more) {
        String[] args = Arrays.copyOf(SMALL, SMALL.length + more.length);
        System.arraycopy(more, 0, args, SMALL.length, more.length);
        return args;
    }

    @Test
    void printsCacheBenchsLines() {
        Object[] r = RunMain.run(SMALL);
        assertEquals(0, r[0], (String) r[2]);
        List<String> lines = ((String) r[1]).lines().toList();
        assertTrue(lines.get(0).matches("Total cache or DBs size: \\S+TiB  Writing \\S+ MiB/s or"
                + " \\S+TiB/day"), lines.get(0));
        assertTrue(lines.get(1).matches("Multiply by \\S+ to correct for simulation losses \\(but"
                + " still assume whole file cached\\)"), lines.get(1));
        assertTrue(lines.get(2).startsWith("Without ejection, expect random collision after "));
        assertTrue(lines.get(3).startsWith("With ejection and full table, expect random collision"
                + " after "));
        Pattern run = Pattern.compile("(\\d+) collisions after (\\d+) x 5 days, est \\S+ days"
                + " between \\(\\S+ corrected\\)|No collisions after (\\d+) x 5 days");
        String last = lines.getLast();
        for (String line : lines.subList(4, lines.size())) {
            assertTrue(run.matcher(line).matches(), line);
        }
        var m = run.matcher(last);
        assertTrue(m.matches() && m.group(1) != null && Long.parseLong(m.group(1)) >= 15, last);
    }

    @Test
    void theSameSeedGivesTheSameLinesOnOneThreadOrTwo() {
        Object[] one = RunMain.run(with("-threads=1"));
        Object[] two = RunMain.run(with("-threads=2"));
        assertEquals(one[1], two[1]);
        Object[] other = RunMain.run(with("-seed=8"));
        assertTrue(!one[1].equals(other[1]), "another seed, other runs");
    }

    @Test
    void jsonGivesTheResultAndEveryFlag() {
        Object[] r = RunMain.run(with("-json"));
        assertEquals(0, r[0], (String) r[2]);
        JsonNode json = Json.read(((String) r[1]).strip());
        assertEquals("stress_cache_key", json.get("tool").asText());
        assertEquals(30, json.get("sck_keep_bits").asLong());
        assertTrue(json.get("collisions").asLong() >= 15);
        double est = 5.0 * json.get("runs").asLong() / json.get("collisions").asLong();
        assertEquals(est, json.get("est_days_between").asDouble(), 1e-9);
        assertEquals(est * Math.pow(2, 128 - 30) / (32 * 1024.0 * 1024.0),
                json.get("corrected_days_between").asDouble(), est * 1e6);
        assertTrue(((String) r[2]).contains("collisions after"), "the human lines on stderr");
    }

    /** Random keys (hashed) keep no structure: they collide at least as often as the scheme's. */
    @Test
    void randomKeysAreNoBetterThanStructuredOnes() {
        JsonNode structured = Json.read(((String) RunMain.run(with("-json"))[1]).strip());
        JsonNode random = Json.read(((String) RunMain.run(with("-json", "-sck_randomize"))[1])
                .strip());
        assertTrue(random.get("est_days_between").asDouble()
                <= structured.get("est_days_between").asDouble(),
                "random " + random + " structured " + structured);
    }

    /** RocksDB's proposed footer ids: one database, no re-opens, only restarts renew sessions. */
    @Test
    void runsWithFooterUniqueIds() {
        // Within a process footer ids are distinct by construction: few bits kept, so that keys of
        // different processes meet often enough.
        Object[] r = RunMain.run(with("-json", "-sck_footer_unique_id", "-sck_keep_bits=20"));
        assertEquals(0, r[0], (String) r[2]);
        JsonNode json = Json.read(((String) r[1]).strip());
        assertTrue(json.get("sck_footer_unique_id").asBoolean());
        assertTrue(json.get("collisions").asLong() >= 15);
        assertEquals(json.get("processes").asLong(), json.get("sessions").asLong(),
                "one database: one session per process");
    }

    @Test
    void refusesFlagsItCannotRun() {
        Object[] r = RunMain.run(with("-sck_table_bits=40"));
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-sck_table_bits"), (String) r[2]);
        r = RunMain.run(with("-sck_restarts_per_day=0"));
        assertEquals(2, r[0]);
        assertTrue(((String) r[2]).contains("-sck_restarts_per_day"), (String) r[2]);
    }

    /** Runs the tool; checks one line on stderr, no stack frame, exit code 2; returns it. */
    private static String refused(String... args) {
        Object[] r = RunMain.run(args);
        String err = (String) r[2];
        assertEquals(2, r[0], "stdout:\n" + r[1] + "\nstderr:\n" + err);
        assertEquals(1, err.lines().count(), "one line:\n" + err);
        assertTrue(err.lines().noneMatch(l -> l.strip().startsWith("at ")), err);
        assertEquals("", r[1], "refused before the header");
        return err.strip();
    }

    /** An overflowing product made runs of no file, which printed "No collisions" forever. */
    @Test
    void filesPerRunThatOverflowAreRefusedNamingBothFlags() {
        String line = refused(with("-sck_files_per_day=4294967295",
                "-sck_days_per_run=4294967295"));
        assertEquals("clockwork bench: -sck_files_per_day=4294967295 x"
                + " -sck_days_per_run=4294967295 files a run is more than 9223372036854775807",
                line);
    }

    /** 2^31 databases were a NegativeArraySizeException, 10^9 an OutOfMemoryError. */
    @Test
    void databaseCountIsBoundedBeforeAnythingIsAllocated() {
        for (String count : new String[] {"2147483648", "1000000000", "4294967295"}) {
            assertEquals("clockwork bench: -sck_db_count=" + count + " is more than "
                    + StressCacheKeyOptions.MAX_DB_COUNT + " (a run holds 32 bytes a database"
                    + " and re-opens each at every simulated restart)",
                    refused(with("-sck_db_count=" + count)));
        }
    }

    /** -sck_table_bits=30 is 8 GiB a run: more than this test JVM's heap (-Xmx512m). */
    @Test
    void tablesThatDoNotFitTheHeapAreRefusedNamingTheFlags() {
        assertTrue(Runtime.getRuntime().maxMemory() < 8L << 30, "a heap under 8 GiB");
        String line = refused(with("-sck_table_bits=30", "-threads=1"));
        assertTrue(line.startsWith("clockwork bench: -sck_table_bits=30 and -sck_db_count=10"
                + " take 8589934912 bytes of heap a run, 1 run(s) at once (-threads, at most the"
                + " cores): 8589934912 bytes, more than 75% of the JVM's maximum heap ("), line);
        assertTrue(line.contains("lower -sck_table_bits, -sck_db_count or -threads, or raise"
                + " the heap, e.g. CLOCKWORK_JAVA_OPTS=-Xmx"), line);
    }

    /** The heap rule itself: the runs in flight, tables and databases, against 75% of it. */
    @Test
    void heapRuleCountsEveryRunInFlight() {
        StressCacheKeyOptions o = parse("-sck_table_bits=20", "-sck_db_count=1000");
        long perRun = 8L * (1 << 20) + 32 * 1000;
        assertEquals(perRun, o.heapPerRun());
        long heap = perRun * 4 * 100 / 75;
        assertEquals(null, o.validate(4, heap + 100));
        assertTrue(o.validate(5, heap + 100).contains("5 run(s) at once"));
        assertTrue(o.validate(1, perRun).contains("-sck_table_bits=20 and -sck_db_count=1000"));
        assertEquals(1, parse("-sck_db_count=0").databases(), "none is one, as before");
        assertEquals(1, parse("-sck_footer_unique_id").databases());
    }

    private static StressCacheKeyOptions parse(String... args) {
        StressCacheKeyOptions o = new StressCacheKeyOptions();
        new picocli.CommandLine(o).parseArgs(args);
        return o;
    }

    /** The bench flag -stress_cache_key uses is checked too: a huge one wrapped the deadline. */
    @Test
    void progressIntervalIsChecked() {
        assertTrue(refused(with("-progress_interval=1e300")).startsWith(
                "clockwork bench: -progress_interval must be in [0, 31536000] seconds"));
        assertTrue(refused(with("-progress_interval=NaN")).contains("-progress_interval"));
    }

    /**
     * Runs that never collide repeat for as long as the user waits: a finished run must not be
     * kept. With 100,000 databases a run holds 3.2 MB, so keeping them ran a 256 MiB heap out
     * within 80 runs; the child JVM must get through 300.
     */
    @Test
    void finishedRunsAreNotKept() throws Exception {
        ChildRun child = new ChildRun("bench", "-stress_cache_key", "-sck_files_per_day=1",
                "-sck_days_per_run=1", "-sck_restarts_per_day=1", "-sck_table_bits=10",
                "-sck_db_count=100000", "-progress_interval=0", "-threads=2", "-seed=1");
        try {
            child.awaitLine(true, line -> line.equals("No collisions after 300 x 1 days"));
        } finally {
            child.terminate();
        }
    }
}
