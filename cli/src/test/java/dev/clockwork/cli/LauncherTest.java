package dev.clockwork.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The ./clockwork launcher's own answers, those it gives before building or starting a jar
 * (the builds themselves are too slow for a unit test).
 */
@DisabledOnOs(OS.WINDOWS)
class LauncherTest {
    /** The launcher, from the cli module's directory (where the tests run). */
    private static final Path LAUNCHER = Path.of("..", "clockwork").toAbsolutePath().normalize();

    /** Runs the launcher with bash; returns {exit code, stdout, stderr}. */
    private static Object[] launch(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", LAUNCHER.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        return new Object[] {p.waitFor(), new String(out, StandardCharsets.UTF_8),
            new String(err, StandardCharsets.UTF_8)};
    }

    @Test
    void jmhClassWithoutAClassIsAUsageError() throws Exception {
        Object[] r = launch("jmh-class");
        assertEquals(2, r[0], (String) r[2]);
        assertEquals("clockwork: jmh-class needs a class name (e.g. ./clockwork jmh-class"
                + " dev.clockwork.bench.MemoryPerEntry)\n", r[2]);
    }

    /** Without arguments JMH would run every benchmark for hours: refused, with what to pass. */
    @Test
    void jmhWithoutArgumentsSaysWhatToPass() throws Exception {
        Object[] r = launch("jmh");
        assertEquals(2, r[0], (String) r[2]);
        assertEquals("clockwork: jmh needs JMH's arguments: a benchmark (e.g. ./clockwork jmh"
                + " PeerLookupBenchmark), -l to list them, -h for JMH's flags (.* runs them all,"
                + " for hours)\n", r[2]);
    }
}
