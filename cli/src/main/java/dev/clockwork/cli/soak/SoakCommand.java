package dev.clockwork.cli.soak;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.common.FlagCommand;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.cli.workload.ProcessStats;
import dev.clockwork.offheap.NativeMemory;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code clockwork soak}: a long, checksum-verified, mixed workload with leak accounting. */
@Command(name = "soak",
        header = "Run a mixed, checksum-verified workload for a while; check for leaks.",
        sortOptions = false,
        modelTransformer = SoakFlagLayout.class,
        usageHelpWidth = 100,
        headerHeading = "",
        synopsisHeading = "%nUsage: ",
        customSynopsis = "clockwork soak [-flag=value ...]",
        description = {
            "",
            "Runs -threads workers against one cache for -duration: lookups (every hit's value"
                    + " checked against its key stamp, size, charge and checksum, then held pinned"
                    + " for a while and checked again before release), insertPinned, insert,"
                    + " erase, ref, release with eraseIfLastRef, byte[] and MemorySegment"
                    + " variants, and the capacity wobbling around -cache_size. Values have mixed"
                    + " sizes.",
            "",
            "Every -report_interval: one line with elapsed seconds, ops/s in the interval, total"
                    + " ops, hit ratio in the interval, check failures so far, RSS (VmRSS),"
                    + " native bytes outstanding, Java heap used, cache usage and capacity, entry"
                    + " count. At the end: a summary that judges the check failures (must be 0),"
                    + " RSS (its maximum after the warm-up must stay within the allowance over"
                    + " the RSS at the end of the warm-up), the pinned usage once all handles are"
                    + " released (must be 0), the cache after erasing every key (no entries, no"
                    + " usage beyond its table's metadata) and the native bytes after close (must"
                    + " be back to the value before the cache was made).",
            "",
            "Exit code: 0 = PASS; 1 = a worker thread failed; 2 = bad flags; 3 = value check"
                    + " failures; 4 = leak accounting failed; 5 = RSS grew beyond the allowance"
                    + " (the first that applies, in this order).",
            "",
            "Flags are gflags-style: -flag=value or -flag value; --flag works too. Booleans:"
                    + " -flag, -noflag, -flag=true|false|1|0.",
            ""
        },
        optionListHeading = "Flags:%n")
public final class SoakCommand extends FlagCommand {

    @Mixin
    SoakOptions options;

    @Override
    public Integer call() {
        refuse(options.validate());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        long seed = seedOrPid(options.workload.seed);
        long nativeBefore = NativeMemory.outstandingBytes();
        long reservedBefore = NativeMemory.reservedBytes();
        options.rssBeforeCache = ProcessStats.rssBytes();
        Cache cache;
        try {
            cache = CacheFactory.create(options.cacheSettings(seed));
        } catch (IllegalArgumentException e) {
            err.println(spec.qualifiedName() + ": cannot create the cache: " + e.getMessage());
            return SoakRun.EXIT_ERROR;
        }
        try (RunStop stop = RunStop.onSignal(spec.qualifiedName(), err)) {
            return new SoakRun(options, seed, cache, nativeBefore, reservedBefore, stop, out, err)
                    .execute();
        }
    }
}
