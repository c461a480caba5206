package dev.clockwork.cli.workload;

/**
 * A thread's FIFO of pinned handles (cache_bench's {@code std::deque<Cache::Handle*> pinned}), as
 * a ring of primitive longs.
 *
 * <p>Every successful lookup and every insert-with-handle appends its handle. After each operation
 * (outside the timed section) the oldest handles are released until at most
 * {@link #pinCountForThread} remain. At the end of the run the remaining count is reported as the
 * thread's share of "Final pinned count" and then all are released.
 */
public final class PinnedFifo {
    private final long[] ring;
    private final long[] keys0; // with keys only: the key each handle was pinned under
    private final long[] keys1;
    private int head;
    private int tail;
    private int size;

    /** A FIFO for a thread that keeps {@code pinCount} handles (plus the one an op may add). */
    public PinnedFifo(int pinCount) {
        this(pinCount, false);
    }

    /**
     * @param withKeys also remember each handle's key ({@link #push(long, long, long)},
     *     {@link #headKey0()}, {@link #headKey1()}), for checking values on release
     */
    public PinnedFifo(int pinCount, boolean withKeys) {
        ring = new long[pinCount + 1];
        keys0 = withKeys ? new long[pinCount + 1] : null;
        keys1 = withKeys ? new long[pinCount + 1] : null;
    }

    /**
     * cache_bench's {@code total_pin_count}: enough value-sized entries to cover
     * {@code pinned_ratio} of the cache, rounded up:
     * {@code (size_t) ((cache_size * pinned_ratio) / value_bytes + 0.999999)}.
     */
    public static long totalPinCount(long cacheSize, double pinnedRatio, long valueBytes) {
        return (long) (((double) cacheSize * pinnedRatio) / valueBytes + 0.999999);
    }

    /**
     * This thread's share, {@code (total_pin_count + tid) / threads}: some threads round up and
     * some down, and the shares add up to the total exactly.
     */
    public static long pinCountForThread(long totalPinCount, int tid, int threads) {
        return (totalPinCount + tid) / threads;
    }

    public void push(long handle) {
        ring[tail] = handle;
        if (++tail == ring.length) {
            tail = 0;
        }
        size++;
    }

    /** {@link #push(long)}, remembering the key too when this FIFO was made with keys. */
    public void push(long handle, long key0, long key1) {
        if (keys0 != null) {
            keys0[tail] = key0;
            keys1[tail] = key1;
        }
        push(handle);
    }

    /** The key of the handle {@link #pop()} returns next (only for a FIFO made with keys). */
    public long headKey0() {
        return keys0[head];
    }

    /** See {@link #headKey0()}. */
    public long headKey1() {
        return keys1[head];
    }

    /** The handle {@link #pop()} returns next, left in place. */
    public long peek() {
        return ring[head];
    }

    public long pop() {
        long h = ring[head];
        if (++head == ring.length) {
            head = 0;
        }
        size--;
        return h;
    }

    public int size() {
        return size;
    }
}
