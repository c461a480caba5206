package dev.clockwork.offheap.clock;

import dev.clockwork.cache.Priority;
import dev.clockwork.cache.dump.DumpWriter;
import dev.clockwork.cache.hash.KeyHash;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A dump's walk over HyperClock tables, hottest first: one pass per countdown level, from
 * {@link ClockMeta#MAX_COUNTDOWN} down to 0, over every table, each pass writing the entries
 * whose countdown is at least its level and that no earlier pass wrote. An entry's countdown
 * moves while the walk runs (hits raise it, sweeps lower it); the order is that of the moment
 * each pass meets the entry.
 *
 * <p>Which entries. A mark per slot, one bit, set when the slot's entry is written: an entry in
 * the table for the whole walk sits in one slot (neither table moves an entry), so its slot's
 * mark is set only by writing it, and the last pass (level 0) writes it if no pass did before:
 * every such entry is written exactly once. An entry that comes or goes during the walk is
 * written at most once (a slot written once is never written again; a new entry in such a slot
 * is not written). Slots past a table's grow frontier at the start (an Auto table grows during
 * the walk) hold only entries inserted since, and are not walked.
 *
 * <p>Each entry is referenced as {@code forEachEntry} references it
 * ({@link ClockProtocol#referenceIfVisible}), read, checked still the slot's
 * ({@link ClockProtocol#stillHolds}), copied into the writer's buffer (or streamed, for a value
 * longer than a block, and while a full block is written out the reference is held) and given
 * back as not a use ({@link ClockProtocol#releaseOwn}). The load gives an entry the priority
 * whose starting countdown is its countdown (3 HIGH, 2 LOW, 1 and 0 BOTTOM), so that a loaded
 * table starts where the dumped one was.
 *
 * <p>Memory: the marks, {@code slots / 8} bytes per table, native and freed at the end; the Java
 * heap holds two arrays of one element per table.
 */
public final class ClockDumpWalk {
    private static final Priority[] BY_COUNTDOWN =
        {Priority.BOTTOM, Priority.BOTTOM, Priority.LOW, Priority.HIGH};

    private ClockDumpWalk() {
    }

    /**
     * Writes the tables' entries, hottest first.
     *
     * @param tables the cache's tables
     * @param writer where the records go
     * @param values the memory the values are in (the cache's, scoped to its arena)
     * @param hashSeed the cache's hash seed, to recover the callers' keys
     * @param checkOpen run between tables and every 256 entries: throws once the cache closes
     * @throws IOException if the writer's channel fails
     */
    public static void dump(ClockProtocol[] tables, DumpWriter writer, MemorySegment values,
                            long hashSeed, Runnable checkOpen) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            long[] frontier = new long[tables.length];
            MemorySegment[] marks = new MemorySegment[tables.length];
            for (int t = 0; t < tables.length; t++) {
                frontier[t] = tables[t].usedSlots();
                marks[t] = arena.allocate(((frontier[t] + 63) >>> 6) << 3, 8); // zeroed
            }
            for (int level = ClockMeta.MAX_COUNTDOWN; level >= 0; level--) {
                for (int t = 0; t < tables.length; t++) {
                    checkOpen.run();
                    pass(tables[t], frontier[t], marks[t], level, writer, values, hashSeed,
                            checkOpen);
                }
            }
        }
    }

    /** One pass over one table: the unwritten entries of countdown {@code level} or more. */
    private static void pass(ClockProtocol table, long slots, MemorySegment marks, int level,
                             DumpWriter writer, MemorySegment values, long hashSeed,
                             Runnable checkOpen) throws IOException {
        int untilCheck = 256;
        for (long index = 0; index < slots; index++) {
            long slot = SlotLayout.slotOffset(index);
            int countdown = table.visibleCountdown(slot);
            if (countdown < level || isMarked(marks, index)) {
                continue;
            }
            int stamp = table.referenceIfVisible(slot);
            if (stamp == 0) {
                continue;
            }
            try {
                long h0 = SlotLayout.key0(table.slots, slot);
                long h1 = SlotLayout.key1(table.slots, slot);
                long address = SlotLayout.valueAddress(table.slots, slot);
                int length = SlotLayout.valueLength(table.slots, slot);
                long charge = SlotLayout.charge(table.slots, slot);
                if (!table.stillHolds(slot, stamp)) {
                    continue; // freed and reused between the reads: not there throughout
                }
                long key1 = KeyHash.unhash1(h0, h1);
                long key0 = KeyHash.unhash0FromKey1(h0, key1, hashSeed);
                writer.write(key0, key1, charge, BY_COUNTDOWN[Math.max(countdown, 0)], values,
                        address, length);
                mark(marks, index);
            } finally {
                table.releaseOwn(slot, stamp);
            }
            if (--untilCheck == 0) {
                checkOpen.run();
                untilCheck = 256;
            }
        }
    }

    private static boolean isMarked(MemorySegment marks, long index) {
        return (marks.getAtIndex(ValueLayout.JAVA_LONG, index >>> 6) & (1L << index)) != 0;
    }

    private static void mark(MemorySegment marks, long index) {
        long word = marks.getAtIndex(ValueLayout.JAVA_LONG, index >>> 6);
        marks.setAtIndex(ValueLayout.JAVA_LONG, index >>> 6, word | (1L << index));
    }
}
