package dev.clockwork.offheap.load;

import java.util.concurrent.CompletableFuture;

/**
 * The loads in flight of one cache, keyed by the hashed key: what makes concurrent misses of a
 * key load once. A fixed array of stripes, each a chain of the loads whose {@code h0} falls in
 * it, guarded by the stripe's own lock.
 *
 * <p>Small on purpose: loads in flight are few (about one per thread, plus the asynchronous ones
 * waiting for I/O), so a chain is short, and a stripe's lock is held for a walk of it. Nothing is
 * allocated but the {@link Load} a miss starts (and a waiter list when an asynchronous caller
 * joins), and nothing at all on a hit, which never comes here. The stripe of a key is taken from
 * the bits of {@code h0} that choose no shard (its low bits), so that the keys of one shard
 * spread over every stripe.
 */
public final class InFlightLoads {
    private static final int STRIPES = 64;

    private final Load[] heads = new Load[STRIPES];
    private final Object[] locks = new Object[STRIPES];

    public InFlightLoads() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new Object();
        }
    }

    private static int stripe(long h0) {
        return (int) h0 & (STRIPES - 1);
    }

    /**
     * Joins the load of the key in flight, or starts one. A synchronous caller
     * ({@code asyncWaiter} null) is counted as a waiter owed a reference; an asynchronous one
     * leaves its future. A new load is linked with the calling thread as its starter: the caller
     * tells the two cases apart by {@link Load#startedByCaller()}.
     *
     * @throws IllegalStateException if the calling thread is running this key's loader: a loader
     *     that asks for the key it is loading would wait for itself
     */
    public Load join(long h0, long h1, CompletableFuture<byte[]> asyncWaiter) {
        int s = stripe(h0);
        synchronized (locks[s]) {
            for (Load l = heads[s]; l != null; l = l.next) {
                if (l.h0 == h0 && l.h1 == h1) {
                    if (l.startedByCaller()) {
                        throw new IllegalStateException("a loader must not load the key it is"
                                + " loading: it would wait for itself");
                    }
                    if (asyncWaiter == null) {
                        l.syncWaiters++;
                    } else {
                        l.addAsyncWaiter(asyncWaiter);
                    }
                    return l;
                }
            }
            Load load = new Load(h0, h1, Thread.currentThread());
            if (asyncWaiter != null) {
                load.addAsyncWaiter(asyncWaiter);
            }
            load.next = heads[s];
            load.linked = true;
            heads[s] = load;
            return load;
        }
    }

    /**
     * Takes the load out of its stripe, after its value is stored (so that a caller who comes
     * later finds the value in the cache, not the load), and freezes its waiters: returns how
     * many synchronous waiters are owed a reference. {@link Load#asyncWaiters()} is frozen too.
     */
    public int unlink(Load load) {
        int s = stripe(load.h0);
        synchronized (locks[s]) {
            Load prev = null;
            for (Load l = heads[s]; l != null; prev = l, l = l.next) {
                if (l == load) {
                    if (prev == null) {
                        heads[s] = l.next;
                    } else {
                        prev.next = l.next;
                    }
                    break;
                }
            }
            load.next = null;
            load.linked = false;
            return load.syncWaiters;
        }
    }

    /**
     * A synchronous waiter gives up (the cache was closed): if the load is still linked it no
     * longer counts the waiter, and returns true; false if it was unlinked already, and so a
     * reference is or will be taken for the waiter (the caller waits for it and lets it go).
     */
    public boolean leave(Load load) {
        synchronized (locks[stripe(load.h0)]) {
            if (!load.linked) {
                return false;
            }
            load.syncWaiters--;
            return true;
        }
    }

    /** Loads in flight now, for tests: none once every caller has returned. */
    public int inFlight() {
        int n = 0;
        for (int s = 0; s < STRIPES; s++) {
            synchronized (locks[s]) {
                for (Load l = heads[s]; l != null; l = l.next) {
                    n++;
                }
            }
        }
        return n;
    }
}
