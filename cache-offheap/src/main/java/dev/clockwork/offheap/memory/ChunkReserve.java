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
 * <p>What a trim cannot give back: free blocks that share a page with a live block. A class the
 * size mix has left empties in the order the cache evicts, which for a clock is the order of
 * table slots, at random in the slab, so until nearly every block of a page is free the page
 * stays resident (measured at 256 MiB with sizes sweeping 32 B to 1 MiB: up to ~120 MiB over
 * the live blocks, the RSS 1.6x the capacity). Moving live values to fill pages (compaction)
 * would need a way from a block back to its entry; memcached's slab rebalancer evicts the
 * rest of a page's items instead. Here each trim sums those stranded bytes and sets a capacity
 * cut ({@link #cutOf}) that the clock shards take off their capacity when they charge an
 * insert, so the cache evicts more while pages are stranded: live values plus stranded bytes
 * stay near capacity, at the cost of fewer entries while the mix moves. While a cut is in force
 * a trim is due every {@value #CUT_REFRESH_NANOS} ns on the next read of it, so that it falls
 * when the stranded pages empty even if nothing grows.
 *
 * <p>Lock order: the trim lock, then one pool's monitor at a time, then this monitor; nothing
 * under this monitor takes another lock.
 */
final class ChunkReserve {
    /** A trim is due once the pools carved this share of their carved bytes since the last. */
    static final int TRIM_SHARE = 64;
    static final long TRIM_MIN_BYTES = 1L << 20;
    /** Stranded bytes up to this many cost no capacity: 4 MiB. */
    static final long STRANDED_FLOOR = 4L << 20;
    /** Stranded bytes beyond the floor up to 1/this of the resident blocks cost none either. */
    static final int STRANDED_ALLOWANCE = 32;
    /** The capacity cut's unit: 1/2^16 of capacity. */
    static final int CUT_ONE = 1 << 16;
    /** The most of capacity a cut takes: three quarters. */
    static final int MAX_CUT = 3 * CUT_ONE / 4;
    /** How old the last trim may be while a cut is in force: 100 ms. */
    static final long CUT_REFRESH_NANOS = 100_000_000L;
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
    /** Set by each trim; read on inserts, so plain volatile fields rather than the monitor. */
    private volatile int capacityCut;
    private volatile long strandedBytes;
    private volatile long lastTrimNanos;

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

    /**
     * Trims every pool ({@link BlockPool#trim}), unless another thread is at it, and sets the
     * capacity cut from what the pools left stranded.
     */
    void trim() {
        if (!trimming.tryLock()) {
            return;
        }
        try {
            synchronized (this) {
                grownSinceTrim = 0;
                trims++;
            }
            TrimTally tally = new TrimTally();
            for (BlockPool pool : pools) {
                pool.trim(tally);
            }
            strandedBytes = tally.strandedBytes;
            capacityCut = cutOf(tally.strandedBytes, tally.carvedBytes - tally.freeBytes);
            lastTrimNanos = System.nanoTime();
        } finally {
            trimming.unlock();
        }
    }

    /**
     * The share of capacity (in 1/2^16) to cut so that the live values and the stranded bytes
     * beyond {@value #STRANDED_FLOOR} together fit in capacity plus
     * 1/{@value #STRANDED_ALLOWANCE}: with {@code r} the share of those stranded bytes in the
     * resident blocks, {@code (r (A + 1) - 1) / A}; at most {@link #MAX_CUT}. The cache's
     * capacity is taken to be what its live blocks fill, so the cut is a share, and applied to
     * the capacity each shard has when it charges an insert.
     */
    static int cutOf(long stranded, long live) {
        long over = Math.max(0, stranded - STRANDED_FLOOR);
        long resident = Math.max(1, over + Math.max(0, live));
        double r = over / (double) resident;
        double cut = (r * (STRANDED_ALLOWANCE + 1) - 1) / STRANDED_ALLOWANCE;
        return cut <= 0 ? 0 : (int) Math.min(MAX_CUT, cut * CUT_ONE);
    }

    /**
     * The capacity cut (in 1/2^16 of capacity) the last trim set; while it is not 0, trims
     * again if the last is older than {@value #CUT_REFRESH_NANOS} ns, so that the cut follows the
     * stranded bytes down when nothing grows (a trim is otherwise due only on growth).
     */
    int capacityCut() {
        int cut = capacityCut;
        if (cut != 0 && System.nanoTime() - lastTrimNanos > CUT_REFRESH_NANOS) {
            trim();
            cut = capacityCut;
        }
        return cut;
    }

    /** Free bytes the last trim left resident: pages a live block shares. */
    long strandedBytes() {
        return strandedBytes;
    }

    /** What one trim found, summed over the pools. */
    static final class TrimTally {
        /** Bytes of the blocks carved in the chunks the pools kept: live or free. */
        long carvedBytes;
        /** Bytes of the free blocks left in the pools' chunks (those of emptied chunks not). */
        long freeBytes;
        /** Of those, the bytes whose pages stayed resident. */
        long strandedBytes;
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
