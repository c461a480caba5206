package dev.clockwork.cli.common;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What the gflags-style commands ({@code bench}, {@code soak}) share: the command spec, the
 * {@code -help} flag, refusing flags that do not go together, and cache_bench's seed rule.
 */
public abstract class FlagCommand implements Callable<Integer> {
    @Spec
    protected CommandSpec spec;

    @Option(names = {"-help", "--help", "-h"}, usageHelp = true, order = 100,
            description = "Print this list of flags and exit.")
    private boolean help;

    /**
     * Fails the command with the usage error {@code problem}, if there is one, reworded to lead
     * with a flag the user set ({@link GivenFlags}).
     */
    protected void refuse(String problem) {
        if (problem != null) {
            CommandLine cl = spec.commandLine();
            throw new ParameterException(cl,
                    new GivenFlags(spec, cl.getParseResult()).blame(problem));
        }
    }

    /** The seed to use: {@code seed}, or for 0 the process id as a uint32, as cache_bench does. */
    protected static long seedOrPid(long seed) {
        return seed != 0 ? seed : ProcessHandle.current().pid() & 0xFFFF_FFFFL;
    }
}
