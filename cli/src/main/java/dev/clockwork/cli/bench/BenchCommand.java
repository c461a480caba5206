package dev.clockwork.cli.bench;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code clockwork bench}: RocksDB cache_bench's workload and report, same flags. */
@Command(name = "bench",
        header = "Stress a cache like RocksDB's cache_bench (same flags and report).",
        sortOptions = false,
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
            "Flags are gflags-style: -flag=value or -flag value; --flag works too. Booleans:"
                    + " -flag, -noflag, -flag=true|false|1|0.",
            ""
        },
        optionListHeading = "Flags:%n")
public final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    BenchOptions options;

    @Option(names = {"-help", "--help", "-h"}, usageHelp = true, order = 100,
            description = "Print this list of flags and exit.")
    boolean help;

    @Override
    public Integer call() {
        String problem = options.validate();
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();

        long seed = options.seed;
        if (seed == 0) {
            seed = ProcessHandle.current().pid() & 0xFFFF_FFFFL; // cache_bench: (uint32_t) pid
            out.printf("Using seed = %d%n", seed);
        }
        Cache cache;
        try {
            if (options.jitWarmupOps > 0) {
                int rc = warmUp(seed, out, err);
                if (rc != 0) {
                    return rc;
                }
            }
            cache = CacheFactory.create(options.cacheSettings(seed));
        } catch (IllegalArgumentException e) {
            err.println(spec.qualifiedName() + ": cannot create the cache: " + e.getMessage());
            return 1;
        }
        return new CacheBench(options, seed, cache, out, err).execute();
    }

    /**
     * Runs the same workload on a throwaway cache so that the timed run measures JIT-compiled
     * code. The warm-up cache is closed (its memory returned) before the measured one is made.
     */
    private int warmUp(long seed, PrintWriter out, PrintWriter err) {
        BenchOptions w = options.forWarmup();
        long start = System.nanoTime();
        PrintWriter quiet = new PrintWriter(java.io.Writer.nullWriter());
        long warmupSeed = seed ^ 0x5BD1_E995L;
        int rc = new CacheBench(w, warmupSeed, CacheFactory.create(w.cacheSettings(warmupSeed)),
                quiet, err).execute();
        out.printf("JIT warm-up: %d ops on a separate %s cache, %.1f s%n",
                w.opsPerThread * w.threads, CFormat.bytesToHuman(w.cacheSize),
                (System.nanoTime() - start) / 1e9);
        return rc;
    }
}
