package dev.clockwork.cache.admission;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CacheStats;

/**
 * An admission policy in the TinyLFU manner: told of every lookup, and asked, each time eviction
 * has chosen a victim to make room for an insert, whether the candidate should displace it.
 *
 * <p>Keys reach the policy as the cache's hashed key (the first word of its seeded 128-bit mix
 * of the caller's key), already uniformly distributed: a policy uses it as it is and never hashes
 * again.
 *
 * <p>Where each cache type asks: a HyperClock cache when its sweep has found an entry to evict
 * (unreferenced, its clock run down), before it takes it; an LRU cache for the oldest entry of its
 * list (the bottom pool's oldest first, then the low and high pools'). An insert whose charge
 * needs several victims asks for each: the candidate must out-score every entry it displaces, and
 * the victims admitted before a refusal stay evicted, as in Caffeine's weighted eviction. A
 * refusal ends the insert: it returns "not inserted" ({@code false}, or {@link Cache#MISS} for a
 * pinned insert, and no handle is made), its value is freed at once, and it is counted in
 * {@link CacheStats#admissionRejects()}, apart from memory-limit rejects. An insert that needs no
 * eviction, or replaces the key's own entry, is never asked about.
 *
 * <p>Implementations are called concurrently from every thread and must not block or allocate on
 * their steady-state path; {@link #recordAccess} runs on every lookup, so it must not write to
 * memory other threads write (buffer, stripe, or drop). The hit flag lets a policy tune itself
 * to the hit ratio it achieves.
 */
public interface Admission {

    /** Admits everything and records nothing; the default. */
    Admission ALWAYS = new Admission() {
        @Override
        public void recordAccess(long keyHash, boolean hit) {
        }

        @Override
        public boolean admit(long candidateHash, long victimHash) {
            return true;
        }
    };

    /** Tells the policy that a key was looked up, and whether the lookup hit. */
    void recordAccess(long keyHash, boolean hit);

    /** Whether the candidate should displace the victim eviction has chosen. */
    boolean admit(long candidateHash, long victimHash);

    /**
     * Tells the policy that an entry of {@code charge} was stored, so that it can size itself
     * from the charges it sees (a byte capacity does not say how many entries it holds).
     */
    default void recordInsert(long charge) {
    }
}
