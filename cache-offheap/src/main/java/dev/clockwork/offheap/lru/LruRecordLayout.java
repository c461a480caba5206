package dev.clockwork.offheap.lru;

import dev.clockwork.offheap.entry.RecordSlab;
import dev.clockwork.offheap.entry.ValueHeader;

/**
 * Layout of one LRU cache entry: a 64-byte {@link RecordSlab} record (RocksDB's {@code LRUHandle}
 * with its key is about 96 bytes, plus malloc's header).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |        Next entry in the same hash bucket (record index)     | 0
 *  +--------------------------------------------------------------+
 *  | refs (24 bits)                          | flags (8 bits)     | 4
 *  +--------------------------------------------------------------+
 *  |                 Hashed key, first half (h0)                  | 8
 *  |                                                              |
 *  +--------------------------------------------------------------+
 *  |                 Hashed key, second half (h1)                 | 16
 *  |                                                              |
 *  +--------------------------------------------------------------+
 *  |                 Value address (ValueSlabs)                   | 24
 *  |                                                              |
 *  +--------------------------------------------------------------+
 *  |                 Charge                                       | 32
 *  |                                                              |
 *  +--------------------------------------------------------------+
 *  |                 Value length                                 | 40
 *  +--------------------------------------------------------------+
 *  |        Stamp (EntryStamp: odd while it holds an entry)       | 44
 *  +--------------------------------------------------------------+
 *  |                 LRU list: previous (older) entry             | 48
 *  |                                                              |
 *  +--------------------------------------------------------------+
 *  |                 LRU list: next (newer) entry                 | 56
 *  |                                                              |
 *  +--------------------------------------------------------------+
 * </pre>
 *
 * <p>Bytes 8..47 are the {@link ValueHeader} every record kind shares, so that one code path
 * reads a value through any cache's handle; the rest is the LRU's own.
 *
 * <p>Every field is written under the shard's lock, so plain accesses do. Reading a pinned entry's
 * value, length and charge through its handle takes no lock: the reference held keeps them from
 * changing. That path also reads the stamp without the lock, before and after its read, to refuse
 * a stale handle (ShardedCache#value); a racing (buggy) caller only ever reads slab memory.
 *
 * <p>The list links are addresses, not indexes, because they are followed on every hit; the hash
 * link is an index so that buckets take 4 bytes. The stamp sits right after the value length
 * so that reading a value through a handle checks the stamp without another memory access
 * (an access through a scoped segment is a bounds and liveness check in compiled code, and with
 * one more the value path outgrows what C2 inlines, and its view escapes: 40 B per read).
 */
public final class LruRecordLayout {
    public static final long ENTRY_BYTES = 64;

    static final long HASH_NEXT_OFFSET = RecordSlab.FREE_NEXT_OFFSET;
    static final long REFS_AND_FLAGS_OFFSET = 4;
    static final long KEY0_OFFSET = ValueHeader.KEY0_OFFSET;
    static final long KEY1_OFFSET = ValueHeader.KEY1_OFFSET;
    static final long VALUE_ADDRESS_OFFSET = ValueHeader.VALUE_ADDRESS_OFFSET;
    static final long CHARGE_OFFSET = ValueHeader.CHARGE_OFFSET;
    static final long VALUE_LENGTH_OFFSET = ValueHeader.VALUE_LENGTH_OFFSET;
    /** Beside the value length: one 8-byte read gives a handle check both (see ShardedCache). */
    static final long STAMP_OFFSET = ValueHeader.STAMP_OFFSET;
    static final long LRU_PREV_OFFSET = 48;
    static final long LRU_NEXT_OFFSET = 56;

    /** Flag: the entry is in the hash table (not erased, not evicted). */
    static final int IN_CACHE = 1;
    /** Flag: the entry was hit since it was inserted (promotes it to the high pool). */
    static final int HAS_HIT = 1 << 1;
    /** Flag: the entry is on the list in the high pool. */
    static final int IN_HIGH_POOL = 1 << 2;
    /** Flag: the entry is on the list in the low pool. */
    static final int IN_LOW_POOL = 1 << 3;
    /** Flags bits 4-5: the insert priority's ordinal. */
    static final int PRIORITY_SHIFT = 4;
    static final int PRIORITY_MASK = 3 << PRIORITY_SHIFT;
    /**
     * Flag: the entry is in the admission window (W-TinyLFU), not yet admitted to the main list;
     * kept while it is referenced, so its last release puts it back in the window.
     */
    static final int IN_WINDOW = 1 << 6;
    static final int FLAG_BITS = 8;
    // A free record has refs and flags all zero: any set bit means it holds an entry.
    static final int ONE_REF = 1 << FLAG_BITS;
    /** Most references one entry can hold at once (24 bits). */
    static final int MAX_REFS = (1 << (32 - FLAG_BITS)) - 1;

    private LruRecordLayout() {
    }
}
