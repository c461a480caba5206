package dev.clockwork.cli.simulate;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

import dev.clockwork.cli.common.ExitCodes;
import dev.clockwork.cli.common.FlagCommand;
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
                    + " [-policies <list>] [-csv | -json]",
            "       clockwork simulate -pollution uniform|zipf -capacity <n> [-accesses <n>]"
                    + " [-seed <n>] [-policies <list>] [-csv | -json]"
        },
        description = {
            "",
            "Replays each trace one access at a time against each policy (look up; on a miss,"
                    + " insert) at each capacity, single-threaded, and prints the hit ratio per"
                    + " (trace, capacity, policy). Policies: lru (reference LRU), opt (Belady's"
                    + " MIN), caffeine (W-TinyLFU), and Clockwork's lru_cache,"
                    + " fixed_hyper_clock_cache and auto_hyper_clock_cache (one shard, default"
                    + " settings).",
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
        SimReport report = SimReport.of(options.csv, options.json, out);
        Simulation simulation = new Simulation(registry, options.policyNames(registry), report,
                new Progress(err, options.progressInterval));
        if (options.pollution != null) {
            PollutionTrace.Distribution d = PollutionTrace.Distribution.byName(options.pollution);
            Trace trace = PollutionTrace.generate(d, (int) options.accesses,
                    options.goodKeySpace(), options.seed);
            simulation.run(trace, List.of(options.capacity), false);
            return 0;
        }
        for (Path file : options.traces) {
            Trace trace;
            try {
                trace = TraceReader.read(file, options.traceFormat());
            } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
                err.println(spec.qualifiedName() + ": cannot read trace " + file + ": "
                        + e.getMessage());
                return ExitCodes.ERROR;
            }
            if (options.bytes && !trace.hasSizes()) {
                err.println(spec.qualifiedName() + ": -bytes needs sizes, and trace " + file
                        + " has none (only -format=csv traces do)");
                return ExitCodes.ERROR;
            }
            simulation.run(trace, options.capacities, options.bytes);
        }
        return 0;
    }
}
