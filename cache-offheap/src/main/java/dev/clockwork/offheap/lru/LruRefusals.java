package dev.clockwork.offheap.lru;

import dev.clockwork.offheap.context.CallbackGuard;

/**
 * Why an LRU shard's operations must not start now: the shard is closed, or a user callback runs
 * with its lock held (a visitor, or an admission policy being asked). Apart from {@link LruShard}
 * because it is one concept, the shard's close and re-entry protocol, that every operation asks
 * first and that the visit and the admission window set: one int, so that refusing re-entry from
 * a callback costs the operations nothing beyond the closed check they make anyway.
 *
 * <p>Read and written under the shard's lock only. {@link #VISITING} and {@link #ASKING_POLICY}
 * are set and cleared under the lock, so only the thread that set them, re-entering the monitor
 * from its callback, can ever see them set. (Calls from a callback into other shards, whose
 * monitors this one does not guard, are refused before they lock: {@link CallbackGuard}.)
 */
final class LruRefusals {
    /** The cache is closed (set by {@code LruShard.freeAll}); never cleared. */
    static final int CLOSED = 1;
    /** A visit ({@code LruShard.visitEntries}) is calling its visitor with the lock held. */
    static final int VISITING = 2;
    /** A user's admission policy is being asked with the lock held. */
    static final int ASKING_POLICY = 4;

    /** Marks the threads that run this cache's callbacks under a shard's lock. */
    private final CallbackGuard callbacks;
    /** {@link #CLOSED}, {@link #VISITING}, {@link #ASKING_POLICY}, or 0. */
    private int refused;

    LruRefusals(CallbackGuard callbacks) {
        this.callbacks = callbacks;
    }

    /** Throws if an operation must not start now. Exceptions are built out of line. */
    void check() {
        if (refused != 0) {
            throw refusal();
        }
    }

    boolean closed() {
        return (refused & CLOSED) != 0;
    }

    boolean visiting() {
        return (refused & VISITING) != 0;
    }

    /** Sets {@link #CLOSED}; returns false if it was set already. */
    boolean close() {
        if (closed()) {
            return false;
        }
        refused |= CLOSED;
        return true;
    }

    /** Marks this shard and thread as running a user callback of {@code kind}, lock held. */
    void enterCallback(int kind) {
        assert kind == VISITING || kind == ASKING_POLICY : kind;
        assert (refused & kind) == 0 : "callback of kind " + kind + " already running";
        refused |= kind;
        callbacks.enterLocked();
        if (kind == ASKING_POLICY) {
            CallbackGuard.enterPolicy();
        }
    }

    /** Ends {@link #enterCallback}; in a {@code finally}. */
    void exitCallback(int kind) {
        assert (refused & kind) != 0 : "no callback of kind " + kind + " running";
        if (kind == ASKING_POLICY) {
            CallbackGuard.exitPolicy();
        }
        callbacks.exitLocked();
        refused &= ~kind;
    }

    private IllegalStateException refusal() {
        if ((refused & CLOSED) != 0) {
            return new IllegalStateException("cache is closed");
        }
        if ((refused & ASKING_POLICY) != 0) {
            return new IllegalStateException("an Admission policy must not call the cache: it is"
                    + " asked with the lock of the shard evicting for the insert held");
        }
        return new IllegalStateException("an EntryVisitor must not call the cache: forEachEntry"
                + " holds the lock of the shard being visited");
    }
}
