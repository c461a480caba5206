package dev.clockwork.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the whole tool in this JVM, as the command line would. */
public final class RunMain {
    private RunMain() {
    }

    /** Returns {exit code, stdout, stderr}. */
    public static Object[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Object[] {code, out.toString(), err.toString()};
    }
}
