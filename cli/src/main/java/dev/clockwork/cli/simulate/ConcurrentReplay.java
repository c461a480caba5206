package dev.clockwork.cli.simulate;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Replays a trace through one concurrent policy from several threads at once ({@code -threads}):
 * the threads share the trace and claim its accesses in order from one shared cursor,
 * {@value #BATCH} at a time, each doing what {@link Replay} does (look up; on a miss insert). So
 * the cache sees the trace's order but for the reordering within the batches in flight (at most
 * threads x {@value #BATCH} accesses apart), and the threads contend as an application's would:
 * on the LRU shard's lock, the clock's slots, and the admission's lossy access buffers, which
 * drop records when another thread holds the sketch.
 *
 * <p>Trade-off: a claim is one atomic add per {@value #BATCH} accesses, small next to the
 * accesses; a smaller batch keeps the order closer to the trace's but has the threads contend on
 * the cursor instead of the cache. The threads start together (a latch), so none replays a
 * large part of the trace alone while the others are created.
 */
final class ConcurrentReplay {
    /** Accesses a thread claims at a time. */
    static final int BATCH = 64;

    private ConcurrentReplay() {
    }

    /**
     * Makes a policy for {@code trace} at {@code capacity}, replays the trace through it from
     * {@code threads} threads and closes it.
     */
    static SimResult run(Trace trace, long capacity, boolean bytes, String policyName,
                         PolicyFactory factory, int threads, Progress progress) {
        try (SimPolicy policy = factory.create(trace, capacity, bytes)) {
            long hits = replay(trace, bytes, policy, threads, progress,
                    trace.name() + " capacity " + capacity + " " + policyName + " " + threads
                            + " threads");
            return new SimResult(trace.name(), capacity, bytes, policyName,
                    trace.measuredCount(), hits, threads, policy.admissionRejects(), null);
        }
    }

    /** The hits among measured accesses, as {@link Replay#replay} counts them. */
    static long replay(Trace trace, boolean bytes, SimPolicy policy, int threads,
                       Progress progress, String what) {
        AtomicLong cursor = new AtomicLong();
        LongAdder hits = new LongAdder();
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>(threads);
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    hits.add(replayClaims(trace, bytes, policy, cursor, progress, what));
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "simulate-" + t);
            workers.add(worker);
            worker.start();
        }
        start.countDown();
        joinAll(workers);
        Throwable e = failure.get();
        if (e instanceof RuntimeException r) {
            throw r;
        }
        if (e instanceof Error error) {
            throw error;
        }
        if (e != null) {
            throw new IllegalStateException("a replay thread failed", e);
        }
        return hits.sum();
    }

    /** One thread's part: claims batches until the trace is done; its measured hits. */
    private static long replayClaims(Trace trace, boolean bytes, SimPolicy policy,
                                     AtomicLong cursor, Progress progress, String what) {
        int n = trace.length();
        long hits = 0;
        for (;;) {
            // a long: each thread adds once more past n, which may be near Integer.MAX_VALUE
            long claim = cursor.getAndAdd(BATCH);
            if (claim >= n) {
                return hits;
            }
            int from = (int) claim;
            int to = (int) Math.min(n, claim + BATCH);
            for (int i = from; i < to; i++) {
                boolean hit = policy.access(trace.key(i), bytes ? trace.size(i) : 1);
                if (hit && trace.isMeasured(i)) {
                    hits++;
                }
            }
            // CHECK_EVERY is a multiple of BATCH: one claim in CHECK_EVERY ends on one
            if ((to & (Progress.CHECK_EVERY - 1)) == 0) {
                synchronized (progress) {
                    progress.maybeReport(what, to, n);
                }
            }
        }
    }

    private static void joinAll(List<Thread> workers) {
        boolean interrupted = false;
        for (Thread worker : workers) {
            while (true) {
                try {
                    worker.join();
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
}
