package dev.clockwork.cli.bench;

/**
 * A thread's FIFO of pinned handles (cache_bench's {@code std::deque<Cache::Handle*> pinned}), as
 * a ring of primitive longs.
 *
 * <p>Every successful lookup and every insert-with-handle appends its handle. After each operation
 * (outside the timed section) the oldest handles are released until at most
 * {@link #pinCountForThread} remain. At the end of the run the remaining count is reported as the
 * thread's share of "Final pinned count" and then all are released.
 */
final class PinnedFifo {
    private final long[] ring;
    private int head;
    private int tail;
    private int size;

    /** A FIFO for a thread that keeps {@code pinCount} handles (plus the one an op may add). */
    PinnedFifo(int pinCount) {
        ring = new long[pinCount + 1];
    }

    /**
     * cache_bench's {@code total_pin_count}: enough value-sized entries to cover
     * {@code pinned_ratio} of the cache, rounded up:
     * {@code (size_t) ((cache_size * pinned_ratio) / value_bytes + 0.999999)}.
     */
    static long totalPinCount(long cacheSize, double pinnedRatio, long valueBytes) {
        return (long) (((double) cacheSize * pinnedRatio) / valueBytes + 0.999999);
    }

    /**
     * This thread's share, {@code (total_pin_count + tid) / threads}: some threads round up and
     * some down, and the shares add up to the total exactly.
     */
    static long pinCountForThread(long totalPinCount, int tid, int threads) {
        return (totalPinCount + tid) / threads;
    }

    void push(long handle) {
        ring[tail] = handle;
        if (++tail == ring.length) {
            tail = 0;
        }
        size++;
    }

    long pop() {
        long h = ring[head];
        if (++head == ring.length) {
            head = 0;
        }
        size--;
        return h;
    }

    int size() {
        return size;
    }
}
