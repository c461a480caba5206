package dev.clockwork.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.dump.DumpReader;
import dev.clockwork.cli.RunMain;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bench -restart}, for real on small caches: three reports (warm, loaded, cold), then the
 * summary with the dump's and the load's figures and both hit ratios; the dump file kept when
 * named, and a valid dump of as many entries as the summary says; the loaded restart's hit
 * ratio above the cold one's over a first stretch too short for the cold cache to fill; the
 * flags it cannot run with refused.
 */
class RestartExperimentTest {
    private static final Pattern DUMP = Pattern.compile("Dump: (\\d+) entries, ");
    private static final Pattern LOAD = Pattern.compile("Load: (\\d+) of (\\d+) entries inserted");
    private static final Pattern HIT = Pattern.compile("Hit ratio of the first [0-9.]+ s after"
            + " the restart: ([0-9.]+) with the load, ([0-9.]+) without");

    @ParameterizedTest
    @ValueSource(strings = {"auto_hyper_clock_cache", "fixed_hyper_clock_cache", "lru_cache"})
    void restartReportsBothHitRatiosAndKeepsTheDump(String type, @TempDir Path dir)
            throws IOException {
        Path dump = dir.resolve("warm.dump");
        Object[] r = RunMain.run("bench", "-preset=block_cache", "-cache_size=67108864",
                "-threads=2", "-duration=1", "-restart", "-restart_seconds=0.3",
                "-jit_warmup_ops=0", "-progress_interval=0", "-cache_type=" + type,
                "-restart_dump=" + dump);
        String out = (String) r[1];
        assertEquals(0, r[0], "stdout:\n" + out + "\nstderr:\n" + r[2]);
        int warm = out.indexOf("=== Restart experiment, warm run");
        int loaded = out.indexOf("=== Restart experiment, restart after loading the dump");
        int cold = out.indexOf("=== Restart experiment, restart cold");
        assertTrue(warm >= 0 && warm < loaded && loaded < cold, out);
        assertEquals(3, out.split("Lookup hit ratio: ", -1).length - 1, "three reports");
        Matcher d = DUMP.matcher(out);
        Matcher l = LOAD.matcher(out);
        Matcher h = HIT.matcher(out);
        assertTrue(d.find() && l.find() && h.find(), out);
        long entries = Long.parseLong(d.group(1));
        assertTrue(entries > 1000, "a 64 MiB cache of 4-16 KiB blocks: " + entries);
        assertEquals(entries, Long.parseLong(l.group(2)), "the load read every dumped entry");
        assertTrue(Long.parseLong(l.group(1)) > entries * 9 / 10, out);
        assertTrue(Double.parseDouble(h.group(1)) > Double.parseDouble(h.group(2)),
                "0.3 s: the loaded cache hits more than the cold one filling up\n" + out);
        try (FileChannel in = FileChannel.open(dump)) {
            DumpReader reader = new DumpReader(in);
            long count = 0;
            while (reader.next()) {
                count++;
            }
            assertEquals(entries, count, "the kept file is the dump the summary describes");
        }
    }

    @Test
    void aTemporaryDumpIsDeleted() throws IOException {
        long before = countDumps();
        Object[] r = RunMain.run("bench", "-cache_size=4194304", "-threads=1", "-value_bytes=4096",
                "-duration=0.2", "-restart", "-restart_seconds=0.2", "-jit_warmup_ops=0",
                "-cache_type=lru_cache");
        assertEquals(0, r[0], "stderr:\n" + r[2]);
        assertTrue(((String) r[1]).contains("Hit ratio of the first 0.2 s"), (String) r[1]);
        assertEquals(before, countDumps(), "the temporary dump is gone");
    }

    private static long countDumps() throws IOException {
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(f -> f.getFileName().toString().startsWith("clockwork-restart-"))
                    .count();
        }
    }

    @Test
    void flagsItCannotRunWithAreRefused() {
        for (String[] args : new String[][] {
            {"bench", "-restart", "-cache_type=caffeine"},
            {"bench", "-restart", "-restart_seconds=0"},
            {"bench", "-restart", "-compare=lru_cache,auto_hyper_clock_cache"},
        }) {
            Object[] r = RunMain.run(args);
            assertFalse(r[0].equals(0), String.join(" ", args));
            assertTrue(((String) r[2]).contains("-restart"), "the message names it: " + r[2]);
        }
    }
}
