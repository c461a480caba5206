package dev.clockwork.offheap.lru;

import static dev.clockwork.offheap.lru.LruList.INT;
import static dev.clockwork.offheap.lru.LruList.LONG;
import static dev.clockwork.offheap.lru.LruList.RAW;
import static dev.clockwork.offheap.lru.LruRecordLayout.CHARGE_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.HAS_HIT;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_CACHE;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_WINDOW;
import static dev.clockwork.offheap.lru.LruRecordLayout.PRIORITY_MASK;
import static dev.clockwork.offheap.lru.LruRecordLayout.PRIORITY_SHIFT;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_ADDRESS_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_LENGTH_OFFSET;

import dev.clockwork.cache.Priority;
import dev.clockwork.cache.dump.DumpWriter;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.offheap.entry.RecordSlab;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A dump's walk over one LRU shard, most recent first, in batches each under the shard's lock
 * (the lock keeps an entry from being freed while its value is copied): the main list from its
 * newest end to its oldest (the high pool, then the low, then the bottom), then the admission
 * window's list the same way, then every record in slab order for what the lists did not give
 * (entries pinned by a handle are on no list, and entries that moved).
 *
 * <p>Which entries. A mark per record, one bit, set when the record's entry is written: an
 * entry in the index for the whole walk stays in its record (an insert of a present key takes a
 * new record), so its mark is set only by writing it, and the slab-order phase writes it if the
 * lists did not: every such entry is written exactly once, any other at most once. Records past
 * the slab's fresh mark at the start hold only entries inserted since, and are skipped.
 *
 * <p>Between batches the list may change. The walk resumes from the entry it stopped at if that
 * entry is still on the same list; else it starts again from the newest end, passing over what
 * it wrote (marked). A budget of such passed-over entries, four per record, bounds the work a
 * churning list can cause: past it the walk goes on in slab order, which needs no cursor.
 *
 * <p>A value longer than the writer's block is streamed to the channel with the lock held.
 */
public final class LruDumpWalk {
    /** {@link #batch}'s answers. */
    public static final int DONE = -1;
    public static final int FULL = 0;
    public static final int MORE = 1;

    private static final int MAIN_LIST = 0;
    private static final int WINDOW_LIST = 1;
    private static final int SLAB_ORDER = 2;
    private static final Priority[] PRIORITIES = Priority.values();

    private final LruShard shard;
    private final MemorySegment marks;
    private final int records;
    private final long hashSeed;
    private final MemorySegment values;
    private int phase = MAIN_LIST;
    /** The next list entry to look at, 0 for the list's newest; its stamp when it was set. */
    private long cursor;
    private int cursorStamp;
    private int slabIndex = 1; // index 0 is the first chunk's header
    private long budget;

    /**
     * @param shard the shard to walk
     * @param arena where the marks are allocated (freed with it)
     * @param values the memory the values are in
     * @param hashSeed the cache's hash seed, to recover the callers' keys
     */
    public LruDumpWalk(LruShard shard, Arena arena, MemorySegment values, long hashSeed) {
        this.shard = shard;
        synchronized (shard) {
            shard.refusals.check();
            this.records = shard.slab.freshIndex();
        }
        this.marks = arena.allocate(((records + 63L) >>> 6) << 3, 8);
        this.budget = 4L * records + 1024;
        this.values = values;
        this.hashSeed = hashSeed;
    }

    /**
     * Writes up to {@code maxEntries} more entries into the writer's block, under the lock.
     *
     * @return {@link #FULL} if the block is full (flush it and call again), {@link #MORE} if
     *     there are more, {@link #DONE} once the shard has been walked
     * @throws IllegalStateException if the cache is closed
     * @throws IOException if a value streamed alone fails to go out
     */
    public int batch(DumpWriter writer, int maxEntries) throws IOException {
        synchronized (shard) {
            shard.refusals.check();
            if (phase == MAIN_LIST) {
                return listBatch(writer, shard.head, maxEntries, false, WINDOW_LIST);
            }
            if (phase == WINDOW_LIST) {
                return shard.windowHead == 0 ? next(SLAB_ORDER)
                        : listBatch(writer, shard.windowHead, maxEntries, true, SLAB_ORDER);
            }
            return phase == SLAB_ORDER ? slabBatch(writer, maxEntries) : DONE;
        }
    }

    private int next(int nextPhase) {
        phase = nextPhase;
        cursor = 0;
        return MORE;
    }

    /** Along a list from {@link #cursor} toward its oldest end. */
    private int listBatch(DumpWriter writer, long listHead, int maxEntries, boolean window,
                          int nextPhase) throws IOException {
        long e = stillListed(cursor, window) ? cursor : shard.prev(listHead);
        for (int written = 0; e != listHead && written < maxEntries; e = shard.prev(e)) {
            int index = shard.slab.indexOf(e);
            if (index < records && !isMarked(index)) {
                if (!add(writer, e)) {
                    return stopAt(e, FULL);
                }
                mark(index);
                written++;
            } else if (--budget < 0) {
                return next(SLAB_ORDER);
            }
        }
        return e == listHead ? next(nextPhase) : stopAt(e, MORE);
    }

    private int stopAt(long e, int answer) {
        cursor = e;
        cursorStamp = shard.slab.stamp(e);
        return answer;
    }

    /** Whether the cursor's entry is the one it was set at, on the list being walked. */
    private boolean stillListed(long e, boolean window) {
        if (e == 0 || shard.slab.stamp(e) != cursorStamp) {
            return false;
        }
        int v = shard.refsAndFlags(e);
        return (v & IN_CACHE) != 0 && LruList.refs(v) == 0 && ((v & IN_WINDOW) != 0) == window;
    }

    private int slabBatch(DumpWriter writer, int maxEntries) throws IOException {
        RecordSlab slab = shard.slab;
        int written = 0;
        for (; slabIndex < records && written < maxEntries; slabIndex++) {
            if (RecordSlab.isHeader(slabIndex) || isMarked(slabIndex)) {
                continue;
            }
            long e = slab.address(slabIndex);
            if ((shard.refsAndFlags(e) & IN_CACHE) == 0 || !RecordSlab.isLive(slab.stamp(e))) {
                continue;
            }
            if (!add(writer, e)) {
                return FULL;
            }
            mark(slabIndex);
            written++;
        }
        if (slabIndex < records) {
            return MORE;
        }
        phase = SLAB_ORDER + 1;
        return DONE;
    }

    /**
     * One entry into the writer's block: {@code false} if it does not fit. An entry hit since
     * its insert is written as HIGH, as its hit put it in the high pool; others with the
     * priority they were inserted with.
     */
    private boolean add(DumpWriter writer, long e) throws IOException {
        int v = shard.refsAndFlags(e);
        Priority priority = (v & HAS_HIT) != 0 ? Priority.HIGH
                : PRIORITIES[(v & PRIORITY_MASK) >>> PRIORITY_SHIFT];
        long h0 = LruList.key0(e);
        long h1 = LruList.key1(e);
        long key1 = KeyHash.unhash1(h0, h1);
        long key0 = KeyHash.unhash0FromKey1(h0, key1, hashSeed);
        return writer.add(key0, key1, RAW.get(LONG, e + CHARGE_OFFSET), priority, values,
                RAW.get(LONG, e + VALUE_ADDRESS_OFFSET), RAW.get(INT, e + VALUE_LENGTH_OFFSET));
    }

    private boolean isMarked(long index) {
        return (marks.getAtIndex(ValueLayout.JAVA_LONG, index >>> 6) & (1L << index)) != 0;
    }

    private void mark(long index) {
        long word = marks.getAtIndex(ValueLayout.JAVA_LONG, index >>> 6);
        marks.setAtIndex(ValueLayout.JAVA_LONG, index >>> 6, word | (1L << index));
    }
}
