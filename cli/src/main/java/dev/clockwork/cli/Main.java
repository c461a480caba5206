package dev.clockwork.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

import dev.clockwork.cli.bench.BenchCommand;
import dev.clockwork.cli.simulate.SimulateCommand;
import dev.clockwork.cli.soak.SoakCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/** {@code clockwork}: command-line tools for Clockwork caches. */
@Command(name = "clockwork",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Command-line tools for Clockwork off-heap caches.",
        subcommands = {BenchCommand.class, SoakCommand.class, SimulateCommand.class})
public final class Main implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Without a subcommand: print usage and fail. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return spec.exitCodeOnInvalidInput();
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        int code = run(args, out, err);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /** Runs the tool with the given streams; returns the exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = newCommandLine(out, err);
        List<String> normalized;
        try {
            normalized = normalizeSubcommandArgs(cl, Arrays.asList(args));
        } catch (IllegalArgumentException e) {
            err.println(qualifiedSubcommandName(cl, args) + ": " + e.getMessage());
            return cl.getCommandSpec().exitCodeOnInvalidInput();
        }
        return cl.execute(normalized.toArray(String[]::new));
    }

    /** The configured picocli command line: gflags-friendly, short error messages. */
    public static CommandLine newCommandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        // "-lean" must never be read as "-l -e -a -n"
        cl.setPosixClusteredShortOptionsAllowed(false);
        // gflags: a repeated flag is fine, the last one wins
        cl.setOverwrittenOptionsAllowed(true);
        cl.setParameterExceptionHandler((ex, badArgs) -> {
            CommandLine c = ex.getCommandLine();
            PrintWriter e = c.getErr();
            String name = c.getCommandSpec().qualifiedName();
            e.println(name + ": " + ex.getMessage());
            UnmatchedArgumentException.printSuggestions(ex, e);
            e.println("Try '" + name + " --help' for the list of flags.");
            return c.getCommandSpec().exitCodeOnInvalidInput();
        });
        return cl;
    }

    /**
     * Applies {@link GFlags#normalize} to the arguments after the subcommand name. Options of
     * {@code clockwork} itself take no values, so the first non-option is the subcommand.
     */
    public static List<String> normalizeSubcommandArgs(CommandLine cl, List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith("-")) {
                continue;
            }
            CommandLine sub = cl.getSubcommands().get(a);
            if (sub == null) {
                return args;
            }
            List<String> result = new ArrayList<>(args.subList(0, i + 1));
            result.addAll(GFlags.normalize(sub.getCommandSpec(), args.subList(i + 1, args.size()),
                    cl.getErr()));
            return result;
        }
        return args;
    }

    private static String qualifiedSubcommandName(CommandLine cl, String[] args) {
        for (String a : args) {
            if (cl.getSubcommands().containsKey(a)) {
                return cl.getCommandName() + " " + a;
            }
        }
        return cl.getCommandName();
    }

    /** The version string: from the jar manifest, or "dev" when run from classes. */
    public static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    /** {@code --version}. */
    public static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "clockwork " + version(),
                "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                        + System.getProperty("java.home") + ")"
            };
        }
    }
}
