package dev.clockwork.cli.bench;

import java.io.PrintWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.Main;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.workload.LatencyStats;
import dev.clockwork.cli.workload.ProcessStats;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.NativeMemory;
import dev.clockwork.offheap.TableReport;

/**
 * What {@code clockwork bench} prints: cache_bench's header and report, in its words and
 * order, then the Clockwork additions; and the run's {@link BenchResult} for {@code -json} and
 * {@code -compare}. Everything goes to the report's stream, the table diagnostics too (cache_bench
 * logs those to standard error; here they belong to the report, so that a run alone and the runs
 * of {@code -compare} print them alike); the error stream gets only the verification failure
 * count.
 */
final class BenchReport {
    private final BenchOptions o;
    private final long seed;
    private final Cache cache;
    private final PrintWriter out;
    private final PrintWriter err;
    /** With -gather_stats: the walking thread's findings; else null. */
    private final StatsGatherer gatherer;
    private BenchResult result;

    BenchReport(BenchOptions options, long seed, Cache cache, StatsGatherer gatherer,
                PrintWriter out, PrintWriter err) {
        this.o = options;
        this.seed = seed;
        this.cache = cache;
        this.gatherer = gatherer;
        this.out = out;
        this.err = err;
    }

    /** The run's headline figures, once {@link #report} has printed them; else null. */
    BenchResult result() {
        return result;
    }

    /**
     * cache_bench's report of the timed run, then the Clockwork additions (RSS, heap, native
     * memory before and after close); closes the cache. Returns the exit code.
     *
     * @param populateVerifyFailures failed value checks while populating
     */
    int report(BenchWorker[] workers, long elapsedNanos, long populateVerifyFailures) {
        BenchTotals t = BenchTotals.of(workers, populateVerifyFailures);
        double totalOps = t.ops();
        boolean partial = t.ops() < workers.length * o.opsPerThread;
        double elapsedSecs = elapsedNanos * 1e-9;
        if (partial) {
            out.printf("Partial run: stopped early after %d of %d ops; the figures below cover"
                    + " those.%n", t.ops(), workers.length * o.opsPerThread);
        }
        out.printf(Locale.ROOT, "Complete in %.3f s; Rough parallel ops/sec = %d%n", elapsedSecs,
                (long) (totalOps / elapsedSecs));
        if (t.unlucky()) {
            out.println("You are extremely unlucky(2). Try again.");
            return 1;
        }
        out.printf("Thread ops/sec = %d%n", (long) (totalOps / t.threadSecs()));
        out.printf("Lookup hit ratio: %s%n", CFormat.g(1.0 * t.hits() / t.lookups()));
        long entriesAtEnd = cache.entryCount();
        long nativeAtEnd = NativeMemory.outstandingBytes();
        OptionalLong slots = CacheFactory.tableSlots(cache);
        long finalOccupancy = cache.entryCount();
        if (slots.isPresent()) {
            out.printf("Final load factor: %s (%d / %d)%n",
                    CFormat.g(1.0 * finalOccupancy / slots.getAsLong()), finalOccupancy,
                    slots.getAsLong());
        }
        out.printf("Final pinned count: %d%n", t.pinned());
        if (t.refused() > 0) {
            out.printf("Refused inserts: %d%n", t.refused());
        }
        if (o.verifyValues) {
            out.printf("Value verification failures: %d%n", t.verifyFailures());
        }
        List<OpLatency> opLatency = latency(workers);
        diagnostics();
        BenchResult.TableStats table = new BenchResult.TableStats(
                slots.isPresent() ? finalOccupancy : -1, slots.orElse(-1),
                cache instanceof HyperClockCache ? cache.stats().evictionEffortExceeded() : -1,
                t.pinned());
        result = clockworkAdditions(new BenchResult(o.cacheType, workers.length, o.opsPerThread,
                elapsedSecs, (long) (totalOps / elapsedSecs), (long) (totalOps / t.threadSecs()),
                t.lookups() == 0 ? 0.0 : 1.0 * t.hits() / t.lookups(), entriesAtEnd, nativeAtEnd,
                -1, -1, opLatency, flags(), table,
                gatherer == null ? null : OpLatency.of(BenchResult.GATHER_STATS, gatherer.micros),
                partial));
        if (t.verifyFailures() > 0) {
            err.printf("clockwork bench: %d values failed verification (wrong key, size or"
                    + " checksum)%n", t.verifyFailures());
            err.flush();
            return BenchRun.EXIT_VERIFY_FAILED;
        }
        return 0;
    }

    /** Every flag's value, the seed the effective one (0 means the pid). */
    private Map<String, String> flags() {
        Map<String, String> flags = o.flagValues();
        flags.put("seed", Long.toString(seed));
        return flags;
    }

    /** With -histograms: cache_bench's combined histogram, then Clockwork's table by kind. */
    private List<OpLatency> latency(BenchWorker[] workers) {
        if (!o.histograms) {
            return List.of();
        }
        out.printf("%nOperation latency (ns):%n");
        LatencyStats combined = new LatencyStats();
        List<LatencyStats[]> perWorker = new ArrayList<>();
        for (BenchWorker w : workers) {
            perWorker.add(w.latency);
            for (LatencyStats kind : w.latency) {
                combined.add(kind);
            }
        }
        out.print(combined.format());
        List<OpLatency> opLatency = OpLatency.merged(perWorker);
        out.printf("%nLatency by operation (ns; Clockwork):%n");
        out.print(OpLatency.table(opLatency));
        if (gatherer != null) {
            out.printf("%nGather stats latency (us):%n");
            out.print(gatherer.micros.format());
        }
        return opLatency;
    }

    /** With -report_problems the cache's own diagnostics; with -gather_stats the last walk. */
    private void diagnostics() {
        if (o.reportProblems && cache instanceof HyperClockCache hcc) {
            reportProblems(hcc);
        }
        if (o.reportProblems && cache instanceof LruCache lru) {
            reportPools(lru);
        }
        if (gatherer != null) {
            out.print(gatherer.mostRecent());
        }
    }

    /**
     * Prints the Clockwork additions, fills the result's process figures, closes the cache and
     * prints the native memory left after close.
     */
    private BenchResult clockworkAdditions(BenchResult r) {
        out.println();
        OptionalLong rss = ProcessStats.peakRssBytes();
        out.printf("Max RSS: %s%n",
                rss.isPresent() ? ProcessStats.mib(rss.getAsLong()) + " MiB" : "n/a");
        long heapUsed = ProcessStats.heapUsedAfterGc();
        out.printf("Heap used after GC: %s MiB%n", ProcessStats.mib(heapUsed));
        out.printf("Native memory in use: %s MiB%n",
                ProcessStats.mib(NativeMemory.outstandingBytes()));
        cache.close();
        out.printf("Native memory after close: %d bytes%n", NativeMemory.outstandingBytes());
        out.flush();
        return new BenchResult(r.cacheType(), r.threads(), r.opsPerThread(), r.elapsedSecs(),
                r.parallelOpsPerSec(), r.threadOpsPerSec(), r.hitRatio(), r.entries(),
                r.nativeBytes(), rss.orElse(-1), heapUsed, r.latency(), r.flags(), r.table(),
                r.gatherStats(), r.partial());
    }

    /** cache_bench's {@code ReportProblems} at debug level: a blank line, then the diagnostics. */
    private void reportProblems(HyperClockCache hcc) {
        out.println();
        TableReport table = hcc.tableReport();
        out.println("Slot occupancy stats: " + table.occupancySummary());
        out.println("Eviction effort exceeded: " + table.evictionEffortExceeded());
        if (hcc instanceof FixedHyperClockCache fixed) {
            String advice = fixed.entryChargeRecommendation();
            if (advice != null) {
                out.println(advice);
            }
        }
        if (hcc instanceof AutoHyperClockCache auto) {
            out.println(auto.chainReport().summary());
            out.printf("Table reservation: %s MiB (resident only as used)%n",
                    ProcessStats.mib(auto.reservedBytes()));
        }
        out.flush();
    }

    /** LRU diagnostics: usage by pool, and what the index and records take. */
    private void reportPools(LruCache lru) {
        out.println();
        LruCache.PoolUsage pools = lru.poolUsage();
        out.printf("Pool usage: high %s MiB, low %s MiB, bottom %s MiB, pinned %s MiB%n",
                ProcessStats.mib(pools.high()), ProcessStats.mib(pools.low()),
                ProcessStats.mib(pools.bottom()), ProcessStats.mib(pools.pinned()));
        long entries = lru.entryCount();
        long meta = lru.metadataBytes();
        out.printf("Entries: %d, index and records: %s MiB (%.1f bytes per entry)%n", entries,
                ProcessStats.mib(meta), entries == 0 ? 0.0 : (double) meta / entries);
        out.flush();
    }

    /** cache_bench's header: the settings of the run, between two lines of dashes. */
    void header() {
        String line = "----------------------------";
        out.println(line);
        out.printf("Clockwork version   : %s%n", Main.version());
        out.printf("Cache impl name     : %s%n", CacheFactory.implName(cache));
        out.printf("Java runtime        : %s (%s)%n", Runtime.version(),
                System.getProperty("java.vendor"));
        out.printf("Garbage collector   : %s%n", gcNames());
        out.printf("Number of threads   : %d%n", o.threads);
        out.printf("Ops per thread      : %d%n", o.opsPerThread);
        out.printf("Cache size          : %s%n", CFormat.bytesToHuman(o.cacheSize));
        out.printf("Num shard bits      : %d%s%n", o.numShardBits,
                o.numShardBits < 0 ? " (auto)" : "");
        out.printf("Max key             : %d%n", o.maxKey());
        out.printf("Resident ratio      : %s%n", CFormat.g(o.residentRatio));
        out.printf("Skew degree         : %d%n", o.skew);
        out.printf("Populate cache      : %d%n", o.populateCache ? 1 : 0);
        out.printf("Lookup+Insert pct   : %d%%%n", o.lookupInsertPercent);
        out.printf("Insert percentage   : %d%%%n", o.insertPercent);
        out.printf("Blind insert pct    : %d%%%n", o.blindInsertPercent);
        out.printf("Lookup percentage   : %d%%%n", o.lookupPercent);
        out.printf("Erase percentage    : %d%%%n", o.erasePercent);
        out.printf("Gather stats        : %s%n", o.gatherStats
                ? "enabled (" + o.gatherStatsSleepMs + "ms, " + o.gatherStatsEntriesPerLock
                        + "/lock)" : "disabled");
        out.printf("Value bytes         : %d%n", o.valueBytes);
        out.printf("Pinned ratio        : %s%n", CFormat.g(o.pinnedRatio));
        out.printf("Lean                : %d%n", o.lean ? 1 : 0);
        if (cache instanceof LruCache) {
            out.printf("High pri pool ratio : %s%n", CFormat.g(o.highPriPoolRatio));
            out.printf("Low pri pool ratio  : %s%n", CFormat.g(o.lowPriPoolRatio));
        }
        if (o.degenerateHashBits != 0) {
            out.printf("Degenerate hash bits: %d%n", o.degenerateHashBits);
        }
        if (o.verifyValues) {
            out.printf("Verify values       : 1%n");
        }
        out.println(line);
    }

    private static String gcNames() {
        List<String> names = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            names.add(gc.getName());
        }
        return names.isEmpty() ? "n/a" : String.join(", ", names);
    }
}
