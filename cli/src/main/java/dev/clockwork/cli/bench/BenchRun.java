package dev.clockwork.cli.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.caches.BenchTarget;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.common.ExitCodes;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.cli.common.Threads;
import dev.clockwork.cli.workload.Hiccups;
import dev.clockwork.cli.workload.JvmBill;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.PinnedFifo;
import dev.clockwork.cli.workload.ProcessStats;
import dev.clockwork.cli.workload.Random64;
import dev.clockwork.cli.workload.ValueGen;
import dev.clockwork.cli.workload.ValueStamp;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.util.Locale;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * The cache_bench workload against a Clockwork cache: optional population, then
 * {@code threads} threads doing {@code ops_per_thread} random operations each, then
 * cache_bench's report plus a few JVM numbers. Owns the cache and closes it at the end.
 *
 * <p>This class runs the phases; {@link BenchWorker} operates, {@link StatsGatherer} walks the
 * cache with {@code -gather_stats}, and {@link BenchReport} prints.
 *
 * <h2>One operation (per thread, as cache_bench's {@code OperateCache})</h2>
 * <ol>
 *   <li>Key: {@link KeyGen#randomKey} then {@link KeyGen#encode}.</li>
 *   <li>Op: one more random uint64 compared (unsigned) with the cumulative percent thresholds:
 *     lookup-insert, insert, blind insert, lookup, erase, else no-op.</li>
 *   <li>Thread 0 only, with {@code -vary_capacity_ratio}: every ops_per_thread/100 ops one more
 *     random value sets the capacity.</li>
 *   <li>Timed part (two {@code nanoTime} reads, with {@code -histograms}):
 *     <ul>
 *       <li>lookup-insert: lookup; a hit counts, hashes the value unless {@code -lean}, and goes
 *         into the pinned FIFO; a miss counts, makes a value (consuming random numbers) and
 *         {@code insertPinned}s it with charge {@code value_bytes}, the handle going into the
 *         FIFO;</li>
 *       <li>insert: make a value, {@code insertPinned}, handle into the FIFO;</li>
 *       <li>blind insert: make a value, {@code insert} (no handle);</li>
 *       <li>lookup: like lookup-insert without the insert on a miss;</li>
 *       <li>erase: {@code erase}.</li>
 *     </ul></li>
 *   <li>With {@code -usleep}: sleep a random 0..usleep microseconds.</li>
 *   <li>Release the oldest handles until the FIFO holds at most this thread's pin count.</li>
 * </ol>
 * Only lookups count towards the hit ratio.
 *
 * <p>With {@code -degenerate_hash_bits} the keys come from {@link KeyGen}'s degenerate
 * construction, against the cache's hash seed {@code seed & INT32_MAX}. With
 * {@code -verify_values} every value is stamped ({@link ValueStamp}); every hit checks its value
 * (instead of hashing it, even with {@code -lean}) and every pinned handle is checked again just
 * before it is released; failures are counted per thread, reported, and make the exit code 3.
 * Handles from inserts all use {@link Priority#LOW}
 * (cache_bench's default priority).
 *
 * <h2>-gather_stats</h2>
 * One more thread ({@link StatsGatherer}, cache_bench's {@code StatsBody}) sleeps
 * {@code -gather_stats_sleep_ms}, walks the cache with {@link Cache#forEachEntry} (batches of
 * {@code -gather_stats_entries_per_lock}), counting entries, charge and 16 key bytes per entry,
 * and times the walk in microseconds, until the workers are done. Its visitor only adds into its
 * own fields and does not ask for value views, so a walk allocates nothing per entry. The
 * walks' latency is printed with the other histograms (with {@code -histograms}) and what the
 * last walk found at the end of the report, as cache_bench prints them.
 *
 * <h2>-early_exit</h2>
 * As in cache_bench, the first worker to finish its operations ends the process with exit code
 * 0 ({@link Runtime#halt}: no shutdown hooks), holding the handles it pinned and leaving the
 * cache open, so that an external memory profiler sees the memory in use at the end of the run.
 * Nothing is printed after the header and the progress lines printed so far: no report, no
 * {@code -json} line (hence {@code -compare} refuses it).
 *
 * <h2>Stopping early</h2>
 * When the {@link RunStop} is requested (SIGTERM, Ctrl-C), population ends where it is, and each
 * worker at its next multiple of 4096 operations; the report then covers the operations done,
 * and says it is partial. Stopped during population, the run prints so and no report.
 */
final class BenchRun {
    private static final int POPULATE_PATIENCE = 100;
    /** Exit code when {@code -verify_values} found a bad value. */
    static final int EXIT_VERIFY_FAILED = ExitCodes.VALUE_CHECK_FAILED;

    private final BenchOptions o;
    private final long seed;
    private final BenchTarget target;
    private final RunStop stop;
    private final PrintWriter out;
    private final PrintWriter err;
    private final long maxKey;
    private final int valueBytes;
    private final long hashSeed;
    private final boolean verify;
    private long populateVerifyFailures;

    private long startNanos; // written by the barrier action, read after joining the threads
    private BenchResult result;
    /** What the progress lines start with: the warm-up's say they are not the measured run. */
    private String progressLabel = "progress";

    /**
     * @param seed the effective uint32 seed (never 0)
     * @param stop when requested, population and the workers stop where they are, and the
     *     report covers what they did
     */
    BenchRun(BenchOptions options, long seed, BenchTarget target, RunStop stop, PrintWriter out,
             PrintWriter err) {
        this.o = options;
        this.seed = seed;
        this.target = target;
        this.stop = stop;
        this.out = out;
        this.err = err;
        this.maxKey = options.maxKey();
        this.valueBytes = (int) options.valueBytes;
        this.hashSeed = CacheFactory.hashSeedFor(seed);
        this.verify = options.verifyValues;
    }

    /** Marks this run as the JIT warm-up in its progress lines ("warm-up: 40% ..."). */
    BenchRun asWarmup() {
        progressLabel = "warm-up";
        return this;
    }

    /** The run's headline figures, once {@link #execute} has reported them; else null. */
    BenchResult result() {
        return result;
    }

    /** Populates (if asked), runs and reports; closes the cache. Returns the exit code. */
    int execute() {
        try {
            if (o.workload.populateCache) {
                int rc = populateCache();
                if (rc != 0) {
                    return rc;
                }
            }
            if (stop.requested()) {
                out.println("Stopped during population: the timed run did not start.");
                out.flush();
                return 0;
            }
            return run();
        } finally {
            target.close();
        }
    }

    /**
     * cache_bench's {@code PopulateCache}: from a generator seeded with the seed itself, insert
     * keys that a lookup does not find (each followed by a lookup that must find it) until either
     * 100 inserts in a row fail to raise the highest occupancy seen, or 100 keys in a row are
     * already present.
     */
    private int populateCache() {
        Random64 rnd = new Random64(seed);
        KeyGen gen = o.fileKeys != 0 ? KeyGen.fileKeys(o.maxKey(), o.fileKeys, o.valueBytes)
                : new KeyGen(o.degenerateHashBits, hashSeed);
        long maxOccupancy = 0;
        long insertsSinceMaxOccupancyIncrease = 0;
        long keysSinceLastNotFound = 0;
        BenchTarget.Session session = target.session();
        Cache cache = target.clockwork(); // for -verify_values, which peers refuse
        boolean sizeMix = o.maxValueBytes() != valueBytes;
        try (ValueGen values = new ValueGen(o.maxValueBytes(), o.compressibleToRatio, verify)) {
            MemorySegment scratch = values.scratch();
            while (insertsSinceMaxOccupancyIncrease < POPULATE_PATIENCE
                    && keysSinceLastNotFound < POPULATE_PATIENCE && !stop.requested()) {
                long key = KeyGen.randomKey(rnd, maxKey, o.workload.skew);
                gen.encode(key);
                long k0 = gen.key0();
                long k1 = gen.key1();
                long handle = session.lookup(k0, k1);
                if (handle != Cache.MISS) {
                    if (verify && !ValueStamp.check(cache, handle, k0, k1, scratch)) {
                        populateVerifyFailures++;
                    }
                    releaseIfPinned(session, handle);
                    keysSinceLastNotFound++;
                    continue;
                }
                keysSinceLastNotFound = 0;
                int size = o.valueBytesOf(key);
                boolean accepted = session.insert(k0, k1, sizeMix
                        ? values.next(rnd, k0, k1, size) : values.next(rnd, k0, k1), size);
                handle = session.lookup(k0, k1);
                if (handle == Cache.MISS) {
                    if (!accepted || !target.pins()) {
                        // an admission policy turned the insert away (Clockwork's says so;
                        // Caffeine's evicts it unsaid): population counts it and goes on
                        insertsSinceMaxOccupancyIncrease++;
                        continue;
                    }
                    err.println("Failed to lookup key just inserted."
                            + (accepted ? "" : " (the insert was refused)"));
                    return 42;
                }
                if (verify && !ValueStamp.check(cache, handle, k0, k1, scratch)) {
                    populateVerifyFailures++;
                }
                releaseIfPinned(session, handle);
                long occupancy = target.entryCount();
                if (occupancy > maxOccupancy) {
                    maxOccupancy = occupancy;
                    insertsSinceMaxOccupancyIncrease = 0;
                } else {
                    insertsSinceMaxOccupancyIncrease++;
                }
            }
        }
        out.printf("Population complete (%d entries, %s average charge)%n", maxOccupancy,
                CFormat.g(1.0 * o.cache.cacheSize / maxOccupancy));
        return 0;
    }

    private void releaseIfPinned(BenchTarget.Session session, long handle) {
        if (target.pins()) {
            session.release(handle);
        }
    }

    private int run() {
        StatsGatherer gatherer = o.gatherStats ? new StatsGatherer(target.clockwork(),
                o.gatherStatsSleepMs, o.entriesPerLock()) : null;
        BenchReport report = new BenchReport(o, seed, target, gatherer, out, err);
        report.header();
        int n = (int) o.workload.threads;
        BenchWorker[] workers = new BenchWorker[n];
        Thread[] threads = new Thread[n];
        JvmBill bill = new JvmBill().start();
        Hiccups hiccups = new Hiccups().start();
        if (!startWorkers(workers, threads)) {
            return ExitCodes.ERROR;
        }
        Thread statsThread = null;
        if (gatherer != null) {
            statsThread = new Thread(gatherer::run, "clockwork-bench-stats");
            statsThread.start();
        }
        joinWithProgress(threads, workers);
        // As cache_bench: gathering stats is background work, not part of the timed run.
        long endNanos = System.nanoTime();
        JvmBill.Bill timedBill = bill.stop();
        Hiccups.Seen stalls = hiccups.stop();
        long rssAtEnd = ProcessStats.rssBytes();
        if (statsThread != null) {
            gatherer.workersDone.countDown();
            Threads.joinAll(new Thread[] {statsThread}, 1);
        }
        closeValues(workers);
        if (failed(workers, gatherer)) {
            return ExitCodes.ERROR;
        }
        int rc = report.report(workers, endNanos - startNanos, populateVerifyFailures, timedBill,
                stalls, rssAtEnd);
        result = report.result();
        return rc;
    }

    /**
     * Makes and starts the workers, which wait at a barrier whose action starts the clock.
     * Returns false, with every started thread joined, when a thread cannot start.
     */
    private boolean startWorkers(BenchWorker[] workers, Thread[] threads) {
        int n = workers.length;
        long totalPinCount = o.totalPinCount();
        CyclicBarrier barrier = new CyclicBarrier(n, () -> startNanos = System.nanoTime());
        int started = 0;
        try {
            for (int i = 0; i < n; i++) {
                BenchWorker w = new BenchWorker(i,
                        (int) PinnedFifo.pinCountForThread(totalPinCount, i, n), seed, o, target,
                        stop, out, err);
                workers[i] = w;
                threads[i] = new Thread(() -> w.run(barrier), "clockwork-bench-" + i);
            }
            for (Thread t : threads) {
                t.start();
                started++;
            }
            return true;
        } catch (RuntimeException | Error e) {
            // the started threads wait on the barrier: interrupting them makes them give up
            for (int i = 0; i < started; i++) {
                threads[i].interrupt();
            }
            Threads.joinAll(threads, started);
            closeValues(workers);
            err.println("clockwork bench: could not start " + n + " threads: " + e);
            return false;
        }
    }

    /**
     * Prints the first worker failure (one that is not a broken barrier if any) or the stats
     * thread's.
     */
    private boolean failed(BenchWorker[] workers, StatsGatherer gatherer) {
        Throwable failure = null;
        for (BenchWorker w : workers) {
            if (w.failure != null
                    && (failure == null || failure instanceof BrokenBarrierException)) {
                failure = w.failure;
            }
        }
        if (failure != null) {
            err.println("clockwork bench: a worker thread failed: " + failure);
            failure.printStackTrace(err);
            return true;
        }
        if (gatherer != null && gatherer.failure != null) {
            err.println("clockwork bench: the stats thread failed: " + gatherer.failure);
            gatherer.failure.printStackTrace(err);
            return true;
        }
        return false;
    }

    private static void closeValues(BenchWorker[] workers) {
        for (BenchWorker w : workers) {
            if (w != null) {
                w.values.close();
            }
        }
    }

    /**
     * Joins the worker threads, printing a progress line to stderr every -progress_interval
     * seconds until they are done.
     */
    private void joinWithProgress(Thread[] threads, BenchWorker[] workers) {
        if (o.progressInterval <= 0) {
            Threads.joinAll(threads, threads.length);
            return;
        }
        long intervalNanos = Math.max(1_000_000L, (long) (o.progressInterval * 1e9));
        long total = o.workload.threads * o.opsPerThread;
        long startedNanos = System.nanoTime();
        long lastDone = 0;
        long lastNanos = System.nanoTime();
        long nextNanos = lastNanos + intervalNanos;
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join(Math.max(1, (nextNanos - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                long now = System.nanoTime();
                if (now >= nextNanos && t.isAlive()) {
                    long done = 0;
                    for (BenchWorker w : workers) {
                        done += w.done;
                    }
                    long ratePerSec = (long) ((done - lastDone) / ((now - lastNanos) * 1e-9));
                    if (o.duration > 0) {
                        err.printf(Locale.ROOT, "%s: %.0f of %.0f s, %d ops, %d ops/sec over the"
                                        + " last %.1f s%n", progressLabel,
                                (now - startedNanos) * 1e-9, o.duration, done, ratePerSec,
                                (now - lastNanos) * 1e-9);
                    } else {
                        err.printf(Locale.ROOT, "%s: %d%% (%d of %d ops), %d ops/sec over the"
                                        + " last %.1f s%n", progressLabel, percent(done, total),
                                done, total, ratePerSec, (now - lastNanos) * 1e-9);
                    }
                    err.flush();
                    lastDone = done;
                    lastNanos = now;
                    nextNanos = now + intervalNanos;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@code 100 * done / total} rounded down, for {@code 0 <= done <= total}, exact for any
     * {@code long} total (validation keeps the total one); 100 for no ops.
     */
    static long percent(long done, long total) {
        if (total == 0) {
            return 100;
        }
        if (done <= Long.MAX_VALUE / 100) {
            return 100 * done / total;
        }
        // 100 * done passes Long.MAX_VALUE: once per progress line, so BigInteger is cheap enough.
        return BigInteger.valueOf(done).multiply(BigInteger.valueOf(100))
                .divide(BigInteger.valueOf(total)).longValueExact();
    }
}
