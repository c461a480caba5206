package dev.clockwork.cli.common;

import dev.clockwork.cli.GFlags;
import dev.clockwork.cli.workload.PinnedFifo;
import picocli.CommandLine.Option;

/**
 * The flags of the workload's shape, shared by {@code bench} and {@code soak} as a picocli
 * mixin: threads, the key space and its skew, how much stays pinned, population and the seed.
 * Declared and checked here once; defaults, help text and help order that differ per command
 * are the command's {@link FlagLayout}'s.
 */
public final class WorkloadFlags {
    @Option(names = "-threads", paramLabel = "<uint32>", converter = GFlags.UInt32.class)
    public long threads;

    @Option(names = "-resident_ratio", paramLabel = "<double>", defaultValue = "0.25",
            converter = GFlags.Double.class)
    public double residentRatio;

    @Option(names = "-skew", paramLabel = "<uint32>", defaultValue = "5",
            converter = GFlags.UInt32.class,
            description = "Key skew: a key is the least of skew+1 uniform draws (0 = uniform; at"
                    + " most 1000). Default: ${DEFAULT-VALUE}.")
    public long skew;

    @Option(names = "-pinned_ratio", paramLabel = "<double>", converter = GFlags.Double.class)
    public double pinnedRatio;

    @Option(names = "-populate_cache", paramLabel = "<bool>", arity = "0..1",
            defaultValue = "true", fallbackValue = "true", converter = GFlags.Bool.class)
    public boolean populateCache;

    @Option(names = "-seed", paramLabel = "<uint32>", defaultValue = "0",
            converter = GFlags.UInt32.class,
            description = "Random seed; 0 = the process id. Default: ${DEFAULT-VALUE}.")
    public long seed;

    /** A copy of every flag's value. */
    public WorkloadFlags copy() {
        WorkloadFlags c = new WorkloadFlags();
        c.threads = threads;
        c.residentRatio = residentRatio;
        c.skew = skew;
        c.pinnedRatio = pinnedRatio;
        c.populateCache = populateCache;
        c.seed = seed;
        return c;
    }

    /**
     * Why -threads cannot be used, or null: none, or more than {@code max}; {@code zeroNote}
     * follows the refusal of none.
     */
    public String threadsProblem(long max, String zeroNote) {
        if (threads <= 0) {
            return "-threads must be > 0" + zeroNote;
        }
        if (threads > max) {
            return "-threads=" + threads + " is more than " + max;
        }
        return null;
    }

    /** Why -resident_ratio or -pinned_ratio cannot be used, or null. */
    public String ratiosProblem() {
        return SizeChecks.residentAndPinnedRatios(residentRatio, pinnedRatio);
    }

    /** Why -skew cannot be used, or null. */
    public String skewProblem() {
        return SizeChecks.skew(skew);
    }

    /** The most handles one thread keeps pinned (the last thread's share) of {@code total}. */
    public long pinsPerThread(long total) {
        return PinnedFifo.pinCountForThread(total, (int) threads - 1, (int) threads);
    }
}
