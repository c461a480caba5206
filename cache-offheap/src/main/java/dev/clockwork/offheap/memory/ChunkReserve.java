package dev.clockwork.offheap.memory;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The chunks of one cache's {@link ValueSlabs} that no size class holds, and when to look for
 * more: the common pool that lets memory freed in one class serve another.
 *
 * <pre>
 *   by size:  2^20: | chunk | chunk | ... |     addresses of emptied chunks, per log2 size,
 *             2^21: | chunk | ...              pages given back (MADV_DONTNEED), still mapped
 *             ...
 * </pre>
 *
 * <p>A pool that needs a chunk ({@link BlockPool}'s carve) takes one of its own size, else the
 * smallest bigger one (aligned to its size, so its first part is aligned to the smaller size too;
 * the rest is address space that is never touched), before it maps a new one. A chunk stays mapped
 * until close whatever class had it, so a stale reader of any value reads bytes or zeros.
 *
 * <p>When to trim (find emptied chunks and free pages): pools report the fresh blocks they carve
 * ({@link #grew}), which is how the slabs' resident memory grows; once the bytes carved since the
 * last trim reach 1/{@value #TRIM_SHARE} of the bytes carved in the chunks the pools hold (what
 * may be resident, not the chunks' untouched address space), and at least
 * {@value #TRIM_MIN_BYTES}, the pool leaves its monitor and its thread runs {@link #trim} over
 * every pool. So a trim, whose cost is a walk of the free blocks, comes at most once per that
 * much growth: none while the mix of value sizes holds still (blocks are reused, none carved),
 * and while it moves, memory the classes it left behind hold is found before the slabs have
 * grown by a sixty-fourth. Trims run on the allocating thread rather than on a background one:
 * nothing to start or stop, and a cache whose memory does not grow pays nothing. A thread that
 * finds another trimming does not wait: it carves.
 *
 * <p>Lock order: the trim lock, then one pool's monitor at a time, then this monitor; nothing
 * under this monitor takes another lock.
 */
final class ChunkReserve {
    /** A trim is due once the pools carved this share of their carved bytes since the last. */
    static final int TRIM_SHARE = 64;
    static final long TRIM_MIN_BYTES = 1L << 20;
    private static final int SHIFTS = 64;

    private final long[][] chunks = new long[SHIFTS][];
    private final int[] counts = new int[SHIFTS];
    private final ReentrantLock trimming = new ReentrantLock();
    private BlockPool[] pools = new BlockPool[0];
    /** Bytes of the chunks here. */
    private long reservedBytes;
    /** Bytes of the chunks the pools hold. */
    private long heldBytes;
    /**
     * Bytes of blocks the pools carved in the chunks they hold: what may be resident (values,
     * free blocks), as opposed to their chunks' fresh address space.
     */
    private long carvedBytes;
    private long grownSinceTrim;
    private long trims;
    private boolean closed;

    /** The pools to trim; set once, by the slabs that own both. */
    void attach(BlockPool[] cachePools) {
        this.pools = cachePools;
    }

    /**
     * An emptied chunk of {@code 2^shift} bytes or more, as its address plus the log2 of its real
     * size (below its alignment), or 0 if there is none.
     */
    synchronized long take(int shift) {
        for (int s = shift; s < SHIFTS; s++) {
            if (counts[s] > 0) {
                long chunk = chunks[s][--counts[s]];
                reservedBytes -= 1L << s;
                return chunk | s;
            }
        }
        return 0;
    }

    /**
     * Takes an emptied chunk back from a pool (which holds its monitor, so is not closed), of
     * which {@code carved} bytes of blocks had been carved.
     */
    synchronized void put(long chunk, int shift, long carved) {
        assert !closed : "a chunk came back after close";
        if (chunks[shift] == null) {
            chunks[shift] = new long[4];
        } else if (counts[shift] == chunks[shift].length) {
            chunks[shift] = Arrays.copyOf(chunks[shift], 2 * counts[shift]);
        }
        chunks[shift][counts[shift]++] = chunk;
        reservedBytes += 1L << shift;
        heldBytes -= 1L << shift;
        carvedBytes -= carved;
    }

    /** A pool took a chunk of {@code bytes}, from here or mapped anew. */
    synchronized void acquired(long bytes) {
        heldBytes += bytes;
    }

    /** A pool carved {@code bytes} of fresh blocks; returns whether a trim is due. */
    synchronized boolean grew(long bytes) {
        grownSinceTrim += bytes;
        carvedBytes += bytes;
        return grownSinceTrim >= Math.max(TRIM_MIN_BYTES, carvedBytes / TRIM_SHARE);
    }

    /** Trims every pool ({@link BlockPool#trim}), unless another thread is at it. */
    void trim() {
        if (!trimming.tryLock()) {
            return;
        }
        try {
            synchronized (this) {
                grownSinceTrim = 0;
                trims++;
            }
            for (BlockPool pool : pools) {
                pool.trim();
            }
        } finally {
            trimming.unlock();
        }
    }

    /** Bytes of the chunks here: mapped, not resident (but for what stale readers touched). */
    synchronized long reservedBytes() {
        return closed ? 0 : reservedBytes;
    }

    /** Trims run so far. */
    synchronized long trims() {
        return trims;
    }

    /** Resident bytes of the chunks here (mincore); only when nothing else runs. */
    synchronized long residentBytes() {
        long bytes = 0;
        for (int s = 0; s < SHIFTS && !closed; s++) {
            for (int i = 0; i < counts[s]; i++) {
                bytes += NativeAllocator.residentBytes(chunks[s][i], 1L << s);
            }
        }
        return bytes;
    }

    /** Frees the chunks here; after every pool's {@link BlockPool#freeAll}. */
    synchronized void freeAll() {
        if (closed) {
            return;
        }
        closed = true;
        for (int s = 0; s < SHIFTS; s++) {
            for (int i = 0; i < counts[s]; i++) {
                NativeAllocator.free(chunks[s][i], 1L << s);
            }
            counts[s] = 0;
        }
    }
}
