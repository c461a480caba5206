package dev.clockwork.offheap.entry;

import dev.clockwork.offheap.memory.NativeAllocator;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * 64-byte records carved from native chunks, named by a 31-bit index: the LRU cache's entries.
 *
 * <p>Why not malloc each entry: a handle must be checked before it is trusted, and a made-up
 * address cannot be checked without reading it (a crash) or keeping a heap set of live entries
 * (the heap would grow with entries). An index can: it is bounds-checked against the chunk table,
 * which is native memory that only grows and is freed at close, so any index that passes the check
 * reads a record of this slab, live or free, and the record's stamp tells a stale handle
 * apart. Carving also saves malloc's 16-byte header per entry.
 *
 * <pre>
 *   index (31 bits) = chunk (21 bits) | record in chunk (10 bits)
 *
 *   chunk table (native):  +-----------+-----------+-----+
 *                          | chunk 0   | chunk 1   | ... |   8 bytes each
 *                          +-----------+-----------+-----+
 *   chunk (native, 64 KiB, aligned to 64 KiB):
 *                          +--------------+----------+----------+-----+------------+
 *                          | header:      | record 1 | record 2 | ... | record 1023|
 *                          | chunk number |          |          |     |            |
 *                          +--------------+----------+----------+-----+------------+
 * </pre>
 *
 * <p>The first 64 bytes of each chunk are its header, never a record: they hold the chunk's number,
 * so a record's address gives back its index ({@link #indexOf}) with one read, and index 0 means
 * "none" in the chains that link records by index. A free record's first int holds the next free
 * index. The int at {@link #STAMP_OFFSET} is the record's stamp ({@link EntryStamp}): it
 * moves on when the record is handed out and again when it is freed, so a record holds an entry
 * exactly when its stamp is odd, and every handle made before a free stops matching at once.
 *
 * <p>Allocation and freeing run under the owner's lock. {@link #addressOf} may run without it. It
 * reads the published chunk count, then the table (both volatile): a table is published before any
 * count that needs it, and holds the addresses of all chunks counted before it, so whichever table
 * the reader gets covers the count it read. Tables outgrown are kept until close, because a reader
 * may still hold one; together they are smaller than the current table. Chunks are never
 * returned before close: after a capacity shrink or many erases the free records stay with the
 * slab (64 bytes per entry at the peak).
 */
public final class RecordSlab {
    static final int RECORD_SHIFT = 6;
    public static final long RECORD_BYTES = 1L << RECORD_SHIFT;
    static final int CHUNK_SHIFT = 10;
    public static final int RECORDS_PER_CHUNK = 1 << CHUNK_SHIFT;
    public static final long CHUNK_BYTES = RECORD_BYTES << CHUNK_SHIFT;
    /** Indexes are 31 bits, so at most this many chunks (2^31 records, 128 GiB of them). */
    public static final int MAX_CHUNKS = 1 << (31 - CHUNK_SHIFT);

    public static final long FREE_NEXT_OFFSET = 0;
    /**
     * Where the stamp lives: the second half of a record's eighth word, so that an owner
     * can read it with the int before it in one access (the LRU entry's value length).
     */
    public static final long STAMP_OFFSET = ValueHeader.STAMP_OFFSET;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final int FIRST_TABLE_CHUNKS = 4;

    private final long stampSalt;
    /** Or'ed with a record's index: a number no other slot or record of the cache has. */
    private final long identityBase;
    /** All memory, scoped to the cache's arena: for {@link #addressOf}, which runs unlocked. */
    private final MemorySegment mem;
    /** All memory, unscoped: for everything else, which runs under the owner's lock. */
    private final MemorySegment raw;
    /** Chunks this slab may carve at most (ShardSizing.maxRecordChunks); see {@link #full}. */
    private final int maxChunks;
    /** The chunk table: [chunk 0][chunk 1]...; written under the owner's lock. */
    private volatile long table;
    /** Chunks a lock-free reader may use: written after their addresses are in the table. */
    private volatile int publishedChunks;
    /** The same address, for reads under the owner's lock (no volatile load per record). */
    private long lockedTable;
    private int tableChunks;
    private int chunks;
    /** Head of the free list (0: empty). */
    private int freeHead;
    /** Next never-used index in the newest chunk. */
    private int fresh;
    private long[] retiredTables = new long[0];
    private int[] retiredTableChunks = new int[0];

    /**
     * @param stampSalt the cache's salt for seeding stamps (the cache context's {@code stampSalt})
     * @param identityBase or'ed with a record's index, a number no other slot or record of the
     *     cache has (its bits above the index's 31)
     * @param maxChunks the most chunks the slab may carve (ShardSizing.maxRecordChunks)
     */
    public RecordSlab(MemorySegment mem, MemorySegment raw, long stampSalt, long identityBase,
               int maxChunks) {
        this.mem = mem;
        this.raw = raw;
        this.stampSalt = stampSalt;
        this.identityBase = identityBase;
        this.maxChunks = maxChunks;
        this.tableChunks = FIRST_TABLE_CHUNKS;
        long t = NativeAllocator.allocate(tableBytes(tableChunks));
        this.table = t;
        this.lockedTable = t;
        try {
            addChunk();
        } catch (OutOfMemoryError e) {
            NativeAllocator.free(t, tableBytes(tableChunks));
            throw e;
        }
    }

    private static long tableBytes(int chunks) {
        return 8L * chunks;
    }

    private void addChunk() {
        if (chunks == maxChunks) { // callers check full() first
            throw new IllegalStateException("a shard holds at most " + ((long) maxChunks
                    << CHUNK_SHIFT) + " records");
        }
        long t = table;
        if (chunks == tableChunks) {
            t = growTable(t);
        }
        long chunk = NativeAllocator.allocateAligned(CHUNK_BYTES, CHUNK_BYTES);
        MemorySegment.ofAddress(chunk).reinterpret(CHUNK_BYTES).fill((byte) 0);
        raw.set(INT, chunk, chunks); // the header
        raw.set(LONG, t + 8L * chunks, chunk);
        chunks++;
        publishedChunks = chunks; // volatile: a reader that sees it also sees the address
        fresh = ((chunks - 1) << CHUNK_SHIFT) + 1; // past the header
    }

    private long growTable(long old) {
        int bigger = tableChunks * 2;
        long t = NativeAllocator.allocate(tableBytes(bigger));
        MemorySegment.copy(raw, old, raw, t, tableBytes(tableChunks));
        retiredTables = Arrays.copyOf(retiredTables, retiredTables.length + 1);
        retiredTables[retiredTables.length - 1] = old;
        retiredTableChunks = Arrays.copyOf(retiredTableChunks, retiredTableChunks.length + 1);
        retiredTableChunks[retiredTableChunks.length - 1] = tableChunks;
        tableChunks = bigger;
        lockedTable = t;
        table = t; // volatile: publishes the copied contents with it
        return t;
    }

    /**
     * Whether {@link #allocate} would need a chunk beyond {@link #maxChunks}: no free record, the
     * newest chunk used up, and no more chunks allowed. Under the owner's lock.
     */
    public boolean full() {
        return freeHead == 0 && fresh >>> CHUNK_SHIFT == chunks && chunks == maxChunks;
    }

    /**
     * Hands out a record: its stamp moved on to an odd number, its other bytes stale. The caller
     * checks {@link #full} first.
     */
    public int allocate() {
        int index = freeHead;
        if (index != 0) {
            freeHead = raw.get(INT, address(index) + FREE_NEXT_OFFSET);
        } else {
            if (fresh >>> CHUNK_SHIFT == chunks) {
                addChunk(); // the newest chunk is used up
            }
            index = fresh++;
        }
        long record = address(index);
        raw.set(INT, record + STAMP_OFFSET,
                EntryStamp.live(stamp(record), stampSalt, identityBase | index));
        // The new stamp is seen before the fields the caller writes next: a read through a stale
        // handle reads a field, then the stamp, and must not pair a new field with the old stamp.
        VarHandle.storeStoreFence();
        return index;
    }

    /**
     * Returns a record to the free list; its stamp moves on to an even number first. Whatever the
     * caller frees after this (the entry's value) is freed after the stamp's store is seen: a
     * value read through a handle reads the stamp again after its read and refuses a moved one.
     */
    public void free(int index) {
        long record = address(index);
        raw.set(INT, record + STAMP_OFFSET, EntryStamp.dead(stamp(record)));
        VarHandle.storeStoreFence();
        raw.set(INT, record + FREE_NEXT_OFFSET, freeHead);
        freeHead = index;
    }

    /** The address of a record; for indexes this slab handed out, under the owner's lock. */
    public long address(int index) {
        return raw.get(LONG, lockedTable + 8L * (index >>> CHUNK_SHIFT))
                + ((long) (index & (RECORDS_PER_CHUNK - 1)) << RECORD_SHIFT);
    }

    /**
     * The address of any index within the slab's chunks, or -1 if it lies outside them; safe
     * without the owner's lock, and for a made-up index.
     */
    public long addressOf(int index) {
        int chunk = index >>> CHUNK_SHIFT;
        if (index <= 0 || chunk >= publishedChunks) {
            return -1;
        }
        // Scoped: this runs unlocked, and may race close, which frees the table after the arena.
        return mem.get(LONG, table + 8L * chunk)
                + ((long) (index & (RECORDS_PER_CHUNK - 1)) << RECORD_SHIFT);
    }

    /** The index of a record this slab handed out, from its address. */
    public int indexOf(long record) {
        int chunk = raw.get(INT, record & -CHUNK_BYTES);
        return (chunk << CHUNK_SHIFT) | (int) ((record >>> RECORD_SHIFT) & (RECORDS_PER_CHUNK - 1));
    }

    /** Whether a record holds an entry (its stamp is odd). */
    public static boolean isLive(int stamp) {
        return EntryStamp.isLive(stamp);
    }

    public int stamp(long record) {
        return raw.get(INT, record + STAMP_OFFSET);
    }

    /** Native bytes the slab holds: its chunks and its chunk tables, outgrown ones included. */
    public long nativeBytes() {
        long bytes = (long) chunks * CHUNK_BYTES + tableBytes(tableChunks);
        for (int retired : retiredTableChunks) {
            bytes += tableBytes(retired);
        }
        return bytes;
    }

    /** Chunks' records, headers included: the slab's native footprint is this x 64 B. */
    public long carvedRecords() {
        return (long) chunks << CHUNK_SHIFT;
    }

    /**
     * The fresh mark: every index below it has been handed out at least once or is a chunk
     * header ({@link #isHeader}); no index at or above it ever has. Under the owner's lock.
     */
    public int freshIndex() {
        return fresh;
    }

    /** Whether an index names a chunk's header rather than a record. */
    public static boolean isHeader(int index) {
        return (index & (RECORDS_PER_CHUNK - 1)) == 0;
    }

    /** Calls {@code visitor} with the address of every record ever handed out (free ones too). */
    public void forEachCarved(RecordVisitor visitor) {
        for (int c = 0; c < chunks; c++) {
            long chunk = raw.get(LONG, table + 8L * c);
            int from = 1;
            int to = c == chunks - 1 ? fresh - (c << CHUNK_SHIFT) : RECORDS_PER_CHUNK;
            for (int r = from; r < to; r++) {
                visitor.visit(chunk + ((long) r << RECORD_SHIFT));
            }
        }
    }

    public interface RecordVisitor {
        void visit(long record);
    }

    /**
     * Frees the chunks and tables; for close, under the owner's lock.
     */
    public void freeAll() {
        long t = table;
        for (int c = 0; c < chunks; c++) {
            NativeAllocator.free(raw.get(LONG, t + 8L * c), CHUNK_BYTES);
        }
        NativeAllocator.free(t, tableBytes(tableChunks));
        for (int i = 0; i < retiredTables.length; i++) {
            NativeAllocator.free(retiredTables[i], tableBytes(retiredTableChunks[i]));
        }
        chunks = 0;
    }
}
