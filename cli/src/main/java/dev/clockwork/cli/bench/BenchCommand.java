package dev.clockwork.cli.bench;

import dev.clockwork.cli.GFlags;
import dev.clockwork.cli.caches.BenchTarget;
import dev.clockwork.cli.caches.Targets;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.common.FlagCommand;
import dev.clockwork.cli.common.Json;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.cli.keys.StressCacheKey;
import dev.clockwork.cli.keys.StressCacheKeyOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code clockwork bench}: RocksDB cache_bench's workload and report, same flags. */
@Command(name = "bench",
        header = "Stress a cache like RocksDB's cache_bench (same flags and report).",
        sortOptions = false,
        modelTransformer = BenchFlagLayout.class,
        usageHelpWidth = 100,
        headerHeading = "",
        synopsisHeading = "%nUsage: ",
        customSynopsis = "clockwork bench [-flag=value ...]",
        description = {
            "",
            "Multi-threaded cache stress test shaped like RocksDB's cache_bench: the same flags,"
                    + " defaults, key and value generation, operation mix, pinning and report, so"
                    + " the two tools can be run side by side with the same command line.",
            "",
            "What a run with the defaults takes: a JIT warm-up of 400,000 operations on a"
                    + " 64 MiB cache, then the 1 GiB cache filled with 8 KiB values, then 16"
                    + " threads doing 2,000,000 operations each (32 million in all): about 1 to 2"
                    + " minutes on 2 cores, and about 1.2 GiB of resident memory (the cache and"
                    + " the JVM). -threads and -ops_per_thread set the time, -cache_size the"
                    + " memory; e.g. -threads=2 -ops_per_thread=200000 -cache_size=268435456 takes"
                    + " seconds and about 350 MiB.",
            "",
            "Flags are gflags-style: -flag=value or -flag value; --flag works too. Booleans:"
                    + " -flag, -noflag, -flag=true|false|1|0.",
            ""
        },
        optionListHeading = "Flags:%n")
public final class BenchCommand extends FlagCommand {

    @Mixin
    BenchOptions options;

    @Mixin
    StressCacheKeyOptions stressCacheKey;

    /**
     * For -compare's child runs: with -json, the human report goes to standard output, before
     * the JSON line, instead of to standard error, so that the parent can tell the report (its
     * own standard output) from the progress lines (its standard error).
     */
    @Option(names = "-report_on_stdout", hidden = true, arity = "0..1", defaultValue = "false",
            fallbackValue = "true", converter = GFlags.Bool.class)
    boolean reportOnStdout;

    @Override
    public Integer call() {
        if (stressCacheKey.stressCacheKey) {
            return stressCacheKey();
        }
        var parsed = spec.commandLine().getParseResult();
        refuse(BenchPreset.resolve(options, parsed::hasMatchedOption));
        refuse(RestartExperiment.problem(options));
        refuse(options.validate());
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter out = options.json && !reportOnStdout ? err : stdout; // the human report

        long seed = seedOrPid(options.workload.seed);
        if (options.workload.seed == 0) {
            out.printf("Using seed = %d%n", seed); // as cache_bench prints it
        }
        try (RunStop stop = RunStop.onSignal(spec.qualifiedName(), err)) {
            if (options.restart) {
                return restart(seed, stop, out, err);
            }
            if (options.compare == null || options.compare.isEmpty()) {
                return single(seed, stop, stdout, out, err);
            }
            return compare(seed, stop, stdout, out, err);
        }
    }

    /** One run of -cache_type; with -json its line on standard output. */
    private int single(long seed, RunStop stop, PrintWriter stdout, PrintWriter out,
                       PrintWriter err) {
        List<BenchResult> results = new ArrayList<>();
        int rc = runOne(seed, stop, out, err, results);
        if (rc == 0 && options.json && !results.isEmpty()) {
            stdout.println(results.get(0).toJson());
            stdout.flush();
        }
        return rc;
    }

    /**
     * -compare: each type in a JVM of its own, then the table. A stop ends the running child
     * (which reports what it did) and skips the types after it.
     */
    private int compare(long seed, RunStop stop, PrintWriter stdout, PrintWriter out,
                        PrintWriter err) {
        List<BenchResult> results = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (String entry : options.compare) {
            if (stop.requested()) {
                break;
            }
            Targets.CompareEntry e = Targets.CompareEntry.parse(entry);
            List<String> jvm = e.jvmOptions(options.cache.cacheSize);
            out.printf("%n=== -cache_type=%s (a JVM of its own: %s) ===%n", e.type(),
                    String.join(" ", jvm));
            out.flush();
            BenchResult result;
            try {
                result = ForkedRun.run(jvm, childArgs(e.type(), seed), stop, out, err);
            } catch (IOException | InterruptedException | IllegalStateException ex) {
                err.println(spec.qualifiedName() + ": the run of " + entry + " failed: " + ex);
                return 1;
            }
            results.add(result);
            labels.add(e.toString());
            if (options.json) {
                stdout.println(result.toJson());
                stdout.flush();
            }
        }
        CompareTable.print(results, labels, out);
        return 0;
    }

    /**
     * This command's arguments for one type of a comparison: everything the user gave but
     * -compare, -cache_type, -seed and -json, then that type, the resolved seed, -json and
     * -report_on_stdout.
     */
    private List<String> childArgs(String type, long seed) {
        List<String> args = new ArrayList<>();
        args.add("bench");
        List<String> given = spec.commandLine().getParseResult().originalArgs();
        // The original arguments start with the subcommand's name itself.
        for (int i = given.isEmpty() || !given.get(0).equals("bench") ? 0 : 1; i < given.size();
                i++) {
            String arg = given.get(i);
            String name = arg.replaceFirst("^--?", "").replaceFirst("=.*", "");
            if (Set.of("compare", "cache_type", "seed", "json",
                    "report_on_stdout").contains(name)) {
                boolean valueFollows = !arg.contains("=") && !name.equals("json")
                        && i + 1 < given.size();
                if (valueFollows) {
                    i++;
                }
                continue;
            }
            args.add(arg);
        }
        args.add("-cache_type=" + type);
        args.add("-seed=" + seed);
        args.add("-json");
        args.add("-report_on_stdout");
        return args;
    }

    /**
     * {@code -stress_cache_key}: the key-collision simulator instead of the cache workload; its
     * lines on standard output (standard error with -json, which then gets the JSON line).
     */
    private int stressCacheKey() {
        refuse(options.progressIntervalProblem());
        refuse(stressCacheKey.validate(StressCacheKey.concurrentRuns(options.workload.threads),
                Runtime.getRuntime().maxMemory()));
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter out = options.json ? err : stdout;
        long seed = seedOrPid(options.workload.seed);
        if (options.workload.seed == 0) {
            out.printf("Using seed = %d%n", seed);
        }
        try {
            var result = new StressCacheKey(stressCacheKey, seed, options.workload.threads,
                    options.progressInterval, out, err).run();
            if (options.json) {
                stdout.println(Json.line(result));
                stdout.flush();
            }
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** One run of -cache_type (after a JIT warm-up if asked); adds its figures to results. */
    private int runOne(long seed, RunStop stop, PrintWriter out, PrintWriter err,
                       List<BenchResult> results) {
        BenchTarget target;
        try {
            if (options.jitWarmupOps > 0) {
                int rc = warmUp(seed, stop, out, err);
                if (rc != 0) {
                    return rc;
                }
                if (stop.requested()) {
                    out.println("Stopped during the JIT warm-up: the timed run did not start.");
                    out.flush();
                    return 0;
                }
            }
            target = Targets.create(options.cacheSettings(seed));
        } catch (IllegalArgumentException e) {
            err.println(spec.qualifiedName() + ": cannot create the cache: " + e.getMessage());
            return 1;
        }
        BenchRun bench = new BenchRun(options, seed, target, stop, out, err);
        int rc = bench.execute();
        if (results != null && bench.result() != null) {
            results.add(bench.result());
        }
        return rc;
    }

    /** {@code -restart}: the JIT warm-up if asked, then {@link RestartExperiment}. */
    private int restart(long seed, RunStop stop, PrintWriter out, PrintWriter err) {
        if (options.jitWarmupOps > 0) {
            int rc = warmUp(seed, stop, out, err);
            if (rc != 0 || stop.requested()) {
                return rc;
            }
        }
        return new RestartExperiment(options, seed, stop, out, err).run();
    }

    /**
     * Runs the same workload on a throwaway cache so that the timed run measures JIT-compiled
     * code. The warm-up cache is closed (its memory returned) before the measured one is made.
     */
    private int warmUp(long seed, RunStop stop, PrintWriter out, PrintWriter err) {
        BenchOptions w = options.forWarmup();
        long start = System.nanoTime();
        PrintWriter quiet = new PrintWriter(Writer.nullWriter());
        long warmupSeed = seed ^ 0x5BD1_E995L;
        int rc = new BenchRun(w, warmupSeed, Targets.create(w.cacheSettings(warmupSeed)),
                stop, quiet, err).asWarmup().execute();
        out.printf("JIT warm-up: %d ops on a separate %s cache, %.1f s%n",
                w.opsPerThread * w.workload.threads, CFormat.bytesToHuman(w.cache.cacheSize),
                (System.nanoTime() - start) / 1e9);
        return rc;
    }
}
