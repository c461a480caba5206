package dev.clockwork.offheap;

import dev.clockwork.cache.AsyncValueLoader;
import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.ValueLoader;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.offheap.context.CallbackGuard;
import dev.clockwork.offheap.load.InFlightLoads;
import dev.clockwork.offheap.load.Load;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Get-or-load: a miss runs the caller's loader once per key, however many callers miss the key
 * together, stores the value and hands it to all of them ({@link Cache#lookupOrLoad}).
 *
 * <p>The protocol, per key, with {@link InFlightLoads} as the meeting point:
 * <ol>
 *   <li>A hit is the cache's own lookup (or copying read), and never comes here.</li>
 *   <li>A miss joins the key's load in flight, or starts one ({@link InFlightLoads#join}).</li>
 *   <li>The starter looks up once more before loading: a load that finished between the miss
 *       and the join has stored its value before it unlinked its {@link Load}, so the second
 *       lookup finds it (unless it was evicted or refused meanwhile), and the key is loaded once.
 *       </li>
 *   <li>The starter runs the loader outside every lock, stores the value without replacing an
 *       entry of the key that appeared meanwhile ({@link EngineCache#putIfAbsentPinned}),
 *       unlinks the load, takes one reference per waiter counted, and publishes. A failure
 *       anywhere (the loader's, or the store's) is published instead, and nothing stays pinned
 *       or stored.</li>
 * </ol>
 * A waiter never hangs on a closed cache: it checks every {@link #CLOSE_POLL_MILLIS} and gives
 * up with {@link IllegalStateException}, letting go of its reference if one was taken for it.
 *
 * <p>Asynchronous loads run the same steps, the store on the thread that completes the loader's
 * future; their callers get copies ({@code byte[]}), so a future dropped or cancelled by its
 * caller holds no pin.
 */
final class LoadOnce {
    /** How often a waiter checks that the cache is still open. */
    static final long CLOSE_POLL_MILLIS = 10;

    private final EngineCache cache;
    final InFlightLoads loads = new InFlightLoads();

    LoadOnce(EngineCache cache) {
        this.cache = cache;
    }

    // ---------------------------------------------------------------- the three forms

    /**
     * The arguments every form checks before anything else (one branch on a hit; the exception
     * built apart, so that the hit path stays small enough to inline whole).
     */
    static void checkArguments(Object loader, Placement placement) {
        if (loader == null || placement == null) {
            throw nullArgument(loader == null ? "loader" : "placement");
        }
    }

    private static NullPointerException nullArgument(String name) {
        return new NullPointerException(name + " must not be null");
    }

    /** {@link Cache#lookupOrLoad} after its lookup missed (counted there). */
    long lookupMissed(long key0, long key1, ValueLoader loader, Placement placement) {
        long h0 = KeyHash.hash0(key0, key1, cache.hashSeed);
        return loadPinned(key0, key1, h0, KeyHash.hash1FromHash0(h0, key1), loader, placement);
    }

    /**
     * {@link Cache#getOrLoad} after its {@code get} missed (counted there, and the destination
     * checked): loads, copies and lets go.
     */
    long getMissed(long key0, long key1, MemorySegment segment, byte[] array, long offset,
                   ValueLoader loader, Placement placement) {
        long handle = lookupMissed(key0, key1, loader, placement);
        try {
            return segment != null ? cache.copyValue(handle, segment, offset)
                    : cache.copyValue(handle, array, (int) offset);
        } finally {
            cache.release(handle);
        }
    }

    CompletableFuture<byte[]> getOrLoadAsync(long key0, long key1, AsyncValueLoader loader,
                                             Placement placement) {
        cache.checkOpen();
        cache.checkLoad(loader, placement);
        long h0 = KeyHash.hash0(key0, key1, cache.hashSeed);
        long h1 = KeyHash.hash1FromHash0(h0, key1);
        long handle = cache.lookupCounted(h0, h1);
        cache.countUnderKind(placement, handle != Cache.MISS);
        if (handle != Cache.MISS) {
            try {
                return CompletableFuture.completedFuture(copyOut(handle));
            } finally {
                cache.release(handle);
            }
        }
        refuseInsidePolicy();
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        Load load = loads.join(h0, h1, result);
        if (load.startedByCaller()) {
            startAsync(load, key0, key1, h0, h1, loader, placement);
        }
        return result;
    }

    // ---------------------------------------------------------------- synchronous loads

    private long loadPinned(long key0, long key1, long h0, long h1, ValueLoader loader,
                            Placement placement) {
        refuseInsidePolicy();
        Load load = loads.join(h0, h1, null);
        if (!load.startedByCaller()) {
            return awaitShared(load);
        }
        long handle = Cache.MISS;
        Throwable failure = null;
        try {
            handle = cache.lookupHashed(h0, h1);
            if (handle == Cache.MISS) {
                MemorySegment value = loader.load(key0, key1);
                // Still the load's thread while it stores: a policy that calls back is refused.
                handle = store(key0, key1, h0, h1, value, placement, "ValueLoader");
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            load.loaderReturned();
        }
        finish(load, handle, failure, false);
        if (failure != null) {
            throw CallbackGuard.rethrow(failure);
        }
        return handle;
    }

    /**
     * A miss from inside an admission policy, or under a key's write stripe (a policy's
     * {@code recordInsert} or {@code recordAccess} run by a striped write), is refused: it may
     * run under a load's store (a key's write stripe held, the load's waiters waiting), and a load
     * from there could wait for that store, or take a second stripe (the rule of
     * {@link KeyStripes}).
     */
    private static void refuseInsidePolicy() {
        if (CallbackGuard.mustNotTakeStripe()) {
            throw new IllegalStateException("an Admission policy must not load into a cache: the"
                    + " insert that asked it may be a load's store, holding its key's lock");
        }
    }

    /** A waiter's side: the shared handle (a reference taken for us), or the load's failure. */
    private long awaitShared(Load load) {
        while (!load.awaitDone(CLOSE_POLL_MILLIS)) {
            try {
                cache.checkOpen();
            } catch (IllegalStateException closed) {
                if (!loads.leave(load)) {
                    load.awaitDone(0); // the starter is publishing: it cannot block now
                    releaseQuietly(load.handle(), closed);
                }
                throw closed;
            }
        }
        Throwable failure = load.failure();
        if (failure != null) {
            throw CallbackGuard.rethrow(failure);
        }
        return load.handle();
    }

    // ---------------------------------------------------------------- asynchronous loads

    private void startAsync(Load load, long key0, long key1, long h0, long h1,
                            AsyncValueLoader loader, Placement placement) {
        long handle = Cache.MISS;
        CompletableFuture<MemorySegment> future = null;
        Throwable failure = null;
        try {
            handle = cache.lookupHashed(h0, h1);
            if (handle == Cache.MISS) {
                future = loader.load(key0, key1);
                if (future == null) {
                    throw new NullPointerException("AsyncValueLoader returned a null future for"
                            + " key (" + key0 + ", " + key1 + ")");
                }
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            load.loaderReturned();
        }
        if (future == null) {
            finishAsync(load, handle, failure);
            return;
        }
        future.whenComplete((value, thrown) -> {
            long stored = Cache.MISS;
            Throwable storeFailure = thrown instanceof CompletionException c
                    && c.getCause() != null ? c.getCause() : thrown;
            if (storeFailure == null) {
                load.storingOnCaller(); // this thread is the load's while it stores
                try {
                    stored = store(key0, key1, h0, h1, value, placement, "AsyncValueLoader");
                } catch (Throwable t) {
                    storeFailure = t;
                } finally {
                    load.loaderReturned();
                }
            }
            finishAsync(load, stored, storeFailure);
        });
    }

    /** {@link #finish}, letting go of the starter's own reference: its caller has a copy. */
    private void finishAsync(Load load, long handle, Throwable failure) {
        finish(load, handle, failure, true);
    }

    // ---------------------------------------------------------------- store and publish

    /**
     * Checks a loaded value and stores it: {@link EngineCache#putIfAbsentPinned}, under the key's
     * stripe, so that a value put meanwhile is kept, not replaced (the handle then names it);
     * if the cache refuses the value, a copy outside the index
     * ({@link EngineCache#pinOutsideIndex}) so that it still reaches the callers. Returns a
     * pinned handle. The loader's segment is only read.
     */
    private long store(long key0, long key1, long h0, long h1, MemorySegment value,
                       Placement placement, String loaderKind) {
        if (value == null) {
            throw new NullPointerException(loaderKind + " returned null for key (" + key0 + ", "
                    + key1 + ")");
        }
        long size = value.byteSize();
        long capacity = cache.capacity();
        if (size > Integer.MAX_VALUE || size > capacity) {
            throw new IllegalArgumentException(loaderKind + " returned a value of " + size
                    + " bytes for key (" + key0 + ", " + key1 + "); its charge must be at most"
                    + " the capacity " + capacity + " and at most " + Integer.MAX_VALUE);
        }
        int length = (int) size;
        long handle = cache.putIfAbsentPinned(key0, key1, value, length, placement);
        if (handle != Cache.MISS) {
            return handle;
        }
        long address = ValueCopies.copyIn(cache.context, value, null, 0, length);
        try {
            handle = cache.pinOutsideIndex(h0, h1, address, length, length, placement);
        } catch (Throwable t) {
            cache.context.values.free(address, length); // pinOutsideIndex's contract: still ours
            throw t;
        }
        if (handle == Cache.MISS) {
            cache.context.values.free(address, length);
            throw new IllegalStateException("the loaded value of key (" + key0 + ", " + key1
                    + ") was refused and cannot be held outside the index either: the shard's"
                    + " usage is at its limit");
        }
        return handle;
    }

    /**
     * Unlinks the load, takes a reference for each synchronous waiter, publishes, and completes
     * the asynchronous waiters with copies. The starter keeps its own reference unless
     * {@code releaseOwn}: then it is let go after the copies and before the futures complete, so
     * that a caller whose future is done finds nothing of its load still pinned.
     */
    private void finish(Load load, long handle, Throwable failure, boolean releaseOwn) {
        int waiters = loads.unlink(load);
        Throwable shared = failure;
        int taken = 0;
        if (shared == null) {
            try {
                for (; taken < waiters; taken++) {
                    cache.ref(handle);
                }
            } catch (RuntimeException e) {
                shared = e; // closed meanwhile, or too many references: the waiters get it
                for (; taken > 0; taken--) {
                    releaseQuietly(handle, e);
                }
            }
        }
        load.complete(shared == null ? handle : Cache.MISS, shared);
        List<CompletableFuture<byte[]>> futures = load.asyncWaiters();
        Object[] outcomes = new Object[futures.size()]; // a copy, or what the future fails with
        for (int i = 0; i < outcomes.length; i++) {
            outcomes[i] = failure != null ? failure : copyOrFailure(handle);
        }
        if (releaseOwn) {
            releaseQuietly(handle, null);
        }
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] instanceof byte[] copy) {
                futures.get(i).complete(copy);
            } else {
                futures.get(i).completeExceptionally((Throwable) outcomes[i]);
            }
        }
    }

    private Object copyOrFailure(long handle) {
        try {
            return copyOut(handle);
        } catch (RuntimeException | Error e) {
            return e;
        }
    }

    private byte[] copyOut(long handle) {
        byte[] copy = new byte[(int) cache.valueSize(handle)];
        cache.copyValue(handle, copy, 0);
        return copy;
    }

    /** Releases a handle nobody will; a failure (closed meanwhile) is added to {@code to}. */
    private void releaseQuietly(long handle, Throwable to) {
        if (handle == Cache.MISS) {
            return;
        }
        try {
            cache.release(handle);
        } catch (RuntimeException e) {
            if (to != null) {
                to.addSuppressed(e);
            }
        }
    }
}
