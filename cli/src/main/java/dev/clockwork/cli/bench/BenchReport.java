package dev.clockwork.cli.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.caches.BenchTarget;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.common.Program;
import dev.clockwork.cli.workload.Hiccups;
import dev.clockwork.cli.workload.JvmBill;
import dev.clockwork.cli.workload.LatencyStats;
import dev.clockwork.cli.workload.ProcessStats;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.NativeMemory;
import dev.clockwork.offheap.TableReport;
import java.io.PrintWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

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
    private final BenchTarget target;
    /** The Clockwork cache behind the target, for its own diagnostics; null for a peer. */
    private final Cache cache;
    private final PrintWriter out;
    private final PrintWriter err;
    /** With -gather_stats: the walking thread's findings; else null. */
    private final StatsGatherer gatherer;
    private BenchResult result;

    BenchReport(BenchOptions options, long seed, BenchTarget target, StatsGatherer gatherer,
                PrintWriter out, PrintWriter err) {
        this.o = options;
        this.seed = seed;
        this.target = target;
        this.cache = target.clockwork();
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
     * @param bill what the JVM spent during the timed phase
     * @param stalls the platform's stalls during the timed phase
     * @param rssAtEnd the resident set at the end of the timed phase, or -1
     */
    int report(BenchWorker[] workers, long elapsedNanos, long populateVerifyFailures,
               JvmBill.Bill bill, Hiccups.Seen stalls, long rssAtEnd) {
        BenchTotals t = BenchTotals.of(workers, populateVerifyFailures);
        double totalOps = t.ops();
        boolean stopped = false;
        for (BenchWorker w : workers) {
            stopped |= w.stopped;
        }
        boolean partial = stopped || o.duration == 0 && t.ops() < workers.length * o.opsPerThread;
        double elapsedSecs = elapsedNanos * 1e-9;
        if (partial) {
            out.printf("Partial run: stopped early after %d%s ops; the figures below cover"
                    + " those.%n", t.ops(), o.duration > 0 ? ""
                    : " of " + workers.length * o.opsPerThread);
        }
        out.printf(Locale.ROOT, "Complete in %.3f s; Rough parallel ops/sec = %d%n", elapsedSecs,
                (long) (totalOps / elapsedSecs));
        if (t.unlucky()) {
            out.println("You are extremely unlucky(2). Try again.");
            return 1;
        }
        out.printf("Thread ops/sec = %d%n", (long) (totalOps / t.threadSecs()));
        out.printf("Lookup hit ratio: %s%n", CFormat.g(1.0 * t.hits() / t.lookups()));
        long entriesAtEnd = target.entryCount();
        long nativeAtEnd = NativeMemory.outstandingBytes();
        OptionalLong slots = cache == null ? OptionalLong.empty() : CacheFactory.tableSlots(cache);
        long finalOccupancy = entriesAtEnd;
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
        OpLatency allOps = allOps(workers);
        diagnostics();
        out.println();
        out.print(bill.describe(t.ops()));
        out.print(stalls.describe());
        BenchResult.TableStats table = new BenchResult.TableStats(
                slots.isPresent() ? finalOccupancy : -1, slots.orElse(-1),
                cache instanceof HyperClockCache ? cache.stats().evictionEffortExceeded() : -1,
                t.pinned());
        result = clockworkAdditions(new BenchResult(o.cache.cacheType, workers.length,
                o.duration > 0 ? t.ops() / workers.length : o.opsPerThread,
                elapsedSecs, (long) (totalOps / elapsedSecs), (long) (totalOps / t.threadSecs()),
                t.lookups() == 0 ? 0.0 : 1.0 * t.hits() / t.lookups(), entriesAtEnd, nativeAtEnd,
                -1, -1, opLatency, flags(), table,
                gatherer == null ? null : OpLatency.of(BenchResult.GATHER_STATS, gatherer.micros),
                partial, allOps, bill, stalls, rssAtEnd));
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

    /**
     * With -histograms: every operation of every worker in one histogram, the tail the report's
     * headline quotes (a collector's pause lands in whichever operation it stops); else null.
     */
    private OpLatency allOps(BenchWorker[] workers) {
        if (!o.histograms) {
            return null;
        }
        LatencyStats all = new LatencyStats();
        for (BenchWorker w : workers) {
            for (LatencyStats kind : w.latency) {
                all.add(kind);
            }
        }
        OpLatency l = OpLatency.of(OpLatency.ALL, all);
        out.printf(Locale.ROOT, "%nAll operations (ns): P50 %d  P99 %d  P99.9 %d  P99.99 %d"
                + "  Max %d%n", l.p50(), l.p99(), l.p999(), l.p9999(), l.max());
        BenchWorker slowest = workers[0];
        for (BenchWorker w : workers) {
            if (w.slowestNanos > slowest.slowestNanos) {
                slowest = w;
            }
        }
        out.printf(Locale.ROOT, "Slowest operation: %.3f ms, %s by thread %d, %.3f s into the"
                        + " timed run%n", slowest.slowestNanos / 1e6,
                OpLatency.NAMES[slowest.slowestKind], slowest.tid, slowest.slowestAtNanos / 1e9);
        return l;
    }

    /** With -report_problems the cache's own diagnostics; with -gather_stats the last walk. */
    private void diagnostics() {
        if (cache == null) {
            return;
        }
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
        out.printf("RSS at the end of the run: %s%n", r.rssBytes() < 0 ? "n/a"
                : ProcessStats.mib(r.rssBytes()) + " MiB");
        out.printf("Max RSS: %s%n",
                rss.isPresent() ? ProcessStats.mib(rss.getAsLong()) + " MiB" : "n/a");
        long heapUsed = ProcessStats.heapUsedAfterGc();
        out.printf("Heap used after GC: %s MiB%n", ProcessStats.mib(heapUsed));
        out.printf("Native memory in use: %s MiB%n",
                ProcessStats.mib(NativeMemory.outstandingBytes()));
        target.close();
        out.printf("Native memory after close: %d bytes%n", NativeMemory.outstandingBytes());
        out.flush();
        return new BenchResult(r.cacheType(), r.threads(), r.opsPerThread(), r.elapsedSecs(),
                r.parallelOpsPerSec(), r.threadOpsPerSec(), r.hitRatio(), r.entries(),
                r.nativeBytes(), rss.orElse(-1), heapUsed, r.latency(), r.flags(), r.table(),
                r.gatherStats(), r.partial(), r.allOps(), r.bill(), r.stalls(), r.rssBytes());
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
        out.printf("Clockwork version   : %s%n", Program.version());
        out.printf("Cache impl name     : %s%n", target.implName());
        out.printf("Java runtime        : %s (%s)%n", Runtime.version(),
                System.getProperty("java.vendor"));
        out.printf("Garbage collector   : %s%n", gcNames());
        out.printf("Max heap            : %s MiB%n",
                ProcessStats.mib(Runtime.getRuntime().maxMemory()));
        out.printf("Number of threads   : %d%n", o.workload.threads);
        out.printf("Ops per thread      : %d%n", o.opsPerThread);
        out.printf("Cache size          : %s%n", CFormat.bytesToHuman(o.cache.cacheSize));
        out.printf("Num shard bits      : %d%s%n", o.cache.numShardBits,
                o.cache.numShardBits < 0 ? " (auto)" : "");
        out.printf("Max key             : %d%n", o.maxKey());
        out.printf("Resident ratio      : %s%n", CFormat.g(o.workload.residentRatio));
        out.printf("Skew degree         : %d%n", o.workload.skew);
        out.printf("Populate cache      : %d%n", o.workload.populateCache ? 1 : 0);
        out.printf("Lookup+Insert pct   : %d%%%n", o.mix.lookupInsertPercent);
        out.printf("Insert percentage   : %d%%%n", o.mix.insertPercent);
        out.printf("Blind insert pct    : %d%%%n", o.mix.blindInsertPercent);
        out.printf("Lookup percentage   : %d%%%n", o.mix.lookupPercent);
        out.printf("Erase percentage    : %d%%%n", o.mix.erasePercent);
        out.printf("Gather stats        : %s%n", o.gatherStats
                ? "enabled (" + o.gatherStatsSleepMs + "ms, " + o.gatherStatsEntriesPerLock
                        + "/lock)" : "disabled");
        if (o.valueBytesMix != null && !o.valueBytesMix.isEmpty()) {
            out.printf("Value bytes         : mix of %s (mean %d)%n",
                    o.valueBytesMix.stream().map(String::valueOf)
                            .collect(Collectors.joining(", ")), o.valueBytes);
        } else {
            out.printf("Value bytes         : %d%n", o.valueBytes);
        }
        if (o.scanPercent > 0) {
            out.printf("Scan percentage     : %d%% (scans of %d keys)%n", o.scanPercent,
                    o.scanLength);
        }
        if (o.duration > 0) {
            out.printf("Duration            : %s s%n", CFormat.g(o.duration));
        }
        if (o.fileKeys > 0) {
            out.printf("File keys           : %d blocks per file%n", o.fileKeys);
        }
        if (target.clockwork() != null) {
            out.printf("Admission           : %s%n", o.admission);
        }
        out.printf("Pinned ratio        : %s%n", CFormat.g(o.workload.pinnedRatio));
        out.printf("Lean                : %d%n", o.lean ? 1 : 0);
        if (cache instanceof LruCache) {
            out.printf("High pri pool ratio : %s%n", CFormat.g(o.cache.highPriPoolRatio));
            out.printf("Low pri pool ratio  : %s%n", CFormat.g(o.cache.lowPriPoolRatio));
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
