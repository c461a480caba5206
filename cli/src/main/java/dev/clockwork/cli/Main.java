package dev.clockwork.cli;

import dev.clockwork.cli.bench.BenchCommand;
import dev.clockwork.cli.common.ExitCodes;
import dev.clockwork.cli.common.Failures;
import dev.clockwork.cli.common.Program;
import dev.clockwork.cli.simulate.SimulateCommand;
import dev.clockwork.cli.soak.SoakCommand;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code clockwork}: command-line tools for Clockwork caches. */
@Command(name = "clockwork",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        usageHelpWidth = 100,
        synopsisHeading = "Usage: ",
        customSynopsis = {"clockwork <tool> [-flag=value ...]",
            "       clockwork help [<tool>]"},
        description = "Command-line tools for Clockwork off-heap caches.",
        optionListHeading = "%nOptions:%n",
        commandListHeading = "%nTools:%n",
        footer = {"",
            "Through the ./clockwork launcher script also:",
            "  jmh [JMH args]            the JMH benchmarks (cache-bench/target/benchmarks.jar),",
            "                            e.g. jmh -h for JMH's own flags",
            "  jmh-class <class> [args]  a main class of that jar on the same JDK,",
            "                            e.g. jmh-class dev.clockwork.bench.MemoryPerEntry",
            "",
            "clockwork <tool> --help lists the tool's flags."},
        subcommands = {BenchCommand.class, SoakCommand.class, SimulateCommand.class})
public final class Main implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Without a subcommand: print usage and fail. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        // a thread of a run that dies of a failure nobody caught says so in one line too
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> Failures.report(
                "clockwork (thread " + thread.getName() + ")", failure, err,
                Failures.stackTracesRequested()));
        int code = run(args, out, err);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /** Runs the tool with the given streams; returns the exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        return run(newCommandLine(out, err), args);
    }

    /**
     * Runs {@code args} on the configured command line {@code cl}. A failure no check foresaw
     * ends in one line too ({@link Failures}): an exception through picocli's execution
     * exception handler ({@link #configure}), an Error that picocli lets through here.
     */
    static int run(CommandLine cl, String[] args) {
        try {
            return runTool(cl, args);
        } catch (Throwable t) {
            return Failures.report(qualifiedSubcommandName(cl, args), t, cl.getErr(),
                    Failures.stackTracesRequested());
        }
    }

    private static int runTool(CommandLine cl, String[] args) {
        PrintWriter err = cl.getErr();
        if (args.length > 0 && args[0].equals("help")) {
            return help(cl, Arrays.asList(args).subList(1, args.length));
        }
        String tool = Arrays.stream(args).filter(a -> !a.startsWith("-")).findFirst().orElse(null);
        if (tool != null && !cl.getSubcommands().containsKey(tool)) {
            // before picocli, which would let a later --help win over the unknown tool
            err.println("clockwork: " + UsageErrors.unknownTool(tool, cl.getCommandSpec()));
            return ExitCodes.USAGE;
        }
        List<String> normalized;
        try {
            normalized = normalizeSubcommandArgs(cl, Arrays.asList(args));
        } catch (IllegalArgumentException e) {
            err.println(qualifiedSubcommandName(cl, args) + ": " + e.getMessage());
            return ExitCodes.USAGE;
        }
        return cl.execute(normalized.toArray(String[]::new));
    }

    /** The configured picocli command line: gflags-friendly, short error messages. */
    public static CommandLine newCommandLine(PrintWriter out, PrintWriter err) {
        return configure(new CommandLine(new Main()), out, err);
    }

    /**
     * Sets up {@code cl} and the subcommands it has now: streams, gflags-friendly parsing, one
     * line for a usage error ({@link UsageErrors}) and for an unexpected failure
     * ({@link Failures}).
     */
    static CommandLine configure(CommandLine cl, PrintWriter out, PrintWriter err) {
        cl.setOut(out);
        cl.setErr(err);
        // "-lean" must never be read as "-l -e -a -n"
        cl.setPosixClusteredShortOptionsAllowed(false);
        // gflags: a repeated flag is fine, the last one wins
        cl.setOverwrittenOptionsAllowed(true);
        cl.setParameterExceptionHandler(new UsageErrors());
        cl.setExecutionExceptionHandler((ex, commandLine, parsed) -> Failures.report(
                commandLine.getCommandSpec().qualifiedName(), ex, commandLine.getErr(),
                Failures.stackTracesRequested()));
        return cl;
    }

    /**
     * {@code clockwork help [tool]}: the list of tools, or a tool's flags, on standard output.
     */
    private static int help(CommandLine cl, List<String> rest) {
        if (rest.isEmpty()) {
            cl.usage(cl.getOut());
            return 0;
        }
        CommandLine tool = cl.getSubcommands().get(rest.get(0));
        if (tool == null) {
            cl.getErr().println("clockwork: " + UsageErrors.unknownTool(rest.get(0),
                    cl.getCommandSpec()));
            return ExitCodes.USAGE;
        }
        tool.usage(cl.getOut());
        return 0;
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

    /** {@code --version}. */
    public static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "clockwork " + Program.version(),
                "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                        + System.getProperty("java.home") + ")"
            };
        }
    }
}
