package dev.clockwork.offheap;

/**
 * The admission policies a cache can be built with ({@code admission(AdmissionPolicy)} on every
 * builder); a policy of one's own is given as a {@link dev.clockwork.cache.admission.Admission}.
 */
public enum AdmissionPolicy {
    /** Every insert may evict what it needs; the most recently inserted entry is kept. */
    NONE,
    /**
     * TinyLFU: an insert that must evict displaces each victim only if a frequency sketch has seen
     * the new key more often lately, so one-off keys cannot flush a hot working set. Sized from the
     * capacity and the charges inserted; see {@code docs/design.md}, "Admission".
     */
    TINY_LFU
}
