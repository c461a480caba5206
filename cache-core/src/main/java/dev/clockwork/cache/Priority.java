package dev.clockwork.cache;

/**
 * How hard a cache should try to keep an entry, honoured by every cache type.
 *
 * <p>A HyperClock cache gives a new entry a clock countdown of 3, 2 or 1 (it survives that many
 * sweeps without a hit); an LRU cache inserts it at the head of the high, low or bottom pool. Index
 * and filter blocks are typically {@link #HIGH}, data blocks {@link #LOW}, blobs and scans
 * {@link #BOTTOM}.
 *
 * <p>As an insert's {@link Placement}, a priority places an untagged entry (kind 0): the way to
 * insert when the cache counts no kinds ({@link EntryKind}).
 */
public enum Priority implements Placement {
    /** Kept longest: a clock countdown of 3, or the LRU's high pool (index and filter blocks). */
    HIGH,
    /** A clock countdown of 2, or the LRU's low pool (data blocks). */
    LOW,
    /** A clock countdown of 1, or the LRU's bottom pool, evicted from first (blobs, scans). */
    BOTTOM;

    /** @return this priority */
    @Override
    public Priority priority() {
        return this;
    }

    /** @return 0: an entry placed by priority alone carries no kind */
    @Override
    public int kindIndex() {
        return 0;
    }
}
