package dev.clockwork.cli.soak;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.common.ExitCodes;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.cli.common.Threads;
import dev.clockwork.cli.workload.PinnedFifo;
import dev.clockwork.offheap.NativeMemory;
import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code clockwork soak}: a mixed, checksum-verified, multi-threaded workload for a fixed time
 * against one cache, with the process's memory sampled throughout, then leak accounting. Owns the
 * cache and closes it.
 *
 * <p>This class runs the phases; {@link SoakWorker} operates, {@link SoakMonitor} samples while
 * the workers run, {@link LeakCheck} and {@link RssCheck} judge, and {@link SoakReport} prints.
 *
 * <h2>Phases</h2>
 * <ol>
 *   <li>Populate (unless {@code -populate_cache=false}): the workers insert key numbers 0, 1,
 *     2, ... (worker i takes i, i + n, ...) until usage reaches 98% of the starting capacity (the
 * top of the capacity wobble range, so
 *     that the cache's largest footprint is reached before the warm-up ends).</li>
 *   <li>Run: {@code -threads} workers operate until {@code -duration} is up. The main thread
 *     samples RSS every 200 ms (or every report interval if shorter), sets a new random capacity
 *     every {@code -vary_capacity_interval}, and prints a line every {@code -report_interval}.</li>
 *   <li>Workers release every handle they hold. Then: the pinned usage must be 0; every key the
 *     run could have used is erased, after which the cache must hold no entries and its usage
 *     must be back to what an empty cache of its table size charges; then the cache is closed and
 *     the native bytes (and reserved address space) must be back to what they were before the
 *     cache was made.</li>
 * </ol>
 * A signal (SIGTERM, Ctrl-C; {@link RunStop}) ends population or the run where it is; the
 * checks and the summary follow as at the end of {@code -duration}, marked partial.
 *
 * <h2>One operation of a worker</h2>
 * A key as in {@code bench} ({@link KeyGen}, skewed); one random number picks the operation and
 * one more the variants (read mode, extra reference, byte[] API, priority):
 * <ul>
 *   <li>lookup-insert: {@code lookup}; a hit is checked and pinned; on a miss, {@code
 *     insertPinned}, and the new handle is checked and pinned;</li>
 *   <li>insert: {@code insertPinned}, checked and pinned;</li>
 *   <li>blind insert: {@code insert} (no handle);</li>
 *   <li>lookup: {@code lookup}; a hit is checked and pinned;</li>
 *   <li>erase: {@code erase}.</li>
 * </ul>
 * A pinned hit takes a second reference ({@code ref}) in {@code -ref_percent} of the cases, each
 * reference going into the thread's FIFO on its own. After each operation the oldest handles are
 * checked again and released ({@code release(handle, eraseIfLastRef)}, with eraseIfLastRef in
 * {@code -release_erase_percent} of the releases) until the FIFO holds the thread's share of
 * {@code -pinned_ratio}. A check ({@link SoakValues#check}) compares valueSize and charge with the
 * key's size and the bytes with the key stamp and checksum, reading through copyValue into a
 * native buffer, the value() view, or copyValue into a byte[].
 */
final class SoakRun {
    /** A worker threw, or the run could not start. */
    static final int EXIT_ERROR = ExitCodes.ERROR;
    /** Some value failed its check (the same code as bench's -verify_values). */
    static final int EXIT_CHECK_FAILED = ExitCodes.VALUE_CHECK_FAILED;
    /** Leak accounting failed: pinned usage, entries or usage after the drain, native bytes. */
    static final int EXIT_LEAK = 4;
    /** RSS grew after the warm-up beyond the allowance. */
    static final int EXIT_RSS_GROWTH = 5;

    /** Population stops when usage reaches this share of the capacity. */
    static final double POPULATE_FILL = 0.98;

    private final SoakOptions o;
    private final long seed;
    private final Cache cache;
    private final PrintWriter err;
    private final SoakReport report;
    private final long nativeBaseline;
    private final long reservedBaseline;
    private final SoakValues.Sizes sizes;
    private final long maxKey;
    /** Measured on the new, empty cache: see {@link LeakCheck#emptyUsagePerSlot}. */
    private final long emptyUsagePerSlot;
    /** Set when the workers are to stop: at the end of the run, a failure, or a signal. */
    private final AtomicBoolean stop = new AtomicBoolean();
    /** Requested by a signal: the run ends early and its summary says so. */
    private final RunStop early;
    /** Counted down by each worker when it has done its share of the population. */
    private final CountDownLatch populated;
    /** Opened by the main thread to start the timed phase. */
    private final CountDownLatch go = new CountDownLatch(1);

    /**
     * @param seed the effective seed (never 0)
     * @param nativeBaseline {@link NativeMemory#outstandingBytes()} before the cache was made
     * @param reservedBaseline {@link NativeMemory#reservedBytes()} before the cache was made
     */
    SoakRun(SoakOptions options, long seed, Cache cache, long nativeBaseline,
            long reservedBaseline, RunStop early, PrintWriter out, PrintWriter err) {
        this.o = options;
        this.early = early;
        early.whenRequested(() -> stop.set(true));
        this.seed = seed;
        this.cache = cache;
        this.err = err;
        this.report = new SoakReport(options, out);
        this.nativeBaseline = nativeBaseline;
        this.reservedBaseline = reservedBaseline;
        this.sizes = new SoakValues.Sizes(options.minValueBytes, options.maxValueBytes);
        this.maxKey = options.maxKey(sizes);
        this.populated = new CountDownLatch((int) options.workload.threads);
        this.emptyUsagePerSlot = LeakCheck.emptyUsagePerSlot(cache);
    }

    /** Populates, runs, checks and reports; closes the cache. Returns the exit code. */
    int execute() {
        try {
            return runAll();
        } finally {
            cache.close();
        }
    }

    private int runAll() {
        report.header(cache, seed, sizes, maxKey);
        int n = (int) o.workload.threads;
        SoakWorker[] workers = newWorkers(n);
        Thread[] threads = new Thread[n];
        int started = 0;
        try {
            for (int i = 0; i < n; i++) {
                SoakWorker w = workers[i];
                threads[i] = new Thread(() -> threadBody(w, n), "clockwork-soak-" + i);
            }
            for (Thread t : threads) {
                t.start();
                started++;
            }
        } catch (RuntimeException | Error e) {
            stop.set(true);
            go.countDown();
            Threads.joinAll(threads, started);
            closeValues(workers);
            err.println("clockwork soak: could not start " + n + " threads: " + e);
            return EXIT_ERROR;
        }
        awaitPopulation(workers);
        SoakMonitor monitor = new SoakMonitor(o, seed, cache, workers, early, report); // clock
        go.countDown();
        monitor.run();
        stop.set(true);
        Threads.joinAll(threads, n);
        closeValues(workers);
        // the final sample: every worker has released its handles
        SoakSample last = monitor.sample(System.nanoTime() - monitor.startNanos);
        monitor.observe(last);
        return finish(workers, monitor, last);
    }

    private SoakWorker[] newWorkers(int n) {
        SoakWorker.Shared shared = new SoakWorker.Shared(cache, o, maxKey, o.opThresholds(),
                sizes, err, new AtomicLong(), stop);
        long totalPins = o.totalPinCount();
        SoakWorker[] workers = new SoakWorker[n];
        for (int i = 0; i < n; i++) {
            workers[i] = new SoakWorker(i, (int) PinnedFifo.pinCountForThread(totalPins, i, n),
                    seed, shared);
        }
        return workers;
    }

    private static void closeValues(SoakWorker[] workers) {
        for (SoakWorker w : workers) {
            w.closeValues();
        }
    }

    private void threadBody(SoakWorker w, int n) {
        try {
            try {
                if (o.workload.populateCache) {
                    w.populate(n);
                }
            } finally {
                populated.countDown();
            }
            Threads.awaitUninterruptibly(go);
            if (!stop.get()) {
                w.operate();
            }
        } catch (Throwable t) {
            stop.set(true);
            w.fail(t);
        } finally {
            w.publish();
        }
    }

    /** Waits for every worker to finish populating; prints what they did. */
    private void awaitPopulation(SoakWorker[] workers) {
        long start = System.nanoTime();
        Threads.awaitUninterruptibly(populated);
        if (o.workload.populateCache) {
            long inserted = 0;
            for (SoakWorker w : workers) {
                inserted += w.populated;
            }
            report.population(inserted, cache, System.nanoTime() - start);
        }
    }

    /** Sums the workers' counts, runs the leak accounting (closing the cache) and reports. */
    private int finish(SoakWorker[] workers, SoakMonitor monitor, SoakSample last) {
        long[] totals = new long[SoakCounters.N_COUNTERS];
        Throwable failure = null;
        for (SoakWorker w : workers) {
            for (int i = 0; i < totals.length; i++) {
                totals[i] += w.counts[i];
            }
            if (failure == null && w.failure != null) {
                failure = w.failure;
            }
        }
        if (failure != null) {
            err.println("clockwork soak: a worker thread failed: " + failure);
            failure.printStackTrace(err);
            err.flush();
        }
        LeakCheck leaks = LeakCheck.run(cache, maxKey, emptyUsagePerSlot, nativeBaseline,
                reservedBaseline);
        SoakOutcome outcome = new SoakOutcome(totals, failure, monitor, last, leaks,
                RssCheck.of(monitor, o), early.requested());
        report.summary(outcome);
        return outcome.exitCode();
    }
}
