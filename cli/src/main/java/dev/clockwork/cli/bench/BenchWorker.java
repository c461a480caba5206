package dev.clockwork.cli.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.caches.BenchTarget;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.LatencyStats;
import dev.clockwork.cli.workload.PinnedFifo;
import dev.clockwork.cli.workload.Random64;
import dev.clockwork.cli.workload.ValueGen;
import dev.clockwork.cli.workload.ValueStamp;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.locks.LockSupport;

/**
 * One bench worker thread: its state (made by the main thread before the threads start), its
 * {@code ops_per_thread} operations ({@link BenchRun} describes one) and its results, which the
 * main thread reads after joining it. Only {@link #done} is read while the thread runs.
 */
final class BenchWorker {
    private static final double UINT64_MAX_AS_DOUBLE = 0x1.0p64; // (double) UINT64_MAX
    /** Ops between two updates of {@link #done} (a power of two). */
    private static final long PROGRESS_STEP = 4096;
    /**
     * With -duration and -vary_capacity_ratio, the ops_per_thread that paces the capacity
     * changes (a change every hundredth of it), as there is no ops_per_thread to divide.
     */
    private static final long TIMED_OPS_PER_CAPACITY_CYCLE = 1_000_000;
    /** Held by the worker that ends the process with -early_exit, so that only one does. */
    private static final Object EARLY_EXIT_LOCK = new Object();

    final int tid;
    /** Per operation kind ({@link OpLatency}); null without -histograms. */
    final LatencyStats[] latency;
    final ValueGen values;
    long hits;
    long misses;
    long pinnedAtEnd;
    long refusedInserts;
    long verifyFailures;
    /** The sum of the value hashes, published so that the hashing cannot be dropped. */
    long result;
    long durationNanos;
    /** With -histograms: this thread's slowest operation, when it started and its kind. */
    long slowestNanos;
    long slowestAtNanos;
    int slowestKind;
    /** The thread stopped at a stop request (SIGTERM, Ctrl-C) before its ops or time ran out. */
    boolean stopped;
    Throwable failure;
    /**
     * Ops done so far: published every {@link #PROGRESS_STEP} ops for the progress line, exact
     * once the thread is done (less than ops_per_thread when it was stopped).
     */
    volatile long done;

    private final BenchOptions o;
    private final BenchTarget target;
    private final BenchTarget.Session session;
    /** The Clockwork cache for -verify_values' checks (which peers refuse), else null. */
    private final Cache cache;
    private final boolean pins;
    private final RunStop stop;
    private final PrintWriter out;
    private final PrintWriter err;
    private final int pinCount;
    private final Random64 rnd;
    private final PinnedFifo pinned;
    private final KeyGen gen;
    private final MemorySegment scratch;
    private final long[] thresholds;
    private final long maxKey;
    private final boolean sizeMix;
    private long stepsToNextCapacityChange;
    /** The next key number of this thread's scan, and how many it has left to read. */
    private long scanNext;
    private long scanLeft;

    BenchWorker(int tid, int pinCount, long seed, BenchOptions o, BenchTarget target,
                RunStop stop, PrintWriter out, PrintWriter err) {
        this.tid = tid;
        this.pinCount = pinCount;
        this.rnd = new Random64((seed + 1 + tid) & 0xFFFF_FFFFL); // uint32 arithmetic
        this.latency = o.histograms ? newStats() : null;
        this.values = new ValueGen(o.maxValueBytes(), o.compressibleToRatio, o.verifyValues);
        this.pinned = new PinnedFifo(pinCount, o.verifyValues);
        this.o = o;
        this.target = target;
        this.session = target.session();
        this.cache = target.clockwork();
        this.pins = target.pins();
        this.stop = stop;
        this.out = out;
        this.err = err;
        this.gen = o.fileKeys != 0
                ? KeyGen.fileKeys(o.maxKey(), o.fileKeys, o.valueBytes)
                : new KeyGen(o.degenerateHashBits, CacheFactory.hashSeedFor(seed));
        this.scratch = values.scratch();
        this.thresholds = o.opMix().thresholds();
        this.maxKey = o.maxKey();
        this.sizeMix = o.maxValueBytes() != o.valueBytes;
    }

    private static LatencyStats[] newStats() {
        LatencyStats[] stats = new LatencyStats[OpLatency.NAMES.length];
        for (int kind = 0; kind < stats.length; kind++) {
            stats[kind] = new LatencyStats();
        }
        return stats;
    }

    /** The thread's body: waits for the others at the barrier, then operates. */
    void run(CyclicBarrier barrier) {
        try {
            barrier.await();
            operate();
        } catch (Throwable t) {
            failure = t;
        }
    }

    private void operate() {
        final boolean timed = o.duration > 0;
        final long ops = timed ? Long.MAX_VALUE : o.opsPerThread;
        final boolean varyCapacity = o.cache.varyCapacityRatio > 0.0 && tid == 0;
        final long startTime = System.nanoTime();
        final long timedNanos = (long) (o.duration * 1e9);
        long i = 0;
        for (; i < ops; i++) {
            if ((i & (PROGRESS_STEP - 1)) == 0) {
                // a volatile write and read every PROGRESS_STEP ops: progress, and the stop
                done = i;
                if (stop.requested()) {
                    stopped = true;
                    break;
                }
                if (timed && System.nanoTime() - startTime >= timedNanos) {
                    break;
                }
            }
            long key = KeyGen.randomKey(rnd, maxKey, o.workload.skew);
            final long op = rnd.next();
            if (Long.compareUnsigned(op, thresholds[4]) >= 0
                    && Long.compareUnsigned(op, thresholds[5]) < 0) {
                key = nextScanKey();
            }
            gen.encode(key);
            final long k0 = gen.key0();
            final long k1 = gen.key1();
            final int size = sizeMix ? o.valueBytesOf(key) : (int) o.valueBytes;
            if (varyCapacity) {
                varyCapacity(timed ? TIMED_OPS_PER_CAPACITY_CYCLE : ops);
            }
            final long t0 = latency != null ? System.nanoTime() : 0L;
            final int kind = operateOnce(op, k0, k1, size);
            if (latency != null) {
                long took = System.nanoTime() - t0;
                latency[kind].record(took);
                if (took > slowestNanos) {
                    slowestNanos = took;
                    slowestAtNanos = t0 - startTime;
                    slowestKind = kind;
                }
            }
            if (o.usleep > 0) {
                long us = rnd.uniform(o.usleep + 1);
                if (us > 0) {
                    LockSupport.parkNanos(us * 1000);
                }
            }
            while (pinned.size() > pinCount) {
                releaseOldest();
            }
        }
        done = i;
        if (o.earlyExit && !stopped) { // all its ops done, or its time up
            exitEarly();
        }
        pinnedAtEnd = pinned.size();
        while (pinned.size() > 0) {
            releaseOldest();
        }
        durationNanos = System.nanoTime() - startTime;
    }

    /**
     * The key number of this thread's next scan step; a new scan from a random start when one ends.
     */
    private long nextScanKey() {
        if (scanLeft == 0) {
            scanNext = rnd.uniform(maxKey);
            scanLeft = o.scanLength;
        }
        long key = scanNext;
        scanNext = scanNext + 1 == maxKey ? 0 : scanNext + 1;
        scanLeft--;
        return key;
    }

    /** Thread 0 with -vary_capacity_ratio: a random capacity every ops_per_thread/100 ops. */
    private void varyCapacity(long ops) {
        if (stepsToNextCapacityChange == 0) {
            double cutRatio = Random64.unsignedToDouble(rnd.next()) / UINT64_MAX_AS_DOUBLE
                    * o.cache.varyCapacityRatio;
            target.setCapacity((long) (o.cache.cacheSize * (1.0 - cutRatio)));
            stepsToNextCapacityChange = ops / 100;
        } else {
            stepsToNextCapacityChange--;
        }
    }

    /** The timed part of one operation; returns its kind ({@link OpLatency}). */
    private int operateOnce(long op, long k0, long k1, int size) {
        if (Long.compareUnsigned(op, thresholds[0]) < 0) {
            if (!lookup(k0, k1)) {
                insertPinned(k0, k1, size);
            }
            return OpLatency.LOOKUP_INSERT;
        } else if (Long.compareUnsigned(op, thresholds[1]) < 0) {
            insertPinned(k0, k1, size);
            return OpLatency.INSERT;
        } else if (Long.compareUnsigned(op, thresholds[2]) < 0) {
            if (!session.insert(k0, k1, value(k0, k1, size), size)) {
                refusedInserts++;
            }
            return OpLatency.BLIND_INSERT;
        } else if (Long.compareUnsigned(op, thresholds[3]) < 0) {
            lookup(k0, k1);
            return OpLatency.LOOKUP;
        } else if (Long.compareUnsigned(op, thresholds[4]) < 0) {
            session.erase(k0, k1);
            return OpLatency.ERASE;
        } else if (Long.compareUnsigned(op, thresholds[5]) < 0) {
            if (!lookup(k0, k1)) {
                insertPinned(k0, k1, size);
            }
            return OpLatency.SCAN;
        }
        return OpLatency.NO_OP; // one of the values above 100 hundredths of UINT64_MAX
    }

    /**
     * A lookup; a hit counts, checks its value with -verify_values or else hashes it unless
     * -lean, and is pinned; a miss counts. Returns whether it hit.
     */
    private boolean lookup(long k0, long k1) {
        long handle = session.lookup(k0, k1);
        if (handle == Cache.MISS) {
            misses++;
            return false;
        }
        hits++;
        if (o.verifyValues) {
            if (!ValueStamp.check(cache, handle, k0, k1, scratch)) {
                verifyFailures++;
            }
        } else if (!o.lean) {
            result += session.hashValue(handle);
        }
        if (pins) {
            pinned.push(handle, k0, k1);
        }
        return true;
    }

    private void insertPinned(long k0, long k1, int size) {
        long inserted = session.insertPinned(k0, k1, value(k0, k1, size), size);
        if (inserted == Cache.MISS) {
            refusedInserts++;
        } else if (pins) {
            pinned.push(inserted, k0, k1);
        }
    }

    /** A new value of {@code size} bytes for the key (one of -value_bytes_mix, or -value_bytes). */
    private MemorySegment value(long k0, long k1, int size) {
        return sizeMix ? values.next(rnd, k0, k1, size) : values.next(rnd, k0, k1);
    }

    /**
     * Releases the oldest pinned handle; with -verify_values, first checks its value against the
     * key it was pinned under.
     */
    private void releaseOldest() {
        if (o.verifyValues && !ValueStamp.check(cache, pinned.peek(), pinned.headKey0(),
                pinned.headKey1(), scratch)) {
            verifyFailures++;
        }
        session.release(pinned.pop());
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
}
