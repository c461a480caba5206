package dev.clockwork.offheap.entry;

/**
 * The part of every entry record that the value path reads, at the same offsets in a HyperClock
 * slot, a standalone record and an LRU record, so that one code path reads a value through any
 * handle ({@code ShardedCache#value}). Each cache family lays out the rest of its 64 bytes
 * (bytes 0..7 and 48..63) itself.
 *
 * <pre>
 *   0               8               16              24              32          40      44      48
 *  +---------------+---------------+---------------+---------------+-----------+-------+-------+
 *  | (the family's)| hashed key h0 | hashed key h1 | value address |  charge   | length| stamp |
 * (the family's) ...
 *  +---------------+---------------+---------------+---------------+-----------+-------+-------+
 * </pre>
 *
 * <p>The value length and the stamp ({@link EntryStamp}) share one 8-byte word, the length in its
 * low half on the little-endian platforms FFM runs on: one read gives the value path both, and
 * reading it again after the value address tells whether the entry was freed in between.
 */
public final class ValueHeader {
    public static final long KEY0_OFFSET = 8;
    public static final long KEY1_OFFSET = 16;
    public static final long VALUE_ADDRESS_OFFSET = 24;
    public static final long CHARGE_OFFSET = 32;
    public static final long VALUE_LENGTH_OFFSET = 40;
    /** The high half of the word at {@link #VALUE_LENGTH_OFFSET}. */
    public static final long STAMP_OFFSET = 44;
    /** The first byte after the header. */
    public static final long END_OFFSET = 48;

    private ValueHeader() {
    }

    /** The address or offset of the 8-byte word holding a record's value length and stamp. */
    public static long lengthWordOffset(long record) {
        return record + VALUE_LENGTH_OFFSET;
    }
}
