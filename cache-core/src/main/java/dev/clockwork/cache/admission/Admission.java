package dev.clockwork.cache.admission;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CacheStats;

/**
 * A hook consulted on every insert before the cache spends memory or evicts anything. A TinyLFU
 * filter implements it to keep one-off keys from flushing a hot working set.
 *
 * <p>Implementations are called concurrently from every inserting thread and must not allocate
 * on their steady-state path. {@link #recordAccess} is called for every lookup so that a frequency
 * sketch sees hits and misses alike.
 */
public interface Admission {

    /** Admits everything; the default. */
    Admission ALWAYS = new Admission() {
        @Override
        public boolean admit(long key0, long key1, long charge) {
            return true;
        }

        @Override
        public void recordAccess(long key0, long key1) {
        }
    };

    /**
     * Returns whether an insert of this key may proceed. A rejected insert is reported to the caller
     * (see {@link Cache#insert}) and counted in {@link CacheStats#admissionRejects()}, never
     * dropped silently.
     */
    boolean admit(long key0, long key1, long charge);

    /** Tells the policy that the key was looked up (hit or miss). */
    void recordAccess(long key0, long key1);
}
