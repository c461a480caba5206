package dev.clockwork.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Mistakes on the command line: one plain line on stderr naming what the user typed, code 2. */
class UsageErrorsTest {

    /** Runs the tool, checks it refused with code 2, nothing on stdout; returns the one line. */
    private static String refused(String... args) {
        Object[] r = RunMain.run(args);
        assertEquals(2, r[0], "stdout:\n" + r[1] + "\nstderr:\n" + r[2]);
        assertEquals("", r[1]);
        String err = (String) r[2];
        assertEquals(1, err.lines().count(), "one line:\n" + err);
        return err.strip();
    }

    @Test
    void helpPrintsTheToolsOnStdout() {
        Object[] r = RunMain.run("help");
        assertEquals(0, r[0], (String) r[2]);
        String out = (String) r[1];
        assertTrue(out.startsWith("Usage: clockwork <tool> [-flag=value ...]"), out);
        for (String tool : new String[] {"bench ", "soak ", "simulate ", "jmh [JMH args]",
                "jmh-class <class>"}) {
            assertTrue(out.contains("  " + tool), tool + " in\n" + out);
        }
        assertEquals("", r[2]);
        assertEquals(out, RunMain.run("--help")[1], "help and --help print the same");
    }

    @Test
    void helpOfAToolPrintsItsFlags() {
        Object[] r = RunMain.run("help", "soak");
        assertEquals(0, r[0], (String) r[2]);
        assertTrue(((String) r[1]).contains("clockwork soak [-flag=value ...]"), (String) r[1]);
        assertTrue(((String) r[1]).contains("-duration"), (String) r[1]);
    }

    @Test
    void unknownToolIsOneLineListingTheTools() {
        String tools = "tools: bench, soak, simulate, jmh, jmh-class; see clockwork --help)";
        assertEquals("clockwork: unknown tool 'bogus' (" + tools, refused("bogus"));
        assertEquals("clockwork: unknown tool 'benhc' (did you mean bench? " + tools,
                refused("benhc"));
        assertEquals("clockwork: unknown tool 'bogus' (" + tools, refused("help", "bogus"));
        assertEquals("clockwork: unknown option '--bogus' (see clockwork --help)",
                refused("--bogus"));
    }

    @Test
    void launcherToolsThatReachTheJarSaySo() {
        assertEquals("clockwork: jmh runs through the ./clockwork launcher script, not the CLI"
                + " jar (see clockwork --help)", refused("jmh", "-h"));
        assertEquals("clockwork: unknown tool 'bogus' (tools: bench, soak, simulate, jmh,"
                + " jmh-class; see clockwork --help)", refused("bogus", "--help"));
    }

    @Test
    void unknownFlagIsNamedWithACloseMatch() {
        assertEquals("clockwork bench: unknown flag '-threds' (did you mean -threads? see"
                + " clockwork bench --help)", refused("bench", "-threds=2"));
        assertEquals("clockwork bench: unknown flag '-shard_bits' (did you mean -num_shard_bits?"
                + " see clockwork bench --help)", refused("bench", "--shard_bits", "2"));
        assertEquals("clockwork soak: unknown flag '-zzz' (see clockwork soak --help)",
                refused("soak", "-zzz"));
        assertEquals("clockwork simulate: unknown flag '-capacites' (did you mean -capacities?"
                + " see clockwork simulate --help)", refused("simulate", "-capacites=5"));
    }

    @Test
    void strayArgumentsMissingAndBadValuesNameTheFlag() {
        assertEquals("clockwork bench: unexpected argument 'foo' (flags are written"
                + " -flag=value; see clockwork bench --help)", refused("bench", "foo"));
        assertEquals("clockwork bench: -threads needs a value (<uint32>)",
                refused("bench", "-threads"));
        assertEquals("clockwork bench: -compare needs a value (<types>)",
                refused("bench", "-compare"));
        assertEquals("clockwork bench: -threads: 'abc' is not a valid uint32",
                refused("bench", "-threads=abc"));
        assertEquals("clockwork soak: -duration: '5 weeks' is not a duration (seconds, or a"
                + " number with a unit: 500ms, 30s, 10m, 1h)", refused("soak",
                "-duration=5 weeks"));
        assertEquals("clockwork bench: -num_shard_bits must be in [-1, 16], was 99",
                refused("bench", "-num_shard_bits=99"));
    }
}
