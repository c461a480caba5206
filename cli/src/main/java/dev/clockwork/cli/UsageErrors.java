package dev.clockwork.cli;

import dev.clockwork.cli.common.CloseMatch;
import dev.clockwork.cli.common.ExitCodes;
import dev.clockwork.cli.common.Program;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Prints a command-line mistake as one line in the user's terms ("unknown flag '-threds' (did
 * you mean -threads? ...)") instead of picocli's ("Unmatched argument at index 1"), and returns
 * {@link ExitCodes#USAGE}.
 */
final class UsageErrors implements IParameterExceptionHandler {

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine c = ex.getCommandLine();
        c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + describe(ex));
        c.getErr().flush();
        return ExitCodes.USAGE;
    }

    /** The mistake, naming the flag or word the user typed. */
    static String describe(ParameterException ex) {
        CommandSpec spec = ex.getCommandLine().getCommandSpec();
        if (ex instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String arg = u.getUnmatched().get(0);
            return spec.parent() == null ? unknownTool(arg, spec) : unknownFlag(spec, arg);
        }
        if (ex instanceof MissingParameterException m && !m.getMissing().isEmpty()
                && m.getMissing().get(0) instanceof OptionSpec o) {
            return o.names()[0] + " needs a value (" + o.paramLabel() + ")";
        }
        if (ex.getCause() instanceof TypeConversionException t
                && ex.getArgSpec() instanceof OptionSpec o) {
            return o.names()[0] + ": " + t.getMessage();
        }
        return ex.getMessage();
    }

    /**
     * What the top level {@code root} says about a word that is not one of its tools or options.
     */
    static String unknownTool(String arg, CommandSpec root) {
        if (arg.startsWith("-")) {
            return "unknown option '" + arg + "' (see clockwork --help)";
        }
        if (Program.LAUNCHER_TOOLS.contains(arg)) {
            return arg + " runs through the ./clockwork launcher script, not the CLI jar"
                    + " (see clockwork --help)";
        }
        List<String> tools = toolNames(root);
        String close = CloseMatch.of(arg, tools);
        return "unknown tool '" + arg + "' (" + (close == null ? "" : "did you mean " + close
                + "? ") + "tools: " + String.join(", ", tools) + "; see clockwork --help)";
    }

    /** Every tool's name: this jar's, then the launcher's. */
    private static List<String> toolNames(CommandSpec root) {
        List<String> names = new ArrayList<>(root.subcommands().keySet());
        names.addAll(Program.LAUNCHER_TOOLS);
        return names;
    }

    private static String unknownFlag(CommandSpec spec, String arg) {
        String help = "see " + spec.qualifiedName() + " --help";
        if (!arg.startsWith("-")) {
            return "unexpected argument '" + arg + "' (flags are written -flag=value; " + help
                    + ")";
        }
        String name = arg.replaceFirst("^--?", "").replaceFirst("=.*", "");
        String close = CloseMatch.of(name, flagNames(spec));
        return "unknown flag '-" + name + "' (" + (close == null ? "" : "did you mean -" + close
                + "? ") + help + ")";
    }

    /** The visible flags of a command, without dashes. */
    private static Set<String> flagNames(CommandSpec spec) {
        Set<String> names = new LinkedHashSet<>();
        for (OptionSpec o : spec.options()) {
            if (!o.hidden()) {
                for (String n : o.names()) {
                    names.add(n.replaceFirst("^--?", ""));
                }
            }
        }
        return names;
    }
}
