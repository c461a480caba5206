package dev.clockwork.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cli.common.Failures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * A failure no check foresaw, in a tool: one line and an exit code, whether picocli hands it to
 * its execution exception handler (an exception) or lets it through (an Error).
 */
class FailuresTest {

    /** A tool that fails with what it is given. */
    @Command(name = "explode")
    static final class Explode implements Callable<Integer> {
        private final Throwable failure;

        Explode(Throwable failure) {
            this.failure = failure;
        }

        @Override
        public Integer call() throws Exception {
            if (failure instanceof Exception e) {
                throw e;
            }
            throw (Error) failure;
        }
    }

    /** Runs "clockwork explode" failing with {@code failure}; returns {exit code, stderr}. */
    private static Object[] explode(Throwable failure) {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.addSubcommand("explode", new Explode(failure));
        Main.configure(cl, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
        int code = Main.run(cl, new String[] {"explode"});
        return new Object[] {code, err.toString()};
    }

    private static String oneLine(Object[] r) {
        String err = (String) r[1];
        assertEquals(1, err.lines().count(), "one line:\n" + err);
        assertTrue(err.lines().noneMatch(l -> l.strip().startsWith("at ")), err);
        return err.strip();
    }

    @Test
    void aBugIsOneLineWithWhereItWasThrownAndExitStatus1() {
        Object[] r = explode(new IllegalStateException("two\nlines"));
        assertEquals(1, r[0]);
        String line = oneLine(r);
        assertTrue(line.startsWith("clockwork explode: internal error:"
                + " java.lang.IllegalStateException: two lines at dev.clockwork.cli.FailuresTest"),
                line);
        assertTrue(line.endsWith("(set " + Failures.STACK_TRACE_ENV
                + "=1 for the stack trace)"), line);
    }

    @Test
    void runningOutOfMemoryIsAUsageErrorSayingHowToRaiseTheHeap() {
        Object[] r = explode(new OutOfMemoryError("Java heap space"));
        assertEquals(2, r[0]);
        String line = oneLine(r);
        assertTrue(line.startsWith("clockwork explode: out of memory (Java heap space; the JVM's"
                + " maximum heap is "), line);
        assertTrue(line.contains("CLOCKWORK_JAVA_OPTS=-Xmx"), line);
    }

    @Test
    void anErrorOtherThanMemoryIsABugToo() {
        Object[] r = explode(new StackOverflowError());
        assertEquals(1, r[0]);
        assertTrue(oneLine(r).startsWith("clockwork explode: internal error:"
                + " java.lang.StackOverflowError at "), (String) r[1]);
    }

    @Test
    void theStackTraceFollowsOnlyWhenAskedFor() {
        StringWriter err = new StringWriter();
        int code = Failures.report("clockwork x", new IllegalArgumentException("bad"),
                new PrintWriter(err, true), true);
        assertEquals(1, code);
        String text = err.toString();
        assertTrue(text.lines().count() > 2, text);
        assertTrue(text.lines().skip(1).anyMatch(l -> l.strip().startsWith("at ")), text);
    }

    @Test
    void wrappersAreSeenThrough() {
        Object[] r = explode(new ExecutionException(
                new OutOfMemoryError("Direct buffer memory")));
        assertEquals(2, r[0]);
        assertTrue(oneLine(r).contains("out of memory (Direct buffer memory;"), (String) r[1]);
    }
}
