package dev.clockwork.offheap;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a few actors at the same moment, round after round, on threads kept for the whole test
 * (starting threads per round would spread the actors' starts over tens of microseconds and rarely
 * race them). Actor 0 runs on the caller; the others on daemon workers that spin (yielding now and
 * then: the machine may have two cores) until a round is released. A round that does not finish
 * within {@link #HANG_SECONDS} fails as a hang (an actor looping forever in the cache, as a cyclic
 * chain would make it); its workers are left behind as daemons.
 *
 * <p>{@link #together} runs free-running loops on fresh threads with the same hang check.
 */
final class LockstepRace implements AutoCloseable {
    static final long HANG_SECONDS = 30;
    private static final int SPINS_BEFORE_YIELD = 256;

    private final Thread[] workers;
    private final AtomicInteger ready = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile Runnable[] actors;
    private volatile long round;
    private volatile long go;
    private volatile boolean closed;

    /** A race of {@code actors} actors: the caller and {@code actors - 1} workers. */
    LockstepRace(int actors) {
        workers = new Thread[actors - 1];
        for (int i = 0; i < workers.length; i++) {
            int index = i + 1;
            workers[i] = new Thread(() -> work(index), "lockstep-actor-" + index);
            workers[i].setDaemon(true);
            workers[i].start();
        }
    }

    private void work(int index) {
        long seen = 0;
        while (true) {
            long r;
            for (int spins = 0; (r = round) == seen; spins++) {
                if (closed) {
                    return;
                }
                pause(spins);
            }
            seen = r;
            ready.incrementAndGet();
            for (int spins = 0; go != r; spins++) {
                pause(spins);
            }
            runActor(actors[index]);
            done.incrementAndGet();
        }
    }

    private static void pause(int spins) {
        if (spins % SPINS_BEFORE_YIELD == SPINS_BEFORE_YIELD - 1) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    private void runActor(Runnable actor) {
        try {
            actor.run();
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    /**
     * Runs one round: every actor once, all released together; returns when all are done and
     * rethrows the first actor's failure (wrapped in an {@link AssertionError}).
     */
    void run(Runnable... roundActors) {
        if (roundActors.length != workers.length + 1) {
            throw new IllegalArgumentException("expected " + (workers.length + 1) + " actors");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
        ready.set(0);
        done.set(0);
        actors = roundActors;
        long r = ++round;
        for (int spins = 0; ready.get() != workers.length; spins++) {
            checkDeadline(deadline, "start");
            pause(spins);
        }
        go = r;
        runActor(roundActors[0]);
        for (int spins = 0; done.get() != workers.length; spins++) {
            checkDeadline(deadline, "end");
            pause(spins);
        }
        Throwable t = failure.getAndSet(null);
        if (t != null) {
            throw new AssertionError("an actor failed in round " + r + ": " + t, t);
        }
    }

    private void checkDeadline(long deadline, String what) {
        if (System.nanoTime() - deadline > 0) {
            throw new AssertionError("HANG: a round did not reach its " + what + " within "
                    + HANG_SECONDS + " s (an actor is stuck in the cache)");
        }
    }

    /** Spins {@code waits} times: an actor's delay, to vary the actors' offset round by round. */
    static void stagger(int waits) {
        for (int i = 0; i < waits; i++) {
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        closed = true;
    }

    /**
     * Runs each loop on its own daemon thread, all started together, and waits for them; fails
     * with the first loop's failure, or as a hang if one has not finished within
     * {@code seconds}.
     */
    static void together(long seconds, Runnable... loops) throws InterruptedException {
        AtomicReference<Throwable> first = new AtomicReference<>();
        Thread[] threads = new Thread[loops.length];
        for (int i = 0; i < loops.length; i++) {
            Runnable loop = loops[i];
            threads[i] = new Thread(() -> {
                try {
                    loop.run();
                } catch (Throwable t) {
                    first.compareAndSet(null, t);
                }
            }, "together-" + i);
            threads[i].setDaemon(true);
        }
        for (Thread t : threads) {
            t.start();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            if (t.isAlive()) {
                throw new AssertionError("HANG: " + t.getName() + " did not finish within "
                        + seconds + " s (stuck in the cache?); its stack: "
                        + Arrays.toString(t.getStackTrace()));
            }
        }
        Throwable t = first.get();
        if (t != null) {
            throw new AssertionError("a thread failed: " + t, t);
        }
    }
}
