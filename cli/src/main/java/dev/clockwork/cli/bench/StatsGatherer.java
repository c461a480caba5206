package dev.clockwork.cli.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.workload.LatencyStats;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * cache_bench's {@code StatsBody}: the -gather_stats thread. Walks the cache every
 * {@code -gather_stats_sleep_ms} until the workers are done, timing each walk (microseconds)
 * and keeping what the last complete walk counted. It is its own visitor: counting into its
 * fields, without value views, allocates nothing per entry.
 */
final class StatsGatherer implements EntryVisitor {
    private final Cache cache;
    private final long sleepNanos;
    private final int perLock;

    final CountDownLatch workersDone = new CountDownLatch(1);
    /** Walk durations in microseconds (LatencyStats is unit-agnostic). */
    final LatencyStats micros = new LatencyStats();
    // The walk in progress.
    private long entries;
    private long charge;
    private long keyBytes;
    // The last complete walk; walks < 1 means none completed.
    long walks;
    long lastEntries;
    long lastCharge;
    long lastKeyBytes;
    long lastOccupancy;
    /** Table slots after the last walk, or -1 for a cache without a slot table. */
    long lastSlots = -1;
    volatile Throwable failure;

    @Override
    public void visit(long key0, long key1, MemorySegment value, long entryCharge) {
        entries++;
        charge += entryCharge;
        keyBytes += 16; // every key is two longs
    }

    @Override
    public boolean readsValues() {
        return false;
    }

    /**
     * @param sleepMs {@code -gather_stats_sleep_ms}
     * @param perLock the walk's batch size ({@link Cache#forEachEntry})
     */
    StatsGatherer(Cache cache, long sleepMs, int perLock) {
        this.cache = cache;
        this.sleepNanos = TimeUnit.MILLISECONDS.toNanos(sleepMs);
        this.perLock = perLock;
    }

    void run() {
        try {
            while (!workersDone.await(sleepNanos, TimeUnit.NANOSECONDS)) {
                entries = 0;
                charge = 0;
                keyBytes = 0;
                long t0 = System.nanoTime();
                cache.forEachEntry(this, perLock);
                long occupancy = cache.entryCount();
                OptionalLong slots = CacheFactory.tableSlots(cache);
                micros.record((System.nanoTime() - t0) / 1000);
                walks++;
                lastEntries = entries;
                lastCharge = charge;
                lastKeyBytes = keyBytes;
                lastOccupancy = occupancy;
                lastSlots = slots.orElse(-1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            failure = t;
        }
    }

    /** cache_bench's "Most recent cache entry stats" block (without its helper count). */
    String mostRecent() {
        StringBuilder sb = new StringBuilder(String.format("%nMost recent cache entry stats:%n"));
        if (walks == 0) {
            return sb.append(String.format("(none: the workers finished before the first walk"
                    + " ended; lower -gather_stats_sleep_ms)%n")).toString();
        }
        sb.append(String.format(Locale.ROOT, "Number of entries: %d%n", lastEntries));
        if (lastSlots >= 0) {
            sb.append(String.format(Locale.ROOT, "Table occupancy: %d / %d = %s%%%n",
                    lastOccupancy, lastSlots,
                    CFormat.g(lastSlots == 0 ? 0.0 : 100.0 * lastOccupancy / lastSlots)));
        }
        sb.append(String.format(Locale.ROOT, "Total charge: %s%n",
                CFormat.bytesToHuman(lastCharge)));
        sb.append(String.format(Locale.ROOT, "Average key size: %s%n",
                CFormat.g(1.0 * lastKeyBytes / lastEntries)));
        sb.append(String.format(Locale.ROOT, "Average charge: %s%n", CFormat.bytesToHuman(
                lastEntries == 0 ? 0 : (long) (1.0 * lastCharge / lastEntries))));
        return sb.toString();
    }
}

