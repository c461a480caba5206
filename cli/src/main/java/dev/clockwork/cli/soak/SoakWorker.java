package dev.clockwork.cli.soak;

import static dev.clockwork.cli.soak.SoakCounters.ARRAY_INSERT;
import static dev.clockwork.cli.soak.SoakCounters.CHECKS;
import static dev.clockwork.cli.soak.SoakCounters.ERASE;
import static dev.clockwork.cli.soak.SoakCounters.ERASE_FOUND;
import static dev.clockwork.cli.soak.SoakCounters.FAILURES;
import static dev.clockwork.cli.soak.SoakCounters.FREED;
import static dev.clockwork.cli.soak.SoakCounters.HITS;
import static dev.clockwork.cli.soak.SoakCounters.INSERT;
import static dev.clockwork.cli.soak.SoakCounters.INSERT_PINNED;
import static dev.clockwork.cli.soak.SoakCounters.LOOKUPS;
import static dev.clockwork.cli.soak.SoakCounters.OPS;
import static dev.clockwork.cli.soak.SoakCounters.READ_COPY;
import static dev.clockwork.cli.soak.SoakCounters.REF;
import static dev.clockwork.cli.soak.SoakCounters.REFUSED;
import static dev.clockwork.cli.soak.SoakCounters.RELEASE;
import static dev.clockwork.cli.soak.SoakCounters.RELEASE_ERASE;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.PinnedFifo;
import dev.clockwork.cli.workload.Random64;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One soak worker thread's state and operations ({@link SoakRun} describes the mix). Its counters
 * are written by its thread only; the few the interval lines show are published to volatile
 * fields every {@link #PUBLISH_EVERY} operations.
 */
final class SoakWorker {
    /**
     * What every worker of a run shares.
     *
     * @param thresholds the cumulative op thresholds ({@code OpMix#thresholds})
     * @param failuresReported failed checks described so far (at most -max_failure_reports are)
     * @param stop set when the run is over or a worker failed
     */
    record Shared(Cache cache, SoakOptions options, long maxKey, long[] thresholds,
                  SoakValues.Sizes sizes, PrintWriter err, AtomicLong failuresReported,
                  AtomicBoolean stop) {
    }

    private static final int PUBLISH_EVERY = 128;
    /** Keys drawn for one in the sweep's window before the last drawn is taken anyway. */
    private static final int SWEEP_TRIES = 256;
    private static final Priority[] PRIORITIES =
            {Priority.HIGH, Priority.LOW, Priority.BOTTOM, Priority.LOW};
    private static final String[] PLACES = {"lookup hit", "insertPinned", "before release"};
    private static final int AT_HIT = 0;
    private static final int AT_INSERT = 1;
    private static final int AT_RELEASE = 2;

    final int tid;
    final long[] counts = new long[SoakCounters.N_COUNTERS];
    volatile long publishedOps;
    volatile long publishedLookups;
    volatile long publishedHits;
    volatile long publishedFailures;
    volatile Throwable failure;
    /** Inserts this worker made while populating. */
    long populated;

    private final int pinCount;
    private final Random64 rnd;
    private final SoakValues values;
    private final PinnedFifo pinned;
    private final Shared shared;
    private final Cache cache;
    private final KeyGen gen = new KeyGen();
    /** The first size of the sweep's window, -1 without {@code -value_size_sweep}. */
    private int windowStart = -1;

    SoakWorker(int tid, int pinCount, long seed, Shared shared) {
        this.tid = tid;
        this.pinCount = pinCount;
        this.rnd = new Random64(seed * 0x9E3779B97F4A7C15L + tid + 1);
        this.values = new SoakValues(shared.sizes());
        // an operation may add two handles (a hit and its extra reference) before trimming
        this.pinned = new PinnedFifo(pinCount + 1, true);
        this.shared = shared;
        this.cache = shared.cache();
    }

    void publish() {
        publishedOps = counts[OPS];
        publishedLookups = counts[LOOKUPS];
        publishedHits = counts[HITS];
        publishedFailures = SoakCounters.failures(counts);
    }

    /** Frees this worker's value buffers; the worker must not run afterwards. */
    void closeValues() {
        values.close();
    }

    /**
     * Records the failure and gives back the handles this thread still holds, as far as the
     * cache lets it (close() frees everything anyway).
     */
    void fail(Throwable t) {
        failure = t;
        try {
            while (pinned.size() > 0) {
                cache.release(pinned.pop());
            }
        } catch (Throwable ignored) {
            // the cache is in trouble already
        }
    }

    /**
     * This worker's share of the population: key numbers {@code tid, tid + n, tid + 2n, ...}
     * until the cache's usage reaches {@link SoakRun#POPULATE_FILL} of its capacity. The workers
     * populate (and not the main thread) so that the values are allocated by the threads that
     * will free and replace them, as in the steady state (malloc keeps per-thread arenas).
     */
    void populate(int n) {
        long target = (long) (cache.capacity() * SoakRun.POPULATE_FILL);
        long inserted = 0;
        for (long k = tid; k < shared.maxKey() && !shared.stop().get(); k += n) {
            if ((k / n & 63) == 0 && cache.usage() >= target) {
                break;
            }
            gen.encode(k);
            long k0 = gen.key0();
            long k1 = gen.key1();
            MemorySegment v = values.next(rnd, k0, k1, false);
            if (cache.insert(k0, k1, v, v.byteSize(), Priority.LOW)) {
                inserted++;
            }
        }
        populated = inserted;
    }

    /** Operates until the run stops, then releases every handle it holds. */
    void operate() {
        long start = System.nanoTime();
        long sweep = shared.options().valueSizeSweepNanos;
        while (!shared.stop().get()) {
            if (sweep > 0) {
                windowStart = shared.sizes().windowStart(System.nanoTime() - start, sweep);
            }
            for (int b = 0; b < PUBLISH_EVERY; b++) {
                operateOnce();
            }
            publish();
        }
        while (pinned.size() > 0) {
            releaseOldest(false);
        }
    }

    /**
     * One operation: the key, one random number for the kind and one for the variants (read
     * mode, extra reference, byte[] API, priority), then trimming the FIFO to this thread's pins.
     */
    private void operateOnce() {
        SoakOptions o = shared.options();
        nextKey(o);
        long k0 = gen.key0();
        long k1 = gen.key1();
        long op = rnd.next();
        long aux = rnd.next();
        boolean viaArray = percentile(aux) < o.byteArrayPercent;
        boolean takeRef = percentile(aux >>> 16) < o.refPercent;
        int readMode = viaArray ? SoakValues.READ_ARRAY
                : ((aux >>> 32) & 3) == 0 ? SoakValues.READ_VIEW : SoakValues.READ_COPY;
        Priority priority = PRIORITIES[(int) ((aux >>> 40) & 3)];
        dispatch(op, k0, k1, viaArray, takeRef, readMode, priority);
        counts[OPS]++;
        int releaseErasePct = (int) o.releaseErasePercent;
        while (pinned.size() > pinCount) {
            releaseOldest(releaseErasePct > 0 && percentile(rnd.next()) < releaseErasePct);
        }
    }

    /**
     * Encodes the next key: a random one, or with {@code -value_size_sweep} the first of up to
     * {@value #SWEEP_TRIES} random ones whose size is in the window.
     */
    private void nextKey(SoakOptions o) {
        SoakValues.Sizes sizes = shared.sizes();
        for (int i = 0; ; i++) {
            gen.encode(KeyGen.randomKey(rnd, shared.maxKey(), o.workload.skew));
            if (windowStart < 0 || i == SWEEP_TRIES) {
                return;
            }
            int c = sizes.classOf(gen.key0(), gen.key1());
            if (c >= windowStart && c < windowStart + sizes.windowWidth()) {
                return;
            }
        }
    }

    private void dispatch(long op, long k0, long k1, boolean viaArray, boolean takeRef,
                          int readMode, Priority priority) {
        long[] t = shared.thresholds();
        if (Long.compareUnsigned(op, t[0]) < 0) {
            if (!lookupAndPin(k0, k1, readMode, takeRef)) {
                insertAndPin(k0, k1, viaArray, readMode, priority);
            }
        } else if (Long.compareUnsigned(op, t[1]) < 0) {
            insertAndPin(k0, k1, viaArray, readMode, priority);
        } else if (Long.compareUnsigned(op, t[2]) < 0) {
            blindInsert(k0, k1, viaArray, priority);
        } else if (Long.compareUnsigned(op, t[3]) < 0) {
            lookupAndPin(k0, k1, readMode, takeRef);
        } else if (Long.compareUnsigned(op, t[4]) < 0) {
            counts[ERASE]++;
            if (cache.erase(k0, k1)) {
                counts[ERASE_FOUND]++;
            }
        }
        // else: one of the 15 values above 100 hundredths of UINT64_MAX, a no-op
    }

    /** 0..99 from the low 16 bits. */
    private static int percentile(long bits) {
        return (int) (((bits & 0xFFFF) * 100) >>> 16);
    }

    /** A lookup; a hit is checked and pinned. Returns whether it hit. */
    private boolean lookupAndPin(long k0, long k1, int readMode, boolean takeRef) {
        counts[LOOKUPS]++;
        long h = cache.lookup(k0, k1);
        if (h == Cache.MISS) {
            return false;
        }
        counts[HITS]++;
        checkAndPin(h, k0, k1, readMode, takeRef, AT_HIT);
        return true;
    }

    private void blindInsert(long k0, long k1, boolean viaArray, Priority priority) {
        MemorySegment v = values.next(rnd, k0, k1, viaArray);
        long charge = v.byteSize();
        boolean accepted = viaArray
                ? cache.insert(k0, k1, values.array(), 0, (int) charge, charge, priority)
                : cache.insert(k0, k1, v, charge, priority);
        counts[INSERT]++;
        if (viaArray) {
            counts[ARRAY_INSERT]++;
        }
        if (!accepted) {
            counts[REFUSED]++;
        }
    }

    private void insertAndPin(long k0, long k1, boolean viaArray, int readMode,
                              Priority priority) {
        MemorySegment v = values.next(rnd, k0, k1, viaArray);
        long charge = v.byteSize();
        long h = viaArray
                ? cache.insertPinned(k0, k1, values.array(), 0, (int) charge, charge, priority)
                : cache.insertPinned(k0, k1, v, charge, priority);
        counts[INSERT_PINNED]++;
        if (viaArray) {
            counts[ARRAY_INSERT]++;
        }
        if (h == Cache.MISS) {
            counts[REFUSED]++;
            return;
        }
        checkAndPin(h, k0, k1, readMode, false, AT_INSERT);
    }

    private void checkAndPin(long h, long k0, long k1, int readMode, boolean takeRef,
                             int place) {
        check(h, k0, k1, readMode, place);
        pinned.push(h, k0, k1);
        if (takeRef) {
            cache.ref(h);
            counts[REF]++;
            pinned.push(h, k0, k1);
        }
    }

    private void releaseOldest(boolean eraseIfLastRef) {
        check(pinned.peek(), pinned.headKey0(), pinned.headKey1(), (int) (counts[RELEASE] % 3),
                AT_RELEASE);
        long h = pinned.pop();
        counts[RELEASE]++;
        if (eraseIfLastRef) {
            counts[RELEASE_ERASE]++;
        }
        if (cache.release(h, eraseIfLastRef)) {
            counts[FREED]++;
        }
    }

    private void check(long h, long k0, long k1, int readMode, int place) {
        counts[CHECKS]++;
        counts[READ_COPY + readMode]++;
        int result = values.check(cache, h, k0, k1, readMode);
        if (result != SoakValues.OK) {
            counts[FAILURES + result - 1]++;
            publishedFailures = SoakCounters.failures(counts);
            describeFailure(h, k0, k1, readMode, place, result);
        }
    }

    private void describeFailure(long h, long k0, long k1, int readMode, int place, int result) {
        if (shared.failuresReported().incrementAndGet() > shared.options().maxFailureReports) {
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
        PrintWriter err = shared.err();
        synchronized (err) {
            err.printf("clockwork soak: value check failed (%s) in thread %d after %d ops, at %s,"
                            + " read with %s: key (0x%016x, 0x%016x), handle 0x%x, valueSize %s,"
                            + " charge %s, expected size and charge %d%n",
                    SoakValues.RESULT_NAMES[result], tid, counts[OPS], PLACES[place],
                    SoakValues.READ_NAMES[readMode], k0, k1, h, size, charge,
                    shared.sizes().sizeOf(k0, k1));
            err.flush();
        }
    }
}
