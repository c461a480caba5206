package dev.clockwork.cli.workload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class HiccupsTest {

    /** A stall every thread of the process suffers (here: the sleeper's own) is seen. */
    @Test
    void seesAStallOfTheSleeper() throws InterruptedException {
        Hiccups hiccups = new Hiccups().start();
        Thread.sleep(100);
        Hiccups.Seen seen = hiccups.stop();
        assertTrue(seen.maxNanos() >= seen.p999Nanos() && seen.p999Nanos() >= 0, seen.toString());
        assertTrue(seen.stealMillis() >= -1, seen.toString());
        assertTrue(seen.describe().startsWith("Platform stalls (a thread sleeping 1 ms at a time"),
                seen.describe());
    }

    @Test
    void readsTheHypervisorsStealOnLinux() {
        if (Files.exists(Path.of("/proc/stat"))) {
            assertTrue(Hiccups.stealMillis() >= 0);
        }
    }
}
