package dev.clockwork.cli.soak;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.cli.workload.ProcessStats;
import dev.clockwork.cli.workload.Random64;
import dev.clockwork.offheap.NativeMemory;
import java.util.concurrent.locks.LockSupport;

/**
 * The main thread's part of the timed phase: samples the process and the cache every 200 ms (or
 * every report interval if shorter), sets a new random capacity every
 * {@code -vary_capacity_interval}, requests a GC when the heap has grown by
 * {@code -heap_gc_mib}, prints a line every {@code -report_interval}, and keeps what the RSS
 * rule and the summary need. Created when the clock starts.
 */
final class SoakMonitor {
    private static final long SAMPLE_NANOS = 200_000_000L;

    private final SoakOptions o;
    private final Cache cache;
    private final SoakWorker[] workers;
    private final RunStop early;
    private final SoakReport report;
    private final Random64 wobble;

    final long startNanos = System.nanoTime();
    final long warmupNanos;
    /** The first sample at or after the warm-up's end; null while there is none. */
    SoakSample atWarmupEnd;
    long maxRssDuringWarmup = -1;
    long maxRssAfterWarmup = -1;
    long maxNativeAfterWarmup = -1;
    long capacityChanges;
    long gcRequests;
    long minCapacitySet = Long.MAX_VALUE;
    long maxCapacitySet = 0;
    private long heapAfterGc = ProcessStats.heapUsedBytes();
    private SoakSample previous;

    SoakMonitor(SoakOptions options, long seed, Cache cache, SoakWorker[] workers,
                RunStop early, SoakReport report) {
        this.o = options;
        this.cache = cache;
        this.workers = workers;
        this.early = early;
        this.report = report;
        this.wobble = new Random64(seed ^ 0x5EED_CAFEL);
        this.warmupNanos = options.effectiveWarmupNanos();
    }

    /** Takes a sample into the RSS figures. */
    void observe(SoakSample s) {
        if (s.nanos < warmupNanos) {
            maxRssDuringWarmup = Math.max(maxRssDuringWarmup, s.rss);
            return;
        }
        if (atWarmupEnd == null) {
            atWarmupEnd = s;
        }
        maxRssAfterWarmup = Math.max(maxRssAfterWarmup, s.rss);
        maxNativeAfterWarmup = Math.max(maxNativeAfterWarmup, s.nativeBytes);
    }

    /** Runs until {@code -duration} is up, a worker has failed or a stop is requested. */
    void run() {
        long end = startNanos + o.durationNanos;
        long tick = Math.min(SAMPLE_NANOS, o.reportIntervalNanos);
        boolean vary = o.cache.varyCapacityRatio > 0;
        long nextWobble = vary ? startNanos + o.varyCapacityIntervalNanos : Long.MAX_VALUE;
        long nextReport = startNanos + o.reportIntervalNanos;
        long nextSample = startNanos + tick;
        previous = sample(0);
        observe(previous);
        report.columns();
        while (true) {
            long now = System.nanoTime();
            long wake = Math.min(Math.min(nextReport, nextWobble), Math.min(end, nextSample));
            if (wake > now) {
                LockSupport.parkNanos(wake - now);
                continue; // parkNanos may return early: re-evaluate
            }
            while (nextSample <= now) {
                nextSample += tick;
            }
            if (vary && now >= nextWobble && now < end) {
                setRandomCapacity();
                while (nextWobble <= now) {
                    nextWobble += o.varyCapacityIntervalNanos;
                }
            }
            SoakSample s = sample(now - startNanos);
            observe(s);
            requestGcIfHeapGrew(s);
            boolean last = now >= end || anyWorkerFailed() || early.requested();
            if (now >= nextReport || last && s.nanos > previous.nanos) {
                report.line(s, previous);
                previous = s;
                while (nextReport <= now) {
                    nextReport += o.reportIntervalNanos;
                }
            }
            if (last) {
                return;
            }
        }
    }

    private boolean anyWorkerFailed() {
        for (SoakWorker w : workers) {
            if (w.failure != null) {
                return true;
            }
        }
        return false;
    }

    /** A capacity drawn uniformly from {@code [1 - ratio, 1 + ratio] x cache_size}. */
    private void setRandomCapacity() {
        double u = Random64.unsignedToDouble(wobble.next()) / 0x1.0p64; // [0, 1)
        long capacity = (long) (o.cache.cacheSize
                * (1.0 + o.cache.varyCapacityRatio * (2 * u - 1)));
        cache.setCapacity(capacity);
        capacityChanges++;
        minCapacitySet = Math.min(minCapacitySet, capacity);
        maxCapacitySet = Math.max(maxCapacitySet, capacity);
    }

    private void requestGcIfHeapGrew(SoakSample s) {
        if (o.heapGcMib > 0 && s.heapUsed > heapAfterGc + o.heapGcMib * SoakMemory.MIB) {
            System.gc();
            gcRequests++;
            heapAfterGc = ProcessStats.heapUsedBytes();
        }
    }

    /** The workers' published counts and the process's and cache's memory now. */
    SoakSample sample(long nanos) {
        SoakSample s = new SoakSample();
        s.nanos = nanos;
        for (SoakWorker w : workers) {
            s.ops += w.publishedOps;
            s.lookups += w.publishedLookups;
            s.hits += w.publishedHits;
            s.failures += w.publishedFailures;
        }
        s.rss = ProcessStats.rssBytes();
        s.nativeBytes = NativeMemory.outstandingBytes();
        s.heapUsed = ProcessStats.heapUsedBytes();
        s.usage = cache.usage();
        s.capacity = cache.capacity();
        s.entries = cache.entryCount();
        return s;
    }
}
