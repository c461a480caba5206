package dev.clockwork.cli.caches;

import dev.clockwork.cache.Cache;
import java.lang.foreign.MemorySegment;

/**
 * What {@code clockwork bench} drives: a Clockwork cache or a peer a storage engine would use
 * instead (Caffeine holding {@code byte[]}, OHC), behind the few operations of cache_bench's
 * workload. One target is shared by the worker threads; each worker operates through its own
 * {@link Session}, which may keep per-thread state (the peers keep the array a hit returned).
 *
 * <p>A JVM runs one kind of target ({@code -compare} forks one per type), so the calls stay
 * monomorphic and the JIT compiles each kind's path as if it were called directly.
 *
 * <h2>Pinning</h2>
 * Clockwork's lookups and pinned inserts return handles that the workload keeps in a FIFO and
 * releases later ({@code -pinned_ratio}). The peers have no handles: {@link #pins()} is false,
 * a hit is read when it is looked up (Caffeine: the stored array; OHC: the copy {@code get}
 * returns), an insert is a {@code put}, and nothing is held or released.
 */
public abstract class BenchTarget implements AutoCloseable {
    /** What {@link Session#lookup} returns on a hit of a target that does not pin. */
    public static final long UNPINNED_HIT = 1L;

    /** The {@code -cache_type} name this target was built for. */
    public abstract String type();

    /** The implementation's name, as cache_bench prints {@code Cache::Name()}. */
    public abstract String implName();

    /** The Clockwork cache behind this target, or null for a peer. */
    public Cache clockwork() {
        return null;
    }

    /** Whether lookups and pinned inserts return handles to hold and release. */
    public abstract boolean pins();

    /** Whether values live on the Java heap (so the JVM must be sized for the capacity). */
    public boolean onHeap() {
        return false;
    }

    /** A session for one worker thread. */
    public abstract Session session();

    /** Entries resident now (a peer's own count, after its pending maintenance). */
    public abstract long entryCount();

    /** Bytes charged against the capacity now, as the target counts them. */
    public abstract long usage();

    /** Changes the capacity ({@code -vary_capacity_ratio}). */
    public abstract void setCapacity(long capacity);

    /** Frees what the target holds; idempotent. */
    @Override
    public abstract void close();

    /** One worker's view of the target; used by one thread at a time. */
    public interface Session {
        /**
         * Looks {@code (k0, k1)} up: {@link Cache#MISS} on a miss, else a handle to release
         * (when the target {@link #pins()}) or {@link #UNPINNED_HIT}.
         */
        long lookup(long k0, long k1);

        /** A hash of the value of the hit {@code handle} (the last hit, for a peer). */
        long hashValue(long handle);

        /**
         * Inserts a copy of {@code value}; returns a handle to release, {@link #UNPINNED_HIT}
         * for a target that does not pin, or {@link Cache#MISS} if the target refused it.
         */
        long insertPinned(long k0, long k1, MemorySegment value, long charge);

        /** Inserts a copy of {@code value} holding nothing; false if the target refused it. */
        boolean insert(long k0, long k1, MemorySegment value, long charge);

        void erase(long k0, long k1);

        /** Releases a handle from {@link #lookup} or {@link #insertPinned} (pinning targets). */
        void release(long handle);
    }
}
