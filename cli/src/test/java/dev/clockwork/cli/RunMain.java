package dev.clockwork.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

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

    /**
     * Parses {@code args} for {@code tool} exactly as {@code clockwork tool ...} does (gflags
     * normalized), without running it; returns the tool's command object with its flags set.
     */
    @SuppressWarnings("unchecked")
    public static <T> T parse(String tool, String... args) {
        PrintWriter sink = new PrintWriter(new StringWriter());
        CommandLine main = Main.newCommandLine(sink, sink);
        CommandLine command = main.getSubcommands().get(tool);
        List<String> normalized = new ArrayList<>(List.of(tool));
        normalized.addAll(GFlags.normalize(command.getCommandSpec(), List.of(args), sink));
        main.parseArgs(normalized.toArray(String[]::new));
        return (T) command.getCommand();
    }
}
