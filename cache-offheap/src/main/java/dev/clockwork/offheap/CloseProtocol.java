package dev.clockwork.offheap;

import dev.clockwork.offheap.context.CallbackGuard;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The second half of {@link ShardedCache#close}: free every native byte exactly once, after
 * whatever still runs in the memory is done. Apart from {@link ShardedCache} because it is one
 * protocol with its own state (a lock and a flag no other method reads); the first half, the
 * {@code closed} flag that every call checks, stays in the cache, where the hot paths read it
 * without another object's field.
 *
 * <p>The closing thread holds {@link #closing} while it frees; a second close waits for it,
 * unless it is called from a callback under a shard's lock (an LRU cache's
 * {@code EntryVisitor}), which the running close may need: that one returns at once, and the
 * visit completes the free when the visitor returns. {@link #freed} is set after the arena
 * closed and before the first free, so that whatever fails below, nothing is freed twice.
 */
final class CloseProtocol {
    /** Held by the close that frees the memory; a second close waits for it. */
    private final ReentrantLock closing = new ReentrantLock();
    /** Set by the close that frees the memory, just before it does. Under {@link #closing}. */
    private boolean freed;

    /**
     * Frees the cache's memory if no close has: waits out what must finish first
     * ({@link ShardedCache#beforeArenaClose}), closes the arena (which waits for I/O on value
     * views, and throws only if interrupted, freeing nothing), then frees.
     */
    void freeOnce(ShardedCache cache) {
        if (CallbackGuard.isInsideLocked()) {
            if (!closing.tryLock()) {
                return; // a running close needs our lock: it finishes once we return
            }
        } else {
            closing.lock();
        }
        try {
            if (freed) {
                return;
            }
            cache.beforeArenaClose();
            cache.context.closeArena();
            freed = true; // before the frees: whatever happens below, nothing is freed twice
            cache.freeMemory();
        } finally {
            closing.unlock();
        }
    }
}
