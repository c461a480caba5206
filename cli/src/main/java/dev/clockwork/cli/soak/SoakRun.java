package dev.clockwork.cli.soak;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.Main;
import dev.clockwork.cli.common.Json;
import dev.clockwork.offheap.NativeMemory;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.common.ExitCodes;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.PinnedFifo;
import dev.clockwork.cli.workload.Random64;

/**
 * {@code clockwork soak}: a mixed, checksum-verified, multi-threaded workload for a fixed time
 * against one cache, with the process's memory sampled throughout, then leak accounting. Owns the
 * cache and closes it.
 *
 * <h2>Phases</h2>
 * <ol>
 *   <li>Populate (unless {@code -populate_cache=false}): the workers insert key numbers 0, 1,
 *     2, ... (worker i takes i, i + n, ...) until usage reaches 98% of the starting capacity (the top of the capacity wobble range, so
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

    /** Largest key space erased key by key after the run (beyond it the drain is skipped). */
    static final long MAX_DRAIN_KEYS = 1L << 27;
    private static final long SAMPLE_NANOS = 200_000_000L;
    private static final int PUBLISH_EVERY = 128;
    /** Population stops when usage reaches this share of the capacity. */
    static final double POPULATE_FILL = 0.98;
    private static final Priority[] PRIORITIES =
            {Priority.HIGH, Priority.LOW, Priority.BOTTOM, Priority.LOW};

    // per-worker counters
    static final int OPS = 0;
    static final int LOOKUPS = 1;
    static final int HITS = 2;
    static final int INSERT_PINNED = 3;
    static final int INSERT = 4;
    static final int REFUSED = 5;
    static final int ERASE = 6;
    static final int ERASE_FOUND = 7;
    static final int REF = 8;
    static final int RELEASE = 9;
    static final int RELEASE_ERASE = 10;
    static final int FREED = 11;
    static final int ARRAY_INSERT = 12;
    static final int READ_COPY = 13; // + SoakValues.READ_*
    static final int CHECKS = 16;
    static final int FAILURES = 17; // + SoakValues result - 1
    static final int N_COUNTERS = 20;

    private static final String[] PLACES = {"lookup hit", "insertPinned", "before release"};
    private static final int AT_HIT = 0;
    private static final int AT_INSERT = 1;
    private static final int AT_RELEASE = 2;

    private final SoakOptions o;
    private final long seed;
    private final Cache cache;
    private final PrintWriter out;
    private final PrintWriter err;
    private final long nativeBaseline;
    private final long reservedBaseline;
    private final SoakValues.Sizes sizes;
    private final long maxKey;
    private final long[] thresholds;
    private final AtomicLong failuresReported = new AtomicLong();
    private final long emptyUsagePerSlot; // -1 when unknown
    private volatile boolean stop;
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
            long reservedBaseline, PrintWriter out, PrintWriter err) {
        this.o = options;
        this.seed = seed;
        this.cache = cache;
        this.out = out;
        this.err = err;
        this.nativeBaseline = nativeBaseline;
        this.reservedBaseline = reservedBaseline;
        this.sizes = new SoakValues.Sizes(options.minValueBytes, options.maxValueBytes);
        this.maxKey = options.maxKey(sizes.mean);
        this.thresholds = options.opThresholds();
        this.populated = new CountDownLatch((int) options.threads);
        // what an empty cache charges per table slot (HyperClock tables charge their slots)
        OptionalLong slots = CacheFactory.tableSlots(cache);
        long usage = cache.usage();
        if (slots.isEmpty()) {
            emptyUsagePerSlot = 0;
        } else if (slots.getAsLong() > 0 && usage % slots.getAsLong() == 0) {
            emptyUsagePerSlot = usage / slots.getAsLong();
        } else {
            emptyUsagePerSlot = -1;
        }
    }

    /** Per-thread state and results. */
    private static final class Worker {
        final int tid;
        final int pinCount;
        final Random64 rnd;
        final SoakValues values;
        final PinnedFifo pinned;
        final long[] counts = new long[N_COUNTERS];
        volatile long publishedOps;
        volatile long publishedLookups;
        volatile long publishedHits;
        volatile long publishedFailures;
        volatile Throwable failure;
        long populated;

        Worker(int tid, int pinCount, long seed, SoakValues.Sizes sizes) {
            this.tid = tid;
            this.pinCount = pinCount;
            this.rnd = new Random64(seed * 0x9E3779B97F4A7C15L + tid + 1);
            this.values = new SoakValues(sizes);
            // an operation may add two handles (a hit and its extra reference) before trimming
            this.pinned = new PinnedFifo(pinCount + 1, true);
        }

        void publish() {
            long[] c = counts;
            publishedOps = c[OPS];
            publishedLookups = c[LOOKUPS];
            publishedHits = c[HITS];
            publishedFailures = c[FAILURES] + c[FAILURES + 1] + c[FAILURES + 2];
        }
    }

    /** Everything the interval lines and the summary report. */
    private static final class Sample {
        long nanos; // since the start of the run
        long ops;
        long lookups;
        long hits;
        long failures;
        long rss;
        long nativeBytes;
        long heapUsed;
        long usage;
        long capacity;
        long entries;
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
        printHeader();
        int n = (int) o.threads;
        long totalPins = o.totalPinCount();
        Worker[] workers = new Worker[n];
        Thread[] threads = new Thread[n];
        int started = 0;
        try {
            for (int i = 0; i < n; i++) {
                Worker w = new Worker(i, (int) PinnedFifo.pinCountForThread(totalPins, i, n), seed,
                        sizes);
                workers[i] = w;
                threads[i] = new Thread(() -> threadBody(w, n), "clockwork-soak-" + i);
            }
            for (Thread t : threads) {
                t.start();
                started++;
            }
        } catch (RuntimeException | Error e) {
            stop = true;
            closeValues(workers);
            go.countDown();
            joinAll(threads, started);
            closeValues(workers);
            err.println("clockwork soak: could not start " + n + " threads: " + e);
            return EXIT_ERROR;
        }
        awaitPopulation(workers);
        Monitor m = new Monitor(); // the clock starts here
        go.countDown();
        monitor(m, workers);
        stop = true;
        joinAll(threads, n);
        closeValues(workers);
        // the final sample: every worker has released its handles
        Sample last = sample(workers, System.nanoTime() - m.startNanos);
        m.observe(last);
        return finish(workers, m, last);
    }

    // ------------------------------------------------------------------------ populate

    /**
     * A worker's share of the population: key numbers {@code tid, tid + n, tid + 2n, ...} until
     * the cache's usage reaches {@link #POPULATE_FILL} of its capacity. The workers populate (and
     * not the main thread) so that the values are allocated by the threads that will free and
     * replace them, as in the steady state (malloc keeps per-thread arenas).
     */
    private void populate(Worker w, int n) {
        KeyGen gen = new KeyGen();
        long target = (long) (cache.capacity() * POPULATE_FILL);
        long inserted = 0;
        for (long k = w.tid; k < maxKey && !stop; k += n) {
            if ((k / n & 63) == 0 && cache.usage() >= target) {
                break;
            }
            gen.encode(k);
            long k0 = gen.key0();
            long k1 = gen.key1();
            var v = w.values.next(w.rnd, k0, k1, false);
            if (cache.insert(k0, k1, v, v.byteSize(), Priority.LOW)) {
                inserted++;
            }
        }
        w.populated = inserted;
    }

    /** Waits for every worker to finish populating; prints what they did. */
    private void awaitPopulation(Worker[] workers) {
        long start = System.nanoTime();
        boolean interrupted = false;
        while (true) {
            try {
                populated.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (o.populateCache && !o.json) {
            long inserted = 0;
            for (Worker w : workers) {
                inserted += w.populated;
            }
            out.printf(Locale.ROOT, "Population complete: %d inserts, %d entries, usage %s of"
                    + " capacity %s MiB, %.1f s%n", inserted, cache.entryCount(),
                    SoakMemory.mib(cache.usage()), SoakMemory.mib(cache.capacity()),
                    (System.nanoTime() - start) / 1e9);
            out.flush();
        }
    }

    // ------------------------------------------------------------------------ workers

    private void threadBody(Worker w, int n) {
        try {
            try {
                if (o.populateCache) {
                    populate(w, n);
                }
            } finally {
                populated.countDown();
            }
            awaitUninterruptibly(go);
            if (!stop) {
                operate(w);
            }
        } catch (Throwable t) {
            w.failure = t;
            stop = true;
            // give back what this thread still holds, as far as the cache lets us
            try {
                while (w.pinned.size() > 0) {
                    cache.release(w.pinned.pop());
                }
            } catch (Throwable ignored) {
                // the cache is in trouble already; close() frees everything
            }
        } finally {
            w.publish();
        }
    }

    private void operate(Worker w) {
        final Cache cache = this.cache;
        final Random64 rnd = w.rnd;
        final SoakValues values = w.values;
        final PinnedFifo pinned = w.pinned;
        final long[] c = w.counts;
        final KeyGen gen = new KeyGen();
        final long maxKey = this.maxKey;
        final long skew = o.skew;
        final int pinCount = w.pinCount;
        final long lookupInsert = thresholds[0];
        final long insertPinned = thresholds[1];
        final long blindInsert = thresholds[2];
        final long lookupOnly = thresholds[3];
        final long erase = thresholds[4];
        final int arrayPct = (int) o.byteArrayPercent;
        final int refPct = (int) o.refPercent;
        final int releaseErasePct = (int) o.releaseErasePercent;

        while (!stop) {
            for (int b = 0; b < PUBLISH_EVERY; b++) {
                gen.encode(KeyGen.randomKey(rnd, maxKey, skew));
                final long k0 = gen.key0();
                final long k1 = gen.key1();
                final long op = rnd.next();
                final long aux = rnd.next();
                final boolean viaArray = percentile(aux) < arrayPct;
                final boolean takeRef = percentile(aux >>> 16) < refPct;
                final int readMode = viaArray ? SoakValues.READ_ARRAY
                        : ((aux >>> 32) & 3) == 0 ? SoakValues.READ_VIEW : SoakValues.READ_COPY;
                final Priority priority = PRIORITIES[(int) ((aux >>> 40) & 3)];

                if (Long.compareUnsigned(op, lookupInsert) < 0) {
                    c[LOOKUPS]++;
                    long h = cache.lookup(k0, k1);
                    if (h != Cache.MISS) {
                        c[HITS]++;
                        checkAndPin(w, h, k0, k1, readMode, takeRef, AT_HIT);
                    } else {
                        insertAndPin(w, k0, k1, viaArray, readMode, priority);
                    }
                } else if (Long.compareUnsigned(op, insertPinned) < 0) {
                    insertAndPin(w, k0, k1, viaArray, readMode, priority);
                } else if (Long.compareUnsigned(op, blindInsert) < 0) {
                    var v = values.next(rnd, k0, k1, viaArray);
                    long charge = v.byteSize();
                    boolean accepted = viaArray
                            ? cache.insert(k0, k1, values.array(), 0, (int) charge, charge, priority)
                            : cache.insert(k0, k1, v, charge, priority);
                    c[INSERT]++;
                    if (viaArray) {
                        c[ARRAY_INSERT]++;
                    }
                    if (!accepted) {
                        c[REFUSED]++;
                    }
                } else if (Long.compareUnsigned(op, lookupOnly) < 0) {
                    c[LOOKUPS]++;
                    long h = cache.lookup(k0, k1);
                    if (h != Cache.MISS) {
                        c[HITS]++;
                        checkAndPin(w, h, k0, k1, readMode, takeRef, AT_HIT);
                    }
                } else if (Long.compareUnsigned(op, erase) < 0) {
                    c[ERASE]++;
                    if (cache.erase(k0, k1)) {
                        c[ERASE_FOUND]++;
                    }
                }
                // else: one of the 15 values above 100 hundredths of UINT64_MAX, a no-op
                c[OPS]++;
                while (pinned.size() > pinCount) {
                    releaseOldest(w, releaseErasePct > 0 && percentile(rnd.next()) < releaseErasePct);
                }
            }
            w.publish();
        }
        while (pinned.size() > 0) {
            releaseOldest(w, false);
        }
    }

    /** 0..99 from the low 16 bits. */
    private static int percentile(long bits) {
        return (int) (((bits & 0xFFFF) * 100) >>> 16);
    }

    private void insertAndPin(Worker w, long k0, long k1, boolean viaArray, int readMode,
                              Priority priority) {
        long[] c = w.counts;
        var v = w.values.next(w.rnd, k0, k1, viaArray);
        long charge = v.byteSize();
        long h = viaArray
                ? cache.insertPinned(k0, k1, w.values.array(), 0, (int) charge, charge, priority)
                : cache.insertPinned(k0, k1, v, charge, priority);
        c[INSERT_PINNED]++;
        if (viaArray) {
            c[ARRAY_INSERT]++;
        }
        if (h == Cache.MISS) {
            c[REFUSED]++;
            return;
        }
        checkAndPin(w, h, k0, k1, readMode, false, AT_INSERT);
    }

    private void checkAndPin(Worker w, long h, long k0, long k1, int readMode, boolean takeRef,
                             int place) {
        check(w, h, k0, k1, readMode, place);
        w.pinned.push(h, k0, k1);
        if (takeRef) {
            cache.ref(h);
            w.counts[REF]++;
            w.pinned.push(h, k0, k1);
        }
    }

    private void releaseOldest(Worker w, boolean eraseIfLastRef) {
        PinnedFifo pinned = w.pinned;
        long[] c = w.counts;
        check(w, pinned.peek(), pinned.headKey0(), pinned.headKey1(), (int) (c[RELEASE] % 3),
                AT_RELEASE);
        long h = pinned.pop();
        c[RELEASE]++;
        if (eraseIfLastRef) {
            c[RELEASE_ERASE]++;
        }
        if (cache.release(h, eraseIfLastRef)) {
            c[FREED]++;
        }
    }

    private void check(Worker w, long h, long k0, long k1, int readMode, int place) {
        long[] c = w.counts;
        c[CHECKS]++;
        c[READ_COPY + readMode]++;
        int result = w.values.check(cache, h, k0, k1, readMode);
        if (result != SoakValues.OK) {
            c[FAILURES + result - 1]++;
            w.publishedFailures = c[FAILURES] + c[FAILURES + 1] + c[FAILURES + 2];
            describeFailure(w, h, k0, k1, readMode, place, result);
        }
    }

    private void describeFailure(Worker w, long h, long k0, long k1, int readMode, int place,
                                 int result) {
        if (failuresReported.incrementAndGet() > o.maxFailureReports) {
            return;
        }
        String size;
        String charge;
        try {
            size = String.valueOf(cache.valueSize(h));
            charge = String.valueOf(cache.charge(h));
        } catch (RuntimeException e) {
            size = charge = "(" + e + ")";
        }
        synchronized (err) {
            err.printf("clockwork soak: value check failed (%s) in thread %d after %d ops, at %s,"
                            + " read with %s: key (0x%016x, 0x%016x), handle 0x%x, valueSize %s,"
                            + " charge %s, expected size and charge %d%n",
                    SoakValues.RESULT_NAMES[result], w.tid, w.counts[OPS], PLACES[place],
                    SoakValues.READ_NAMES[readMode], k0, k1, h, size, charge,
                    sizes.sizeOf(k0, k1));
            err.flush();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
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

    // ------------------------------------------------------------------------ monitoring

    /** What the main thread tracks while the workers run. */
    private final class Monitor {
        final long startNanos = System.nanoTime();
        final long warmupNanos = o.effectiveWarmupNanos();
        Sample atWarmupEnd;
        long maxRssDuringWarmup = -1;
        long maxRssAfterWarmup = -1;
        long maxNativeAfterWarmup = -1;
        long capacityChanges;
        long gcRequests;
        long heapAfterGc = SoakMemory.heapUsedBytes();
        Sample previous;
        long minCapacitySet = Long.MAX_VALUE;
        long maxCapacitySet = 0;

        void observe(Sample s) {
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
    }

    private void monitor(Monitor m, Worker[] workers) {
        Random64 wobble = new Random64(seed ^ 0x5EED_CAFEL);
        long start = m.startNanos;
        long end = start + o.durationNanos;
        long tick = Math.min(SAMPLE_NANOS, o.reportIntervalNanos);
        boolean vary = o.varyCapacityRatio > 0;
        long nextWobble = vary ? start + o.varyCapacityIntervalNanos : Long.MAX_VALUE;
        long nextReport = start + o.reportIntervalNanos;
        long nextSample = start + tick;
        m.previous = sample(workers, 0);
        m.observe(m.previous);
        printColumns();
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
            boolean failed = false;
            for (Worker w : workers) {
                failed |= w.failure != null;
            }
            if (vary && now >= nextWobble && now < end) {
                double u = Random64.unsignedToDouble(wobble.next()) / 0x1.0p64; // [0, 1)
                long capacity = (long) (o.cacheSize * (1.0 + o.varyCapacityRatio * (2 * u - 1)));
                cache.setCapacity(capacity);
                m.capacityChanges++;
                m.minCapacitySet = Math.min(m.minCapacitySet, capacity);
                m.maxCapacitySet = Math.max(m.maxCapacitySet, capacity);
                while (nextWobble <= now) {
                    nextWobble += o.varyCapacityIntervalNanos;
                }
            }
            Sample s = sample(workers, now - start);
            m.observe(s);
            if (o.heapGcMib > 0 && s.heapUsed > m.heapAfterGc + o.heapGcMib * SoakMemory.MIB) {
                System.gc();
                m.gcRequests++;
                m.heapAfterGc = SoakMemory.heapUsedBytes();
            }
            boolean last = now >= end || failed;
            if (now >= nextReport || last && s.nanos > m.previous.nanos) {
                printLine(s, m.previous);
                m.previous = s;
                while (nextReport <= now) {
                    nextReport += o.reportIntervalNanos;
                }
            }
            if (last) {
                return;
            }
        }
    }

    private Sample sample(Worker[] workers, long nanos) {
        Sample s = new Sample();
        s.nanos = nanos;
        for (Worker w : workers) {
            s.ops += w.publishedOps;
            s.lookups += w.publishedLookups;
            s.hits += w.publishedHits;
            s.failures += w.publishedFailures;
        }
        s.rss = SoakMemory.rssBytes();
        s.nativeBytes = NativeMemory.outstandingBytes();
        s.heapUsed = SoakMemory.heapUsedBytes();
        s.usage = cache.usage();
        s.capacity = cache.capacity();
        s.entries = cache.entryCount();
        return s;
    }

    // ------------------------------------------------------------------------ output

    private void printHeader() {
        if (o.json) {
            return;
        }
        out.println("----------------------------");
        out.printf("Clockwork version   : %s%n", Main.version());
        out.printf("Cache type          : %s (%s)%n", o.cacheType, CacheFactory.implName(cache));
        out.printf("Java runtime        : %s, max heap %s MiB%n", Runtime.version(),
                SoakMemory.mib(Runtime.getRuntime().maxMemory()));
        out.printf("Threads             : %d%n", o.threads);
        out.printf("Duration            : %s (warm-up %s), report every %s%n",
                SoakOptions.formatDuration(o.durationNanos),
                SoakOptions.formatDuration(o.effectiveWarmupNanos()),
                SoakOptions.formatDuration(o.reportIntervalNanos));
        if (o.varyCapacityRatio > 0) {
            out.printf(Locale.ROOT, "Cache size          : %d (%s MiB); starts at %d, then set to a"
                            + " random size in [%s, %s] x cache_size every %s%n", o.cacheSize,
                    SoakMemory.mib(o.cacheSize), o.initialCapacity(),
                    CFormat.g(1 - o.varyCapacityRatio), CFormat.g(1 + o.varyCapacityRatio),
                    SoakOptions.formatDuration(o.varyCapacityIntervalNanos));
        } else {
            out.printf("Cache size          : %d (%s MiB), fixed%n", o.cacheSize,
                    SoakMemory.mib(o.cacheSize));
        }
        out.printf(Locale.ROOT, "Value bytes         : %d..%d (%d sizes, log-uniform by key),"
                        + " mean %.1f%n", sizes.min, sizes.max, sizes.sizes.length, sizes.mean);
        out.printf("Max key             : %d (resident ratio %s, skew %d)%n", maxKey,
                CFormat.g(o.residentRatio), o.skew);
        out.printf("Pinned handles      : %d (pinned ratio %s)%n", o.totalPinCount(),
                CFormat.g(o.pinnedRatio));
        out.printf("Op mix              : lookup+insert %d%%, insert %d%%, blind insert %d%%,"
                        + " lookup %d%%, erase %d%%; ref %d%% of hits, eraseIfLastRef %d%% of"
                        + " releases, byte[] API %d%%%n", o.lookupInsertPercent, o.insertPercent,
                o.blindInsertPercent, o.lookupPercent, o.erasePercent, o.refPercent,
                o.releaseErasePercent, o.byteArrayPercent);
        out.printf("Seed                : %d%n", seed);
        out.printf("RSS rule            : max RSS after warm-up <= RSS at warm-up end + max(%s%%,"
                + " %d MiB)%n", CFormat.g(o.rssTolerancePct), o.rssToleranceMib);
        out.println("----------------------------");
        out.flush();
    }

    private static final String COLUMNS = String.format(Locale.ROOT,
            "%9s %10s %13s %9s %8s %9s %10s %9s %9s %9s %9s",
            "elapsed_s", "ops/s", "total_ops", "hit_ratio", "failures", "rss_MiB", "native_MiB",
            "heap_MiB", "usage_MiB", "cap_MiB", "entries");

    private void printColumns() {
        if (!o.json) {
            out.println(COLUMNS);
            out.flush();
        }
    }

    private void printLine(Sample s, Sample prev) {
        double dt = (s.nanos - prev.nanos) / 1e9;
        double opsPerSec = dt > 0 ? (s.ops - prev.ops) / dt : 0;
        long lookups = s.lookups - prev.lookups;
        double hitRatio = lookups > 0 ? (double) (s.hits - prev.hits) / lookups : 0;
        if (o.json) {
            ObjectNode line = Json.object().put("type", "interval");
            Json.putRounded(line, "elapsed_s", s.nanos / 1e9)
                    .put("ops_per_s", Math.round(opsPerSec))
                    .put("total_ops", s.ops);
            Json.putRounded(line, "hit_ratio", hitRatio)
                    .put("failures", s.failures)
                    .put("rss_bytes", s.rss)
                    .put("native_bytes", s.nativeBytes)
                    .put("heap_used_bytes", s.heapUsed)
                    .put("usage_bytes", s.usage)
                    .put("capacity_bytes", s.capacity)
                    .put("entries", s.entries);
            out.println(Json.line(line));
        } else {
            out.printf(Locale.ROOT, "%9.1f %10d %13d %9.4f %8d %9s %10s %9s %9s %9s %9d%n",
                    s.nanos / 1e9, Math.round(opsPerSec), s.ops, hitRatio, s.failures,
                    s.rss < 0 ? "n/a" : SoakMemory.mib(s.rss), SoakMemory.mib(s.nativeBytes),
                    SoakMemory.mib(s.heapUsed), SoakMemory.mib(s.usage),
                    SoakMemory.mib(s.capacity), s.entries);
        }
        out.flush();
    }

    // ------------------------------------------------------------------------ the end

    private int finish(Worker[] workers, Monitor m, Sample last) {
        long[] t = new long[N_COUNTERS];
        Throwable failure = null;
        for (Worker w : workers) {
            for (int i = 0; i < N_COUNTERS; i++) {
                t[i] += w.counts[i];
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
        long checkFailures = t[FAILURES] + t[FAILURES + 1] + t[FAILURES + 2];

        // leak accounting, 1: every handle has been released
        long pinnedUsage = cache.pinnedUsage();
        boolean pinnedOk = pinnedUsage == 0;
        // 2: erase every key the run can have used
        boolean drained = maxKey <= MAX_DRAIN_KEYS;
        long entriesAfterDrain = -1;
        long usageAfterDrain = -1;
        long expectedUsage = -1;
        long nativeAfterDrain = -1;
        if (drained) {
            KeyGen gen = new KeyGen();
            for (long k = 0; k < maxKey; k++) {
                gen.encode(k);
                cache.erase(gen.key0(), gen.key1());
            }
            entriesAfterDrain = cache.entryCount();
            usageAfterDrain = cache.usage();
            nativeAfterDrain = NativeMemory.outstandingBytes();
            if (emptyUsagePerSlot >= 0) {
                expectedUsage = emptyUsagePerSlot * CacheFactory.tableSlots(cache).orElse(0);
            }
        }
        boolean drainOk = !drained || entriesAfterDrain == 0
                && (expectedUsage < 0 || usageAfterDrain == expectedUsage);
        // 3: close gives back every native byte
        cache.close();
        long nativeAfterClose = NativeMemory.outstandingBytes();
        long reservedAfterClose = NativeMemory.reservedBytes();
        boolean nativeOk = nativeAfterClose == nativeBaseline
                && reservedAfterClose == reservedBaseline;

        long rssWarm = m.atWarmupEnd == null ? -1 : m.atWarmupEnd.rss;
        boolean rssKnown = rssWarm >= 0 && m.maxRssAfterWarmup >= 0;
        long allowance = rssKnown
                ? SoakMemory.rssAllowance(rssWarm, o.rssTolerancePct, o.rssToleranceMib) : 0;
        boolean rssOk = !rssKnown || SoakMemory.rssFlat(rssWarm, m.maxRssAfterWarmup,
                o.rssTolerancePct, o.rssToleranceMib);

        int code = failure != null ? EXIT_ERROR
                : checkFailures > 0 ? EXIT_CHECK_FAILED
                : !(pinnedOk && drainOk && nativeOk) ? EXIT_LEAK
                : !rssOk ? EXIT_RSS_GROWTH
                : 0;
        double secs = last.nanos / 1e9;
        String result = code == 0 ? "PASS" : "FAIL";

        if (o.json) {
            ObjectNode j = Json.object().put("type", "summary")
                    .put("cache_type", o.cacheType);
            Json.putRounded(j, "elapsed_s", secs)
                    .put("total_ops", t[OPS])
                    .put("ops_per_s", Math.round(t[OPS] / secs))
                    .put("lookups", t[LOOKUPS])
                    .put("hits", t[HITS])
                    .put("insert_pinned", t[INSERT_PINNED])
                    .put("insert", t[INSERT])
                    .put("refused_inserts", t[REFUSED])
                    .put("erase", t[ERASE])
                    .put("ref", t[REF])
                    .put("release", t[RELEASE])
                    .put("release_erase_if_last_ref", t[RELEASE_ERASE])
                    .put("capacity_changes", m.capacityChanges)
                    .put("gc_requests", m.gcRequests)
                    .put("checks", t[CHECKS])
                    .put("checksum_failures", checkFailures)
                    .put("worker_error", failure == null ? null : failure.toString());
            Json.putRounded(j, "warmup_s", m.warmupNanos / 1e9)
                    .put("rss_at_warmup_end_bytes", rssWarm)
                    .put("rss_max_after_warmup_bytes", m.maxRssAfterWarmup)
                    .put("rss_allowance_bytes", allowance)
                    .put("rss_flat", rssKnown ? rssOk : null)
                    .put("native_at_warmup_end_bytes",
                            m.atWarmupEnd == null ? -1 : m.atWarmupEnd.nativeBytes)
                    .put("native_max_after_warmup_bytes", m.maxNativeAfterWarmup)
                    .put("pinned_usage_after_release_bytes", pinnedUsage)
                    .put("entries_after_drain", entriesAfterDrain)
                    .put("usage_after_drain_bytes", usageAfterDrain)
                    .put("expected_usage_after_drain_bytes", expectedUsage)
                    .put("native_after_close_bytes", nativeAfterClose)
                    .put("native_before_cache_bytes", nativeBaseline)
                    .put("reserved_after_close_bytes", reservedAfterClose)
                    .put("leak_free", pinnedOk && drainOk && nativeOk)
                    .put("result", result)
                    .put("exit_code", code);
            out.println(Json.line(j));
            out.flush();
            return code;
        }

        out.println();
        out.println("Summary");
        out.printf(Locale.ROOT, "  Total ops             : %d in %.1f s (%d ops/s)%n", t[OPS], secs,
                Math.round(t[OPS] / secs));
        out.printf("  Lookups               : %d, hit ratio %s%n", t[LOOKUPS],
                CFormat.g(t[LOOKUPS] == 0 ? 0 : (double) t[HITS] / t[LOOKUPS]));
        out.printf("  Inserts               : insertPinned %d, insert %d (byte[] %d), refused %d%n",
                t[INSERT_PINNED], t[INSERT], t[ARRAY_INSERT], t[REFUSED]);
        out.printf("  Erases                : %d (found %d)%n", t[ERASE], t[ERASE_FOUND]);
        out.printf("  Releases              : %d (eraseIfLastRef %d, freed %d), extra refs %d%n",
                t[RELEASE], t[RELEASE_ERASE], t[FREED], t[REF]);
        out.printf("  Capacity changes      : %d%s%n", m.capacityChanges, m.capacityChanges == 0 ? ""
                : " (" + SoakMemory.mib(m.minCapacitySet) + " to "
                        + SoakMemory.mib(m.maxCapacitySet) + " MiB)");
        out.printf("  Value checks          : %d (copyValue(MemorySegment) %d, value() %d,"
                + " copyValue(byte[]) %d)%n", t[CHECKS], t[READ_COPY], t[READ_COPY + 1],
                t[READ_COPY + 2]);
        out.printf("  Checksum failures     : %d (wrong size %d, wrong charge %d, wrong key stamp or"
                        + " checksum %d)  %s%n", checkFailures, t[FAILURES], t[FAILURES + 1],
                t[FAILURES + 2], checkFailures == 0 ? "PASS" : "FAIL");
        out.printf("  Worker errors         : %s  %s%n", failure == null ? "none" : failure,
                failure == null ? "PASS" : "FAIL");
        out.printf("  Warm-up               : %s; GCs requested %d (-heap_gc_mib=%d)%n",
                SoakOptions.formatDuration(m.warmupNanos), m.gcRequests, o.heapGcMib);
        if (rssKnown) {
            long growth = m.maxRssAfterWarmup - rssWarm;
            out.printf("  RSS at warm-up end    : %s MiB (max during warm-up %s MiB)%n",
                    SoakMemory.mib(rssWarm), SoakMemory.mib(m.maxRssDuringWarmup));
            out.printf(Locale.ROOT, "  RSS max after warm-up : %s MiB (%s%s MiB, %+.1f%%); at the"
                            + " end %s MiB%n", SoakMemory.mib(m.maxRssAfterWarmup),
                    growth >= 0 ? "+" : "", SoakMemory.mib(growth), 100.0 * growth / rssWarm,
                    SoakMemory.mib(last.rss));
            out.printf("  RSS flat              : %s (max after warm-up %s <= %s + max(%s%%, %d"
                            + " MiB) = %s MiB)%n", rssOk ? "PASS" : "FAIL",
                    SoakMemory.mib(m.maxRssAfterWarmup), SoakMemory.mib(rssWarm),
                    CFormat.g(o.rssTolerancePct), o.rssToleranceMib,
                    SoakMemory.mib(rssWarm + allowance));
        } else {
            out.println("  RSS flat              : not judged (no VmRSS in /proc/self/status)");
        }
        if (m.atWarmupEnd != null) {
            out.printf("  Native at warm-up end : %s MiB; max after warm-up %s MiB%n",
                    SoakMemory.mib(m.atWarmupEnd.nativeBytes),
                    SoakMemory.mib(m.maxNativeAfterWarmup));
        }
        out.printf("  Pinned after release  : %d bytes  %s%n", pinnedUsage,
                pinnedOk ? "PASS" : "FAIL");
        if (drained) {
            out.printf("  After erasing %d keys: %d entries, usage %d bytes (expected %s), native"
                            + " %s MiB  %s%n", maxKey, entriesAfterDrain, usageAfterDrain,
                    expectedUsage < 0 ? "n/a" : expectedUsage + (expectedUsage == 0 ? ""
                            : " = table metadata"),
                    SoakMemory.mib(nativeAfterDrain), drainOk ? "PASS" : "FAIL");
        } else {
            out.printf("  After erasing all keys: skipped (%d keys, more than %d)%n", maxKey,
                    MAX_DRAIN_KEYS);
        }
        out.printf("  Native after close    : %d bytes (before the cache: %d), reserved %d bytes"
                        + " (before: %d)  %s%n", nativeAfterClose, nativeBaseline,
                reservedAfterClose, reservedBaseline, nativeOk ? "PASS" : "FAIL");
        out.printf("Result: %s%n", result);
        out.flush();
        return code;
    }
}
