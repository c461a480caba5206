package dev.clockwork.cli.simulate;

import dev.clockwork.cli.common.ExitCodes;
import dev.clockwork.cli.common.Failures;
import dev.clockwork.cli.common.FlagCommand;
import dev.clockwork.cli.common.Printable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code clockwork simulate}: hit ratios of cache policies on traces, one access at a time. */
@Command(name = "simulate",
        header = "Replay cache traces against policies and print hit ratios.",
        sortOptions = false,
        usageHelpWidth = 100,
        headerHeading = "",
        synopsisHeading = "%nUsage: ",
        customSynopsis = {
            "clockwork simulate -trace <file> [-trace <file> ...] -capacities <n,n,...> [-bytes]"
                    + " [-policies <list>] [-threads <n>] [-csv | -json]",
            "       clockwork simulate -pollution uniform|zipf -capacity <n> [-accesses <n>]"
                    + " [-seed <n>] [-policies <list>] [-threads <n>] [-csv | -json]"
        },
        description = {
            "",
            "Replays each trace one access at a time against each policy (look up; on a miss,"
                    + " insert) at each capacity, single-threaded (with -threads, also from several"
                    + " threads at once), and prints the hit ratio per"
                    + " (trace, capacity, policy). Policies: lru (reference LRU), opt (Belady's"
                    + " MIN), caffeine (W-TinyLFU), the published s3fifo, sieve, arc, lirs and"
                    + " clockpro, and Clockwork's lru_cache, fixed_hyper_clock_cache and"
                    + " auto_hyper_clock_cache (one shard, default settings; with _tinylfu,"
                    + " TinyLFU admission).",
            "",
            "Flags are gflags-style: -flag=value or -flag value; --flag works too. Booleans:"
                    + " -flag, -noflag, -flag=true|false|1|0.",
            ""
        },
        optionListHeading = "Flags:%n")
public final class SimulateCommand extends FlagCommand {

    @Mixin
    SimulateOptions options;

    /** The policies this command offers; {@link PolicyRegistry#standard()}. */
    private final PolicyRegistry registry = PolicyRegistry.standard();

    @Override
    public Integer call() {
        refuse(options.validate(registry));
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SimReport report = SimReport.of(options.csv, options.json, options.threads, out);
        Simulation simulation = new Simulation(registry, options.policyNames(registry), report,
                new Progress(err, options.progressInterval), options.threads);
        if (options.pollution != null) {
            PollutionTrace.Distribution d = PollutionTrace.Distribution.byName(options.pollution);
            Trace trace = PollutionTrace.generate(d, (int) options.accesses,
                    options.goodKeySpace(), options.seed);
            String problem = check(trace, List.of(options.capacity));
            if (problem != null) {
                return fail("-pollution: " + problem);
            }
            simulation.run(trace, List.of(options.capacity), false);
            return 0;
        }
        for (Path file : options.traces) {
            String problem = replay(file, simulation);
            if (problem != null) {
                return fail("-trace " + problem);
            }
        }
        return 0;
    }

    /**
     * Reads the trace {@code file} and replays it at every capacity through every policy;
     * returns null, or why it could not, starting with the file's name. Everything about the
     * trace is checked before its first result is printed.
     */
    private String replay(Path file, Simulation simulation) {
        Trace trace;
        try {
            trace = TraceReader.read(file, options.traceFormat(), options.maxAccesses());
        } catch (IOException | UncheckedIOException e) {
            return readFailure(file, e);
        }
        String problem = check(trace, options.capacities);
        if (problem != null) {
            return file + ": " + problem;
        }
        try {
            simulation.run(trace, options.capacities, options.bytes);
        } catch (OutOfMemoryError e) {
            // the policy being replayed holds the memory, and is dropped with its frame
            return file + ": out of Java heap replaying its " + trace.length() + " accesses ("
                    + Failures.maxHeap() + "): lower -max_accesses, leave opt (13 bytes an"
                    + " access) out of -policies, or " + Failures.raiseHeap();
        }
        return null;
    }

    /** What went wrong reading {@code file}, starting with its name. */
    private static String readFailure(Path file, Exception e) {
        String message = e.getMessage();
        if (message != null && message.startsWith(file + ":")) {
            return message; // the reader's own, which names the file and the place
        }
        if (e instanceof NoSuchFileException) {
            return file + ": no such file";
        }
        if (e instanceof AccessDeniedException) {
            return file + ": not readable (permission denied)";
        }
        return file + ": cannot read it (" + (message == null ? e.getClass().getSimpleName()
                : message) + ")";
    }

    /** Why {@code trace} cannot be replayed at {@code capacities} as the flags ask, or null. */
    private String check(Trace trace, List<Long> capacities) {
        String capacityFlag = options.pollution != null ? "-capacity" : "-capacities";
        if (trace.length() == 0) {
            return "holds no accesses";
        }
        if (options.bytes && !trace.hasSizes()) {
            return "-bytes needs sizes, and this trace has none (only -format=csv traces do)";
        }
        for (long capacity : capacities) {
            for (String policy : options.policyNames(registry)) {
                String refusal = registry.factory(policy).check(trace, capacity, options.bytes);
                if (refusal != null) {
                    return capacityFlag + "=" + capacity + (options.bytes ? " (bytes)" : "")
                            + ": " + policy + " cannot be built for it: " + refusal
                            + " (give another capacity, or leave " + policy + " out of"
                            + " -policies)";
                }
            }
        }
        return null;
    }

    /** Prints {@code problem} as this command's one-line usage error; returns its exit code. */
    private int fail(String problem) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName() + ": " + Printable.safe(Failures.oneLine(problem)));
        err.flush();
        return ExitCodes.USAGE;
    }
}
