package dev.clockwork.offheap.entry;

/**
 * The 8-byte word at {@link ValueHeader#CHARGE_OFFSET} of every entry record: the entry's charge
 * in the low 60 bits and its kind ({@code EntryKind}'s index, 0 for untagged) in the top 4.
 *
 * <pre>
 *   63      60 59                                                            0
 *  +----------+---------------------------------------------------------------+
 *  |   kind   |                          charge                               |
 *  +----------+---------------------------------------------------------------+
 * </pre>
 *
 * <p>Why it fits: a stored charge is at most a shard's usage limit, at most
 * {@code CacheOptions.MAX_USAGE} = 2^56, which takes 57 bits (2^56 itself sets bit 56, so the
 * top byte is not free; the top four bits are, with three to spare). A larger charge is refused
 * before any record is written. Untagged entries (kind 0) have the word they always had, so
 * every reader that masks reads the same charge, and a cache that counts no kinds sees only such
 * words.
 *
 * <p>Every reader of a charge reads it through {@link #charge}: the HyperClock slots and
 * standalone records, the LRU records, eviction, visits and {@code Cache.charge(handle)}.
 */
public final class ChargeWord {
    /** The kind's place: the word's top four bits. */
    public static final int KIND_SHIFT = 60;
    /** The charge's bits. */
    public static final long CHARGE_MASK = (1L << KIND_SHIFT) - 1;

    private ChargeWord() {
    }

    /**
     * The word for a charge and a kind.
     *
     * @param charge at most {@code CacheOptions.MAX_USAGE} (callers refuse larger ones first)
     * @param kindIndex 0 to 15
     */
    public static long of(long charge, int kindIndex) {
        assert charge >= 0 && charge <= CHARGE_MASK : "charge " + charge + " fits below the kind";
        return charge | (long) kindIndex << KIND_SHIFT;
    }

    /** The charge a word holds. */
    public static long charge(long word) {
        return word & CHARGE_MASK;
    }

    /** The kind's index a word holds, 0 for an untagged entry. */
    public static int kind(long word) {
        return (int) (word >>> KIND_SHIFT);
    }
}
