package dev.clockwork.offheap.load;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One load of one key in flight: the caller running its loader (the starter), the callers
 * waiting to share its result, and the result once there.
 *
 * <p>Two phases, each under its own lock. While the load is linked in its {@link InFlightLoads}
 * stripe, callers join it under the stripe's lock: a synchronous caller is counted
 * ({@link #syncWaiters}), an asynchronous one leaves its future ({@link #asyncWaiters}). The
 * starter unlinks it ({@link InFlightLoads#unlink}) once the value is stored, and from then on
 * both are frozen: the starter takes one reference on the entry per counted waiter, and
 * publishes the outcome under this object's monitor ({@link #complete}), which wakes the
 * waiters; each takes the handle with the reference taken for it, or the failure.
 */
public final class Load {
    final long h0;
    final long h1;
    /** The next load of the same stripe; guarded by the stripe's lock. */
    Load next;
    /** Whether the load is in its stripe's chain, where callers can join it; stripe's lock. */
    boolean linked;
    /** Synchronous callers waiting, each owed a reference; stripe's lock, frozen on unlink. */
    int syncWaiters;
    /** Asynchronous callers' futures (the starter's too, if asynchronous); as above. */
    List<CompletableFuture<byte[]>> asyncWaiters;
    /**
     * The thread running the loader's code for this load now (the whole synchronous load and its
     * store, an asynchronous loader's {@code load} call, or its store), else null. A caller of
     * the same key on that thread is the loader calling back: it is refused, where waiting would
     * wait for itself. Written by the thread it names (and cleared by it); read by joiners under
     * the stripe's lock and only compared with the joiner's own thread, which a stale read cannot
     * make equal (a thread sees its own writes in order): volatile so that clears are seen soon.
     */
    volatile Thread loaderThread;

    // The outcome: guarded by this.
    private boolean done;
    private long handle;
    private Throwable failure;

    Load(long h0, long h1, Thread starter) {
        this.h0 = h0;
        this.h1 = h1;
        this.loaderThread = starter;
    }

    /**
     * Whether the calling thread started this load (as {@link InFlightLoads#join} made it) and
     * is still running its loader's code.
     */
    public boolean startedByCaller() {
        return loaderThread == Thread.currentThread();
    }

    /**
     * The calling thread stores this load's value (an asynchronous load, on the thread that
     * completed the loader's future): a get-or-load of the key from there, by a policy the store
     * asks, is refused as the loader's own would be.
     */
    public void storingOnCaller() {
        loaderThread = Thread.currentThread();
    }

    /** The loader code (or the store) has returned: later calls on the thread may wait. */
    public void loaderReturned() {
        loaderThread = null;
    }

    void addAsyncWaiter(CompletableFuture<byte[]> future) {
        if (asyncWaiters == null) {
            asyncWaiters = new ArrayList<>(2);
        }
        asyncWaiters.add(future);
    }

    /**
     * The asynchronous waiters, frozen by {@link InFlightLoads#unlink}: for the thread that
     * unlinked the load (the stripe's lock ordered every join before it).
     */
    public List<CompletableFuture<byte[]>> asyncWaiters() {
        return asyncWaiters == null ? List.of() : asyncWaiters;
    }

    /** Publishes the outcome and wakes the synchronous waiters; once. */
    public synchronized void complete(long handle, Throwable failure) {
        assert !done : "a load completes once";
        this.handle = handle;
        this.failure = failure;
        this.done = true;
        notifyAll();
    }

    /**
     * Waits up to {@code millis} (0: until done) for the outcome; returns whether it is there.
     * Not interruptible: an interrupt is kept for the caller to see afterwards (the load goes on
     * for the other callers, and this caller is owed its reference).
     */
    public synchronized boolean awaitDone(long millis) {
        boolean interrupted = false;
        long deadline = millis == 0 ? 0 : System.nanoTime() + millis * 1_000_000L;
        try {
            while (!done) {
                long left = millis == 0 ? 0 : (deadline - System.nanoTime()) / 1_000_000L;
                if (millis != 0 && left <= 0) {
                    return false;
                }
                try {
                    wait(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The handle, with a reference for the caller; {@code 0} if the load failed. */
    public synchronized long handle() {
        return handle;
    }

    /** What the load failed with, or null. */
    public synchronized Throwable failure() {
        return failure;
    }
}
