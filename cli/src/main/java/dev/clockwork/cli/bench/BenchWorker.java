package dev.clockwork.cli.bench;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.locks.LockSupport;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.common.RunStop;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.cli.workload.LatencyStats;
import dev.clockwork.cli.workload.PinnedFifo;
import dev.clockwork.cli.workload.Random64;
import dev.clockwork.cli.workload.ValueGen;
import dev.clockwork.cli.workload.ValueHash;
import dev.clockwork.cli.workload.ValueStamp;

/**
 * One bench worker thread: its state (made by the main thread before the threads start), its
 * {@code ops_per_thread} operations ({@link BenchRun} describes one) and its results, which the
 * main thread reads after joining it. Only {@link #done} is read while the thread runs.
 */
final class BenchWorker {
    private static final double UINT64_MAX_AS_DOUBLE = 0x1.0p64; // (double) UINT64_MAX
    /** Ops between two updates of {@link #done} (a power of two). */
    private static final long PROGRESS_STEP = 4096;
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
    Throwable failure;
    /**
     * Ops done so far: published every {@link #PROGRESS_STEP} ops for the progress line, exact
     * once the thread is done (less than ops_per_thread when it was stopped).
     */
    volatile long done;

    private final BenchOptions o;
    private final Cache cache;
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
    private final long charge;
    private long stepsToNextCapacityChange;

    BenchWorker(int tid, int pinCount, long seed, BenchOptions o, Cache cache, RunStop stop,
                PrintWriter out, PrintWriter err) {
        this.tid = tid;
        this.pinCount = pinCount;
        this.rnd = new Random64((seed + 1 + tid) & 0xFFFF_FFFFL); // uint32 arithmetic
        this.latency = o.histograms ? newStats() : null;
        this.values = new ValueGen((int) o.valueBytes, o.compressibleToRatio, o.verifyValues);
        this.pinned = new PinnedFifo(pinCount, o.verifyValues);
        this.o = o;
        this.cache = cache;
        this.stop = stop;
        this.out = out;
        this.err = err;
        this.gen = o.fileKeys != 0
                ? KeyGen.fileKeys(o.maxKey(), o.fileKeys, o.valueBytes)
                : new KeyGen(o.degenerateHashBits, CacheFactory.hashSeedFor(seed));
        this.scratch = values.scratch();
        this.thresholds = o.opMix().thresholds();
        this.maxKey = o.maxKey();
        this.charge = o.valueBytes;
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
        final long ops = o.opsPerThread;
        final boolean varyCapacity = o.varyCapacityRatio > 0.0 && tid == 0;
        final long startTime = System.nanoTime();
        long i = 0;
        for (; i < ops; i++) {
            if ((i & (PROGRESS_STEP - 1)) == 0) {
                // a volatile write and read every PROGRESS_STEP ops: progress, and the stop
                done = i;
                if (stop.requested()) {
                    break;
                }
            }
            gen.encode(KeyGen.randomKey(rnd, maxKey, o.skew));
            final long k0 = gen.key0();
            final long k1 = gen.key1();
            final long op = rnd.next();
            if (varyCapacity) {
                varyCapacity(ops);
            }
            final long t0 = latency != null ? System.nanoTime() : 0L;
            final int kind = operateOnce(op, k0, k1);
            if (latency != null) {
                latency[kind].record(System.nanoTime() - t0);
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
        if (o.earlyExit && i == ops) {
            exitEarly();
        }
        pinnedAtEnd = pinned.size();
        while (pinned.size() > 0) {
            releaseOldest();
        }
        durationNanos = System.nanoTime() - startTime;
    }

    /** Thread 0 with -vary_capacity_ratio: a random capacity every ops_per_thread/100 ops. */
    private void varyCapacity(long ops) {
        if (stepsToNextCapacityChange == 0) {
            double cutRatio = Random64.unsignedToDouble(rnd.next()) / UINT64_MAX_AS_DOUBLE
                    * o.varyCapacityRatio;
            cache.setCapacity((long) (o.cacheSize * (1.0 - cutRatio)));
            stepsToNextCapacityChange = ops / 100;
        } else {
            stepsToNextCapacityChange--;
        }
    }

    /** The timed part of one operation; returns its kind ({@link OpLatency}). */
    private int operateOnce(long op, long k0, long k1) {
        if (Long.compareUnsigned(op, thresholds[0]) < 0) {
            if (!lookup(k0, k1)) {
                insertPinned(k0, k1);
            }
            return OpLatency.LOOKUP_INSERT;
        } else if (Long.compareUnsigned(op, thresholds[1]) < 0) {
            insertPinned(k0, k1);
            return OpLatency.INSERT;
        } else if (Long.compareUnsigned(op, thresholds[2]) < 0) {
            if (!cache.insert(k0, k1, values.next(rnd, k0, k1), charge, Priority.LOW)) {
                refusedInserts++;
            }
            return OpLatency.BLIND_INSERT;
        } else if (Long.compareUnsigned(op, thresholds[3]) < 0) {
            lookup(k0, k1);
            return OpLatency.LOOKUP;
        } else if (Long.compareUnsigned(op, thresholds[4]) < 0) {
            cache.erase(k0, k1);
            return OpLatency.ERASE;
        }
        return OpLatency.NO_OP; // one of the values above 100 hundredths of UINT64_MAX
    }

    /**
     * A lookup; a hit counts, checks its value with -verify_values or else hashes it unless
     * -lean, and is pinned; a miss counts. Returns whether it hit.
     */
    private boolean lookup(long k0, long k1) {
        long handle = cache.lookup(k0, k1);
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
            result += ValueHash.hash(cache.value(handle));
        }
        pinned.push(handle, k0, k1);
        return true;
    }

    private void insertPinned(long k0, long k1) {
        long inserted = cache.insertPinned(k0, k1, values.next(rnd, k0, k1), charge,
                Priority.LOW);
        if (inserted != Cache.MISS) {
            pinned.push(inserted, k0, k1);
        } else {
            refusedInserts++;
        }
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
        cache.release(pinned.pop());
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
