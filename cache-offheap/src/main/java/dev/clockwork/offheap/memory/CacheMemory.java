package dev.clockwork.offheap.memory;

import dev.clockwork.offheap.events.CacheEvents;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

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
public final class CacheMemory {
    private final Arena arena = Arena.ofShared();
    /** All of the address space, scoped to the arena: values are read and written through it. */
    private final MemorySegment all;
    /** The same, read-only: handing out a value view then costs one slice, not two objects. */
    private final MemorySegment allReadOnly;
    public final StatsCounters stats;
    /** The cache's JFR events, and its number in them. */
    public final CacheEvents events;
    /** Every value of the cache is allocated and freed here; its chunks are freed last at close. */
    public final ValueSlabs values;
    /**
     * Seeds every slot's and record's first stamp ({@link EntryStamp}); random per cache, so that
     * another cache's handles, and handles made up from this one's, name nothing here.
     */
    public final long stampSalt = java.util.concurrent.ThreadLocalRandom.current().nextLong();

    /** @param cacheType the cache's class name, for its JFR events */
    public CacheMemory(boolean recordStats, String cacheType) {
        NativeAccess.require(); // before the first restricted call, which is the next line
        this.all = MemorySegment.NULL.reinterpret(Long.MAX_VALUE, arena, null);
        this.allReadOnly = all.asReadOnly();
        this.values = new ValueSlabs(all);
        this.stats = new StatsCounters(recordStats);
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

    /**
     * Closes the arena, waiting out threads that are inside an access at this moment (the JDK
     * refuses to close a shared arena while a thread holds it; such accesses are short).
     */
    public void closeArena() {
        for (int attempt = 0; ; attempt++) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException busy) {
                if (!arena.scope().isAlive()) {
                    return;
                }
                if (attempt > 10_000) {
                    throw busy;
                }
                Thread.onSpinWait();
            }
        }
    }
}
