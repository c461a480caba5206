package dev.clockwork.offheap;

/**
 * The admission policies a cache can be built with ({@code admission(AdmissionPolicy)} on every
 * builder); a policy of one's own is given as a {@link dev.clockwork.cache.admission.Admission}.
 */
public enum AdmissionPolicy {
    /**
     * Every insert may evict what it needs; the most recently inserted entry is kept. For a cache
     * that must hold what it was last given (a test's expectations, a buffer of recent items).
     */
    NONE,
    /**
     * TinyLFU, the default: an insert that must evict displaces each victim only if a frequency
     * sketch has seen the new key more often lately, so one-off keys cannot flush a hot working
     * set.
     *
     * <p>Heap: 14 bytes per entry the sketch covers (8 of counters, 6 of ghosts that size the
     * window), plus 8 KiB of buffers; nothing per access. The sketch never covers more entries than
     * the cache can hold at its smallest charge (a Fixed table's occupancy limit, an Auto table's
     * reserved slots, the records an LRU's slabs can name), nor more than 2^26. Under that bound it
     * starts at capacity / 4096 entries, at most 4,096 (so about 64 KiB whatever the capacity,
     * {@code Long.MAX_VALUE} included), and grows, emptied, as entries are inserted: to the
     * entries inserted so far rounded up to a power of two (at least 4,096), but no further than
     * capacity / the average charge inserted, the entries a full cache holds. Its counters halve
     * every ten events per entry it covers. See {@code docs/design.md}, "Admission".
     */
    TINY_LFU
}
