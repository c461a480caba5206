package dev.clockwork.offheap.context;

import dev.clockwork.offheap.events.CacheEvents;
import dev.clockwork.offheap.memory.NativeAccess;
import dev.clockwork.offheap.memory.ValueSlabs;
import dev.clockwork.offheap.stats.KindCounts;
import dev.clockwork.offheap.stats.StatsCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The native-memory context of one cache: a shared arena that owns nothing but the right to be
 * closed, and views of native memory scoped to it.
 *
 * <p>Values come from the cache's {@link ValueSlabs}, which keep them mapped until close; tables
 * are malloc'd (see {@link NativeAllocator}); both are reached only through views scoped
 * to this arena. {@code close()} closes the arena first — after which every access through those
 * views, by any thread, throws {@link IllegalStateException} — and only then frees the memory,
 * the value slabs last. So a thread racing with close gets an exception, never a read of freed
 * memory.
 */
public final class CacheContext {
    private final Arena arena = Arena.ofShared();
    /** All of the address space, scoped to the arena: values are read and written through it. */
    private final MemorySegment all;
    /** The same, read-only: handing out a value view then costs one slice, not two objects. */
    private final MemorySegment allReadOnly;
    public final StatsCounters stats;
    /** The cache's JFR events, and its number in them. */
    public final CacheEvents events;
    /** Marks threads running the cache's user callbacks under a lock, and refuses their calls. */
    public final CallbackGuard callbacks = new CallbackGuard();
    /** Every value of the cache is allocated and freed here; its chunks are freed last at close. */
    public final ValueSlabs values;
    /**
     * Draws every slot's and record's order of generations ({@link EntryStamp}'s seed); random
     * per cache, so that another cache's handles, and handles made up from this one's, name
     * nothing here but by chance.
     */
    public final long stampSalt = ThreadLocalRandom.current().nextLong();

    /** @param cacheType the cache's class name, for its JFR events */
    public CacheContext(boolean recordStats, String cacheType) {
        this(recordStats, KindCounts.NONE, cacheType);
    }

    /**
     * @param kinds the entry kinds the cache counts
     * @param cacheType the cache's class name, for its JFR events
     */
    public CacheContext(boolean recordStats, KindCounts kinds, String cacheType) {
        NativeAccess.require(); // before the first restricted call, which is the next line
        this.all = MemorySegment.NULL.reinterpret(Long.MAX_VALUE, arena, null);
        this.allReadOnly = all.asReadOnly();
        this.values = new ValueSlabs(all);
        this.stats = new StatsCounters(recordStats, kinds);
        this.events = new CacheEvents(cacheType);
    }

    public Arena arena() {
        return arena;
    }

    public MemorySegment all() {
        return all;
    }

    public MemorySegment allReadOnly() {
        return allReadOnly;
    }

    /** Longest sleep between two attempts to close an arena a thread holds, in nanoseconds. */
    private static final long MAX_CLOSE_WAIT_NANOS = 10_000_000;
    /** Attempts spent spinning, then yielding, before {@link #closeArena} starts to sleep. */
    private static final int CLOSE_SPINS = 100;
    private static final int CLOSE_YIELDS = 1_000;

    /**
     * Closes the arena, waiting for every thread that holds it: one inside a scoped access (a few
     * nanoseconds), or an I/O call on a value's {@code ByteBuffer} view, which holds the arena
     * for the whole read or write ({@code FileChannel.write}, a socket's {@code write}: as long as
     * the I/O takes, which for a blocking socket is as long as its peer takes to read). It spins,
     * then yields, then sleeps between attempts, up to {@value #MAX_CLOSE_WAIT_NANOS} ns at a
     * time, and gives up only if interrupted.
     *
     * @throws IllegalStateException if the thread is interrupted while it waits (its interrupt
     *     status is kept); the arena is then still open, and the call may be made again
     */
    public void closeArena() {
        long sleep = 1_000;
        for (int attempt = 0; ; attempt++) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException held) {
                if (!arena.scope().isAlive()) {
                    return; // closed already
                }
                if (attempt < CLOSE_SPINS) {
                    Thread.onSpinWait();
                } else if (attempt < CLOSE_SPINS + CLOSE_YIELDS) {
                    Thread.yield(); // a thread inside an access was descheduled: let it run
                } else {
                    LockSupport.parkNanos(sleep); // I/O in flight
                    sleep = Math.min(sleep * 2, MAX_CLOSE_WAIT_NANOS);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new IllegalStateException("interrupted while close waited for a thread"
                            + " that holds a value view (I/O on its ByteBuffer?); nothing is freed"
                            + " yet: call close() again", held);
                }
            }
        }
    }
}
