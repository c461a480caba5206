package dev.clockwork.cli.bench;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.Priority;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.Main;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.NativeMemory;
import dev.clockwork.offheap.TableReport;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.common.ExitCodes;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.LatencyStats;
import dev.clockwork.cli.workload.PinnedFifo;
import dev.clockwork.cli.workload.ProcessStats;
import dev.clockwork.cli.workload.Random64;
import dev.clockwork.cli.workload.ValueGen;
import dev.clockwork.cli.workload.ValueHash;
import dev.clockwork.cli.workload.ValueStamp;

/**
 * The cache_bench workload against a Clockwork cache: optional population, then
 * {@code threads} threads doing {@code ops_per_thread} random operations each, then
 * cache_bench's report plus a few JVM numbers. Owns the cache and closes it at the end.
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
 * before it is released; failures are counted per thread, reported, and make the exit code 3. Handles from inserts all use {@link Priority#LOW}
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
 */
final class CacheBench {
    private static final double UINT64_MAX_AS_DOUBLE = 0x1.0p64; // (double) UINT64_MAX
    private static final int POPULATE_PATIENCE = 100;
    /** Ops between two updates of a worker's progress count (a power of two). */
    private static final long PROGRESS_STEP = 4096;
    /** Exit code when {@code -verify_values} found a bad value. */
    static final int EXIT_VERIFY_FAILED = ExitCodes.VALUE_CHECK_FAILED;

    private final BenchOptions o;
    private final long seed;
    private final Cache cache;
    private final PrintWriter out;
    private final PrintWriter err;
    private final long maxKey;
    private final int valueBytes;
    private final long hashSeed;
    private final boolean verify;
    private long populateVerifyFailures;

    private long startNanos; // written by the barrier action, read after joining the threads
    private BenchResult result;
    /** With -gather_stats: the walking thread's state; else null. */
    private StatsGatherer gatherer;
    /** Held by the worker that ends the process with -early_exit, so that only one does. */
    private static final Object EARLY_EXIT_LOCK = new Object();

    /**
     * @param seed the effective uint32 seed (never 0)
     */
    CacheBench(BenchOptions options, long seed, Cache cache, PrintWriter out, PrintWriter err) {
        this.o = options;
        this.seed = seed;
        this.cache = cache;
        this.out = out;
        this.err = err;
        this.maxKey = options.maxKey();
        this.valueBytes = (int) options.valueBytes;
        this.hashSeed = CacheFactory.hashSeedFor(seed);
        this.verify = options.verifyValues;
    }

    /** The run's headline figures, once {@link #execute} has reported them; else null. */
    BenchResult result() {
        return result;
    }

    /** Populates (if asked), runs and reports; closes the cache. Returns the exit code. */
    int execute() {
        try {
            if (o.populateCache) {
                int rc = populateCache();
                if (rc != 0) {
                    return rc;
                }
            }
            return run();
        } finally {
            cache.close();
        }
    }

    /**
     * cache_bench's {@code PopulateCache}: from a generator seeded with the seed itself, insert
     * keys that a lookup does not find (each followed by a lookup that must find it) until either
     * 100 inserts in a row fail to raise the highest occupancy seen, or 100 keys in a row are
     * already present.
     */
    int populateCache() {
        Random64 rnd = new Random64(seed);
        KeyGen gen = new KeyGen(o.degenerateHashBits, hashSeed);
        long maxOccupancy = 0;
        long insertsSinceMaxOccupancyIncrease = 0;
        long keysSinceLastNotFound = 0;
        try (ValueGen values = new ValueGen(valueBytes, o.compressibleToRatio, verify)) {
            MemorySegment scratch = values.scratch();
            while (insertsSinceMaxOccupancyIncrease < POPULATE_PATIENCE
                    && keysSinceLastNotFound < POPULATE_PATIENCE) {
                gen.encode(KeyGen.randomKey(rnd, maxKey, o.skew));
                long k0 = gen.key0();
                long k1 = gen.key1();
                long handle = cache.lookup(k0, k1);
                if (handle != Cache.MISS) {
                    if (verify && !ValueStamp.check(cache, handle, k0, k1, scratch)) {
                        populateVerifyFailures++;
                    }
                    cache.release(handle);
                    keysSinceLastNotFound++;
                    continue;
                }
                keysSinceLastNotFound = 0;
                boolean accepted = cache.insert(k0, k1, values.next(rnd, k0, k1), valueBytes,
                        Priority.LOW);
                handle = cache.lookup(k0, k1);
                if (handle == Cache.MISS) {
                    err.println("Failed to lookup key just inserted."
                            + (accepted ? "" : " (the insert was refused)"));
                    return 42;
                }
                if (verify && !ValueStamp.check(cache, handle, k0, k1, scratch)) {
                    populateVerifyFailures++;
                }
                cache.release(handle);
                long occupancy = cache.entryCount();
                if (occupancy > maxOccupancy) {
                    maxOccupancy = occupancy;
                    insertsSinceMaxOccupancyIncrease = 0;
                } else {
                    insertsSinceMaxOccupancyIncrease++;
                }
            }
        }
        out.printf("Population complete (%d entries, %s average charge)%n", maxOccupancy,
                CFormat.g(1.0 * o.cacheSize / maxOccupancy));
        return 0;
    }

    /** Per-thread state (all made before the threads start) and results. */
    private static LatencyStats[] newStats() {
        LatencyStats[] stats = new LatencyStats[OpLatency.NAMES.length];
        for (int kind = 0; kind < stats.length; kind++) {
            stats[kind] = new LatencyStats();
        }
        return stats;
    }

    private static final class Worker {
        final int tid;
        final int pinCount;
        final Random64 rnd;
        /** Per operation kind ({@link OpLatency}); null without -histograms. */
        final LatencyStats[] latency;
        final ValueGen values;
        final PinnedFifo pinned;
        long hits;
        long misses;
        long pinnedAtEnd;
        long refusedInserts;
        long verifyFailures;
        long result;
        long durationNanos;
        Throwable failure;
        /** Ops done so far, published every {@link #PROGRESS_STEP} ops for the progress line. */
        volatile long done;

        Worker(int tid, int pinCount, long seed, BenchOptions o) {
            this.tid = tid;
            this.pinCount = pinCount;
            this.rnd = new Random64((seed + 1 + tid) & 0xFFFF_FFFFL); // uint32 arithmetic
            this.latency = o.histograms ? newStats() : null;
            this.values = new ValueGen((int) o.valueBytes, o.compressibleToRatio, o.verifyValues);
            this.pinned = new PinnedFifo(pinCount, o.verifyValues);
        }
    }

    int run() {
        printEnv();
        int n = (int) o.threads;
        long totalPinCount = o.totalPinCount();
        Worker[] workers = new Worker[n];
        Thread[] threads = new Thread[n];
        CyclicBarrier barrier = new CyclicBarrier(n, () -> startNanos = System.nanoTime());
        int started = 0;
        try {
            for (int i = 0; i < n; i++) {
                Worker w = new Worker(i, (int) PinnedFifo.pinCountForThread(totalPinCount, i, n),
                        seed, o);
                workers[i] = w;
                threads[i] = new Thread(() -> threadBody(w, barrier), "clockwork-bench-" + i);
            }
            for (Thread t : threads) {
                t.start();
                started++;
            }
        } catch (RuntimeException | Error e) {
            // the started threads wait on the barrier: interrupting them makes them give up
            for (int i = 0; i < started; i++) {
                threads[i].interrupt();
            }
            joinAll(threads, started);
            closeValues(workers);
            err.println("clockwork bench: could not start " + n + " threads: " + e);
            return 1;
        }
        Thread statsThread = null;
        if (o.gatherStats) {
            gatherer = new StatsGatherer();
            statsThread = new Thread(gatherer::run, "clockwork-bench-stats");
            statsThread.start();
        }
        joinWithProgress(threads, workers);
        // As cache_bench: gathering stats is background work, not part of the timed run.
        long endNanos = System.nanoTime();
        if (statsThread != null) {
            gatherer.workersDone.countDown();
            joinAll(new Thread[] {statsThread}, 1);
        }
        closeValues(workers);

        Throwable failure = null;
        for (Worker w : workers) {
            if (w.failure != null
                    && (failure == null || failure instanceof BrokenBarrierException)) {
                failure = w.failure;
            }
        }
        if (failure != null) {
            err.println("clockwork bench: a worker thread failed: " + failure);
            failure.printStackTrace(err);
            return 1;
        }
        if (gatherer != null && gatherer.failure != null) {
            err.println("clockwork bench: the stats thread failed: " + gatherer.failure);
            gatherer.failure.printStackTrace(err);
            return 1;
        }
        return report(workers, endNanos - startNanos);
    }

    /**
     * Joins the worker threads, printing a progress line to stderr every -progress_interval
     * seconds until they are done.
     */
    private void joinWithProgress(Thread[] threads, Worker[] workers) {
        if (o.progressInterval <= 0) {
            joinAll(threads, threads.length);
            return;
        }
        long intervalNanos = Math.max(1_000_000L, (long) (o.progressInterval * 1e9));
        long total = o.threads * o.opsPerThread;
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
                    for (Worker w : workers) {
                        done += w.done;
                    }
                    err.printf(Locale.ROOT, "progress: %d%% (%d of %d ops), %d ops/sec over the"
                                    + " last %.1f s%n", percent(done, total),
                            done, total, (long) ((done - lastDone) / ((now - lastNanos) * 1e-9)),
                            (now - lastNanos) * 1e-9);
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

    private static void joinAll(Thread[] threads, int count) {
        boolean interrupted = false;
        for (int i = 0; i < count; i++) {
            while (true) {
                try {
                    threads[i].join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeValues(Worker[] workers) {
        for (Worker w : workers) {
            if (w != null) {
                w.values.close();
            }
        }
    }

    private void threadBody(Worker w, CyclicBarrier barrier) {
        try {
            barrier.await();
            operate(w);
        } catch (Throwable t) {
            w.failure = t;
        }
    }

    private void operate(Worker w) {
        final Cache cache = this.cache;
        final Random64 rnd = w.rnd;
        final ValueGen values = w.values;
        final PinnedFifo pinned = w.pinned;
        final KeyGen gen = new KeyGen(o.degenerateHashBits, hashSeed);
        final boolean verify = this.verify;
        final MemorySegment scratch = values.scratch();
        final int pinCount = w.pinCount;
        final LatencyStats[] latency = w.latency;
        final boolean histograms = latency != null;
        final boolean lean = o.lean;
        final long maxKey = this.maxKey;
        final long skew = o.skew;
        final long ops = o.opsPerThread;
        final long charge = valueBytes;
        final long lookupInsertThreshold = o.lookupInsertThreshold();
        final long insertThreshold = o.insertThreshold();
        final long blindInsertThreshold = o.blindInsertThreshold();
        final long lookupThreshold = o.lookupThreshold();
        final long eraseThreshold = o.eraseThreshold();
        final boolean varyCapacity = o.varyCapacityRatio > 0.0 && w.tid == 0;
        final long usleep = o.usleep;

        long result = 0;
        long hits = 0;
        long misses = 0;
        long refused = 0;
        long failures = 0;
        long stepsToNextCapacityChange = 0;
        final long startTime = System.nanoTime();

        for (long i = 0; i < ops; i++) {
            gen.encode(KeyGen.randomKey(rnd, maxKey, skew));
            final long k0 = gen.key0();
            final long k1 = gen.key1();
            final long op = rnd.next();

            if (varyCapacity) {
                if (stepsToNextCapacityChange == 0) {
                    double cutRatio = Random64.unsignedToDouble(rnd.next()) / UINT64_MAX_AS_DOUBLE
                            * o.varyCapacityRatio;
                    cache.setCapacity((long) (o.cacheSize * (1.0 - cutRatio)));
                    stepsToNextCapacityChange = ops / 100;
                } else {
                    stepsToNextCapacityChange--;
                }
            }

            final long t0 = histograms ? System.nanoTime() : 0L;
            final int kind;

            if (Long.compareUnsigned(op, lookupInsertThreshold) < 0) {
                kind = OpLatency.LOOKUP_INSERT;
                long handle = cache.lookup(k0, k1);
                if (handle != Cache.MISS) {
                    hits++;
                    if (verify) {
                        if (!ValueStamp.check(cache, handle, k0, k1, scratch)) {
                            failures++;
                        }
                    } else if (!lean) {
                        result += ValueHash.hash(cache.value(handle));
                    }
                    pinned.push(handle, k0, k1);
                } else {
                    misses++;
                    long inserted = cache.insertPinned(k0, k1, values.next(rnd, k0, k1), charge,
                            Priority.LOW);
                    if (inserted != Cache.MISS) {
                        pinned.push(inserted, k0, k1);
                    } else {
                        refused++;
                    }
                }
            } else if (Long.compareUnsigned(op, insertThreshold) < 0) {
                kind = OpLatency.INSERT;
                long inserted = cache.insertPinned(k0, k1, values.next(rnd, k0, k1), charge, Priority.LOW);
                if (inserted != Cache.MISS) {
                    pinned.push(inserted, k0, k1);
                } else {
                    refused++;
                }
            } else if (Long.compareUnsigned(op, blindInsertThreshold) < 0) {
                kind = OpLatency.BLIND_INSERT;
                if (!cache.insert(k0, k1, values.next(rnd, k0, k1), charge, Priority.LOW)) {
                    refused++;
                }
            } else if (Long.compareUnsigned(op, lookupThreshold) < 0) {
                kind = OpLatency.LOOKUP;
                long handle = cache.lookup(k0, k1);
                if (handle != Cache.MISS) {
                    hits++;
                    if (verify) {
                        if (!ValueStamp.check(cache, handle, k0, k1, scratch)) {
                            failures++;
                        }
                    } else if (!lean) {
                        result += ValueHash.hash(cache.value(handle));
                    }
                    pinned.push(handle, k0, k1);
                } else {
                    misses++;
                }
            } else if (Long.compareUnsigned(op, eraseThreshold) < 0) {
                kind = OpLatency.ERASE;
                cache.erase(k0, k1);
            } else {
                kind = OpLatency.NO_OP; // one of the values above 100 hundredths of UINT64_MAX
            }

            if (histograms) {
                latency[kind].record(System.nanoTime() - t0);
            }
            if (usleep > 0) {
                long us = rnd.uniform(usleep + 1);
                if (us > 0) {
                    LockSupport.parkNanos(us * 1000);
                }
            }
            while (pinned.size() > pinCount) {
                failures += releaseOldest(cache, pinned, verify, scratch);
            }
            if ((i & (PROGRESS_STEP - 1)) == 0) {
                w.done = i; // a volatile write every PROGRESS_STEP ops, for the progress line
            }
        }
        w.done = ops;
        if (o.earlyExit) {
            exitEarly();
        }

        w.hits = hits;
        w.misses = misses;
        w.refusedInserts = refused;
        w.pinnedAtEnd = pinned.size();
        while (pinned.size() > 0) {
            failures += releaseOldest(cache, pinned, verify, scratch);
        }
        w.verifyFailures = failures;
        w.result = result; // published to the main thread, so the hashing cannot be dropped
        w.durationNanos = System.nanoTime() - startTime;
    }

    /**
     * {@code -early_exit}: ends the process now, with the handles pinned and the cache open, as
     * cache_bench's {@code exit(0)} at the end of {@code OperateCache}. What was printed is
     * flushed first; nothing else runs (no shutdown hooks).
     */
    private void exitEarly() {
        synchronized (EARLY_EXIT_LOCK) {
            out.flush();
            err.flush();
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(0);
        }
    }

    /**
     * cache_bench's {@code StatsBody}: the -gather_stats thread. Walks the cache every
     * {@code -gather_stats_sleep_ms} until the workers are done, timing each walk (microseconds)
     * and keeping what the last complete walk counted. It is its own visitor: counting into its
     * fields, without value views, allocates nothing per entry.
     */
    private final class StatsGatherer implements EntryVisitor {
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

        void run() {
            long sleepNanos = TimeUnit.MILLISECONDS.toNanos(o.gatherStatsSleepMs);
            int perLock = o.entriesPerLock();
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

    /**
     * Releases the oldest pinned handle; with {@code verify}, first checks its value against the
     * key it was pinned under. Returns the number of failed checks (0 or 1).
     */
    private static int releaseOldest(Cache cache, PinnedFifo pinned, boolean verify,
                                     MemorySegment scratch) {
        int failed = 0;
        if (verify && !ValueStamp.check(cache, pinned.peek(), pinned.headKey0(),
                pinned.headKey1(), scratch)) {
            failed = 1;
        }
        cache.release(pinned.pop());
        return failed;
    }

    private int report(Worker[] workers, long elapsedNanos) {
        int n = workers.length;
        double totalOps = 1.0 * n * o.opsPerThread;

        double elapsedSecs = elapsedNanos * 1e-9;
        out.printf(Locale.ROOT, "Complete in %.3f s; Rough parallel ops/sec = %d%n", elapsedSecs,
                (long) (totalOps / elapsedSecs));

        double threadSecs = 0;
        long hits = 0;
        long lookups = 0;
        long pinnedCount = 0;
        long refused = 0;
        long verifyFailures = populateVerifyFailures;
        for (Worker w : workers) {
            threadSecs += w.durationNanos * 1e-9;
            hits += w.hits;
            lookups += w.hits + w.misses;
            pinnedCount += w.pinnedAtEnd;
            refused += w.refusedInserts;
            verifyFailures += w.verifyFailures;
            if (w.result == 1) {
                out.println("You are extremely unlucky(2). Try again.");
                return 1;
            }
        }
        out.printf("Thread ops/sec = %d%n", (long) (totalOps / threadSecs));
        out.printf("Lookup hit ratio: %s%n", CFormat.g(1.0 * hits / lookups));
        long entriesAtEnd = cache.entryCount();
        long nativeAtEnd = NativeMemory.outstandingBytes();

        OptionalLong slots = CacheFactory.tableSlots(cache);
        long finalOccupancy = cache.entryCount();
        if (slots.isPresent()) {
            long occupancy = finalOccupancy;
            out.printf("Final load factor: %s (%d / %d)%n",
                    CFormat.g(1.0 * occupancy / slots.getAsLong()), occupancy, slots.getAsLong());
        }
        out.printf("Final pinned count: %d%n", pinnedCount);
        if (refused > 0) {
            out.printf("Refused inserts: %d%n", refused);
        }
        if (verify) {
            out.printf("Value verification failures: %d%n", verifyFailures);
        }

        List<OpLatency> opLatency = List.of();
        if (o.histograms) {
            out.printf("%nOperation latency (ns):%n");
            LatencyStats combined = new LatencyStats();
            List<LatencyStats[]> perWorker = new ArrayList<>();
            for (Worker w : workers) {
                perWorker.add(w.latency);
                for (LatencyStats kind : w.latency) {
                    combined.add(kind);
                }
            }
            out.print(combined.format());
            opLatency = OpLatency.merged(perWorker);
            out.printf("%nLatency by operation (ns; Clockwork):%n");
            out.print(OpLatency.table(opLatency));
            if (gatherer != null) {
                out.printf("%nGather stats latency (us):%n");
                out.print(gatherer.micros.format());
            }
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

        // Clockwork additions
        out.println();
        OptionalLong rss = ProcessStats.peakRssBytes();
        out.printf("Max RSS: %s%n",
                rss.isPresent() ? ProcessStats.mib(rss.getAsLong()) + " MiB" : "n/a");
        long heapUsed = ProcessStats.heapUsedAfterGc();
        out.printf("Heap used after GC: %s MiB%n", ProcessStats.mib(heapUsed));
        Map<String, String> flags = o.flagValues();
        flags.put("seed", Long.toString(seed)); // the effective one (0 means the pid)
        BenchResult.TableStats table = new BenchResult.TableStats(
                slots.isPresent() ? finalOccupancy : -1, slots.orElse(-1),
                cache instanceof HyperClockCache ? cache.stats().evictionEffortExceeded() : -1,
                pinnedCount);
        result = new BenchResult(o.cacheType, n, o.opsPerThread, elapsedSecs,
                (long) (totalOps / elapsedSecs), (long) (totalOps / threadSecs),
                lookups == 0 ? 0.0 : 1.0 * hits / lookups, entriesAtEnd, nativeAtEnd,
                rss.orElse(-1), heapUsed, opLatency, flags, table,
                gatherer == null ? null : OpLatency.of(BenchResult.GATHER_STATS, gatherer.micros));
        out.printf("Native memory in use: %s MiB%n",
                ProcessStats.mib(NativeMemory.outstandingBytes()));
        cache.close();
        out.printf("Native memory after close: %d bytes%n", NativeMemory.outstandingBytes());
        out.flush();
        if (verifyFailures > 0) {
            err.printf("clockwork bench: %d values failed verification (wrong key, size or"
                    + " checksum)%n", verifyFailures);
            err.flush();
            return EXIT_VERIFY_FAILED;
        }
        return 0;
    }

    /**
     * cache_bench's {@code ReportProblems} at debug level: a blank line on stdout, then the
     * table diagnostics on stderr.
     */
    private void reportProblems(HyperClockCache hcc) {
        out.println();
        out.flush();
        TableReport table = hcc.tableReport();
        err.println("Slot occupancy stats: " + table.occupancySummary());
        err.println("Eviction effort exceeded: " + table.evictionEffortExceeded());
        if (hcc instanceof FixedHyperClockCache fixed) {
            String advice = fixed.entryChargeRecommendation();
            if (advice != null) {
                err.println(advice);
            }
        }
        if (hcc instanceof AutoHyperClockCache auto) {
            err.println(auto.chainReport().summary());
            err.printf("Table reservation: %s MiB (resident only as used)%n",
                    ProcessStats.mib(auto.reservedBytes()));
        }
        err.flush();
    }

    /** LRU diagnostics on stderr: usage by pool, and what the index and records take. */
    private void reportPools(LruCache lru) {
        out.println();
        out.flush();
        LruCache.PoolUsage pools = lru.poolUsage();
        err.printf("Pool usage: high %s MiB, low %s MiB, bottom %s MiB, pinned %s MiB%n",
                ProcessStats.mib(pools.high()), ProcessStats.mib(pools.low()),
                ProcessStats.mib(pools.bottom()), ProcessStats.mib(pools.pinned()));
        long entries = lru.entryCount();
        long meta = lru.metadataBytes();
        err.printf("Entries: %d, index and records: %s MiB (%.1f bytes per entry)%n", entries,
                ProcessStats.mib(meta), entries == 0 ? 0.0 : (double) meta / entries);
        err.flush();
    }

    private void printEnv() {
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
        out.printf("Max key             : %d%n", maxKey);
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
        if (verify) {
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
