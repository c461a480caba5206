package dev.clockwork.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * SIGTERM (as Ctrl-C's SIGINT) during a run: the workers stop, the report of what ran is
 * printed and marked partial, then the process exits with the signal's status, 143.
 */
@DisabledOnOs(OS.WINDOWS)
class StopOnSignalTest {
    private static final int SIGTERM_STATUS = 128 + 15;

    @Test
    void benchPrintsAPartialReport() throws Exception {
        ChildRun run = new ChildRun("bench", "-cache_size=4194304", "-threads=2",
                "-ops_per_thread=1000000000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0",
                "-progress_interval=0.1");
        run.awaitLine(false, line -> line.startsWith("progress: "));
        assertEquals(SIGTERM_STATUS, run.terminate(), run.err());
        String out = run.out();
        assertTrue(out.matches("(?s).*\nPartial run: stopped early after \\d+ of 2000000000 ops;"
                + " the figures below cover those.\nComplete in .*"), out);
        assertTrue(out.contains("Lookup hit ratio: "), out);
        assertTrue(out.contains("Native memory after close: 0 bytes"), out);
        assertTrue(run.err().contains("clockwork bench: stopping early (signal); reporting what"
                + " ran so far"), run.err());
    }

    @Test
    void benchJsonSaysPartial() throws Exception {
        ChildRun run = new ChildRun("bench", "-cache_size=4194304", "-threads=2",
                "-ops_per_thread=1000000000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0",
                "-progress_interval=0.1", "-json");
        run.awaitLine(false, line -> line.startsWith("progress: "));
        assertEquals(SIGTERM_STATUS, run.terminate(), run.err());
        String line = run.out().strip();
        assertTrue(line.startsWith("{") && line.contains(",\"partial\":true,"), line);
    }

    @Test
    void soakPrintsAPartialSummary() throws Exception {
        ChildRun run = new ChildRun("soak", "-cache_size=4194304", "-threads=2",
                "-value_bytes_max=4096", "-duration=10m", "-report_interval=0.2", "-seed=1");
        run.awaitLine(true, line -> line.matches(" +\\d+\\.\\d +\\d+ +\\d+ .*"));
        assertEquals(SIGTERM_STATUS, run.terminate(), run.err());
        String out = run.out();
        assertTrue(out.matches("(?s).*\nSummary \\(partial: stopped early after \\d+\\.\\d s of"
                + " 10m\\)\n  Total ops .*"), out);
        assertTrue(out.contains("RSS flat              : not judged (the run ended before the"
                + " warm-up did)"), out);
        assertTrue(out.contains("Native after close    : 0 bytes"), out);
        assertTrue(out.endsWith("Result: PASS\n"), out);
    }

    /** -compare passes the signal to the running child and tabulates what ran. */
    @Test
    void compareStopsItsChildAndTabulatesWhatRan() throws Exception {
        ChildRun run = new ChildRun("bench", "-cache_size=4194304", "-threads=2",
                "-ops_per_thread=1000000000", "-value_bytes=256", "-seed=1", "-jit_warmup_ops=0",
                "-progress_interval=0.1", "-compare=lru_cache,fixed_hyper_clock_cache");
        run.awaitLine(false, line -> line.startsWith("progress: "));
        List<ProcessHandle> children = run.children();
        assertFalse(children.isEmpty());
        assertEquals(SIGTERM_STATUS, run.terminate(), run.err());
        for (ProcessHandle child : children) {
            child.onExit().get(30, TimeUnit.SECONDS);
        }
        String out = run.out();
        assertTrue(out.contains("Partial run: stopped early after "), out);
        assertFalse(out.contains("=== -cache_type=fixed_hyper_clock_cache"), out);
        assertTrue(out.matches("(?s).*\nlru_cache \\(partial\\) +\\d+ +1\\.00x .*\n\\(partial:"
                + " stopped early; its figures cover the operations it did\\)\n"), out);
    }
}
