package dev.clockwork.cli.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.caches.BenchTarget;
import dev.clockwork.cli.caches.Targets;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.common.ExitCodes;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.offheap.DumpSummary;
import dev.clockwork.offheap.EngineCache;
import dev.clockwork.offheap.LoadSummary;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code bench -restart}: what a dump and load of the cache buy a restart. Three runs of the
 * bench workload, each with its own report:
 * <ol>
 *   <li>warm: the workload as flagged (population, then -duration or -ops_per_thread), on a
 *     cache kept open at the end (its report's "after close" line still counts it), which is
 *     then dumped to a file ({@link EngineCache#dump}) and closed;</li>
 *   <li>restart, loaded: a new cache, the dump loaded into it ({@link EngineCache#load}), then
 *     the workload for -restart_seconds, without population;</li>
 *   <li>restart, cold: the same on a new empty cache.</li>
 * </ol>
 * Both restarts run the same operation stream (one seed, other than the warm run's, so the
 * restart does not replay what warmed the cache), so their hit ratios differ only by the load.
 * The summary at the end gives both, with the dump's and the load's times and rates.
 */
final class RestartExperiment {
    private final BenchOptions o;
    private final long seed;
    private final RunStop stop;
    private final PrintWriter out;
    private final PrintWriter err;

    RestartExperiment(BenchOptions options, long seed, RunStop stop, PrintWriter out,
                      PrintWriter err) {
        this.o = options;
        this.seed = seed;
        this.stop = stop;
        this.out = out;
        this.err = err;
    }

    /** Why the flags cannot run the experiment, or null. */
    static String problem(BenchOptions o) {
        if (!o.restart) {
            return null;
        }
        if (Targets.isPeer(o.cache.cacheType)) {
            return "-restart dumps and loads a Clockwork cache: -cache_type " + o.cache.cacheType
                    + " has no dump";
        }
        if (!(o.restartSeconds > 0 && o.restartSeconds <= 365 * 86400.0)) {
            return "-restart_seconds must be in (0, a year], was " + o.restartSeconds;
        }
        if (o.compare != null && !o.compare.isEmpty()) {
            return "-restart and -compare: give one (run -restart once per -cache_type)";
        }
        if (o.earlyExit) {
            return "-restart and -early_exit: the experiment needs the warm run to finish";
        }
        return null;
    }

    int run() {
        Path dump = null;
        boolean temporary = o.restartDump.isEmpty();
        try {
            dump = temporary ? Files.createTempFile("clockwork-restart-", ".dump")
                    : Path.of(o.restartDump);
            return runWith(dump);
        } catch (IOException e) {
            err.println("clockwork bench: the restart experiment failed: " + e);
            return ExitCodes.ERROR;
        } finally {
            if (temporary && dump != null) {
                try {
                    Files.deleteIfExists(dump);
                } catch (IOException e) {
                    err.println("clockwork bench: could not delete " + dump + ": " + e);
                }
            }
        }
    }

    private int runWith(Path dump) throws IOException {
        out.printf("%n=== Restart experiment, warm run (%s) ===%n", o.cache.cacheType);
        KeptOpen warm = new KeptOpen(Targets.create(o.cacheSettings(seed)));
        DumpSummary dumped;
        try {
            BenchRun run = new BenchRun(o, seed, warm, stop, out, err);
            int rc = run.execute();
            if (rc != 0 || run.result() == null || stop.requested()) {
                return rc;
            }
            dumped = ((EngineCache) warm.clockwork()).dump(dump);
        } finally {
            warm.target.close();
        }
        BenchOptions after = o.copy();
        after.duration = o.restartSeconds;
        after.workload.populateCache = false;
        long restartSeed = (seed ^ 0x2E57_A47EL) & 0xFFFF_FFFFL;
        restartSeed = restartSeed == 0 ? 1 : restartSeed;
        double[] hit = new double[2];
        LoadSummary loaded = null;
        for (int i = 0; i < 2 && !stop.requested(); i++) {
            boolean load = i == 0;
            out.printf("%n=== Restart experiment, restart %s (%s s) ===%n",
                    load ? "after loading the dump" : "cold", CFormat.g(o.restartSeconds));
            BenchTarget target = Targets.create(after.cacheSettings(restartSeed));
            if (load) {
                try {
                    loaded = ((EngineCache) target.clockwork()).load(dump);
                } catch (IOException | RuntimeException e) {
                    target.close();
                    throw e;
                }
            }
            BenchRun run = new BenchRun(after, restartSeed, target, stop, out, err);
            int rc = run.execute(); // closes the target
            if (rc != 0 || run.result() == null) {
                return rc;
            }
            hit[i] = run.result().hitRatio();
        }
        if (loaded != null && !stop.requested()) {
            summary(dumped, loaded, hit);
        }
        return 0;
    }

    private void summary(DumpSummary d, LoadSummary l, double[] hit) {
        out.printf("%n=== Restart experiment: %s, %d threads, %s cache ===%n", o.cache.cacheType,
                o.workload.threads, CFormat.bytesToHuman(o.cache.cacheSize));
        out.printf(Locale.ROOT, "Dump: %d entries, %s of values, %s file, %.2f s, %.2f GiB/s%n",
                d.entries(), CFormat.bytesToHuman(d.valueBytes()),
                CFormat.bytesToHuman(d.fileBytes()), d.nanos() / 1e9, rate(d.fileBytes(),
                        d.nanos()));
        out.printf(Locale.ROOT, "Load: %d of %d entries inserted (%d refused, %d skipped, cache"
                        + " full), %.2f s, %.2f GiB/s (the file read twice: verified, then"
                        + " inserted)%n", l.inserted(), l.records(), l.refused(), l.skipped(),
                l.nanos() / 1e9, rate(l.fileBytes(), l.nanos()));
        out.printf(Locale.ROOT, "Hit ratio of the first %s s after the restart: %.4f with the"
                + " load, %.4f without%n", CFormat.g(o.restartSeconds), hit[0], hit[1]);
        out.flush();
    }

    private static double rate(long bytes, long nanos) {
        return nanos == 0 ? 0 : bytes / (nanos / 1e9) / (1L << 30);
    }

    /** A target whose close waits for the experiment's own, so the cache can be dumped. */
    private static final class KeptOpen extends BenchTarget {
        final BenchTarget target;

        KeptOpen(BenchTarget target) {
            this.target = target;
        }

        @Override
        public String type() {
            return target.type();
        }

        @Override
        public String implName() {
            return target.implName();
        }

        @Override
        public Cache clockwork() {
            return target.clockwork();
        }

        @Override
        public boolean pins() {
            return target.pins();
        }

        @Override
        public Session session() {
            return target.session();
        }

        @Override
        public long entryCount() {
            return target.entryCount();
        }

        @Override
        public long usage() {
            return target.usage();
        }

        @Override
        public void setCapacity(long capacity) {
            target.setCapacity(capacity);
        }

        @Override
        public void close() {
            // the experiment closes the target itself, after the dump
        }
    }
}
