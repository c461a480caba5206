package dev.clockwork.offheap.context;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Lets {@code close()} wait out the calls that change who owns native memory: inserts, erases and
 * the releases that free an entry. Such a call enters before it starts and exits when done; close
 * first shuts the gate (later calls are refused with {@link IllegalStateException}), then waits
 * until no call is inside, and only then closes the arena and frees memory.
 *
 * <p>Why not rely on the arena alone: a thread that is inside a scoped access when the arena
 * closes is stopped with an exception, and that exception does not tell whether the access took
 * effect: a write may have happened and thrown all the same. Lookups and plain
 * releases only move reference counts, where that does no harm; but a thread handing a value to
 * a slot, or taking one out to free it, cannot tell whether its last write happened, and would
 * leak the value or free it twice.
 *
 * <h2>Structure</h2>
 * A count per stripe, each on its own pair of cache lines, picked by thread id, so that threads
 * on different cores rarely write the same line. A call increments its stripe, then reads the
 * shut flag; close writes the flag, then reads every stripe. All of these are volatile, hence
 * sequentially consistent: either the call sees the gate shut and backs out, or close sees its
 * count and waits for it. The cost is two uncontended atomic adds per gated call, against the
 * malloc and copy an insert makes anyway.
 */
public final class CloseGate {
    private static final int STRIPES = 64;
    /** Longs between two stripes' counts: 128 bytes, against adjacent-line prefetching too. */
    private static final int SPACING = 16;

    private final AtomicLongArray counts = new AtomicLongArray(STRIPES * SPACING);
    private volatile boolean shut;

    /** Enters the gate, or throws if close has begun; returns the stripe to {@link #exit}. */
    public int enter() {
        int stripe = (int) (Thread.currentThread().threadId() & (STRIPES - 1)) * SPACING;
        counts.getAndIncrement(stripe);
        if (shut) {
            counts.getAndDecrement(stripe);
            throw closed();
        }
        return stripe;
    }

    public void exit(int stripe) {
        counts.getAndDecrement(stripe);
    }

    /** Refuses new entries and waits until every call inside has left. */
    public void shutAndDrain() {
        shut = true;
        for (int stripe = 0; stripe < STRIPES * SPACING; stripe += SPACING) {
            for (int spins = 0; counts.get(stripe) != 0; spins++) {
                if (spins < 100) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield(); // a call inside was descheduled: let it run
                }
            }
        }
    }

    private static IllegalStateException closed() {
        return new IllegalStateException("cache is closed");
    }
}
