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
 * <p>Where each cache type asks:
 * <ul>
 *   <li>A HyperClock cache, when its sweep has found an entry to evict (unreferenced, its clock
 *   run down), before it takes it; the candidate is the entry being inserted.
 *   <li>An LRU cache keeps W-TinyLFU's admission window of {@link #windowShare} of its capacity:
 *   a new entry enters the window unasked, and when the window overflows in a full cache its
 *   oldest entry is the candidate, against the oldest entry of the main list (probation first,
 *   then protected); the loser is evicted. A new entry that does not fit in the window (a share
 *   of 0) is itself the candidate.
 * </ul>
 * An insert whose charge needs several victims asks for each: the candidate must out-score every
 * entry it displaces, and the victims admitted before a refusal stay evicted, as in Caffeine's
 * weighted eviction. A refused new entry ends its insert: it returns "not inserted"
 * ({@code false}, or {@link Cache#MISS} for a pinned insert, and no handle is made), its value is
 * freed at once, and it is counted in {@link CacheStats#admissionRejects()}, apart from
 * memory-limit rejects. A refused window entry is evicted, and counted there too. An insert that
 * needs no eviction, or replaces the key's own entry, is never asked about; an accepted insert is
 * found by the next lookup.
 *
 * <p>Implementations are called concurrently from every thread and must not block or allocate on
 * their steady-state path; {@link #recordAccess} runs on every lookup, so it must not write to
 * memory other threads write (buffer, stripe, or drop). The hit flag lets a policy tune itself
 * (TinyLFU sizes its window from the misses it sees).
 *
 * <p>A policy of one's own is untrusted code to the cache (see "Callbacks" in {@link Cache}):
 * what it throws reaches the caller of the lookup or insert that asked, with the cache's
 * accounting exact and nothing left pinned or leaked; an insert whose {@link #admit} threw is not
 * stored. It should not call back into the cache: from {@link #admit} and {@link #windowShare}
 * an LRU cache refuses every call and a HyperClock cache refuses inserts, and no cache may be
 * closed from inside a policy ({@link IllegalStateException} in each case).
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

    /**
     * Tells the policy that a key was looked up, and whether the lookup hit.
     *
     * @param keyHash the looked-up key's hashed key (see above)
     * @param hit {@code true} if the lookup found the key
     */
    void recordAccess(long keyHash, boolean hit);

    /**
     * Whether the candidate should displace the victim eviction has chosen.
     *
     * @param candidateHash the hashed key of the entry that wants room: the one being inserted,
     *     or (LRU) the window's oldest
     * @param victimHash the hashed key of the entry eviction would take
     * @return {@code true} to evict the victim; {@code false} to keep it, which refuses the
     *     candidate (see above)
     */
    boolean admit(long candidateHash, long victimHash);

    /**
     * Tells the policy that an entry of {@code charge} was stored, so that it can size itself
     * from the charges it sees (a byte capacity does not say how many entries it holds).
     *
     * @param charge the charge the insert was given ({@code >= 0}, metadata not included)
     */
    default void recordInsert(long charge) {
    }

    /**
     * The share of capacity, 0 to 1, that a cache with an admission window gives new entries
     * (W-TinyLFU): an insert enters the window unasked, and is judged against a victim only when
     * it leaves the window for the main region. 0 judges every new entry at once; 1 is the cache's
     * own recency order alone. A policy may change it as it learns the workload; caches read it
     * on each insert.
     *
     * @return the window's share of capacity, in {@code [0, 1]}: caches read a larger value as
     *     1, and a negative one or NaN as 0; the default is 0
     */
    default double windowShare() {
        return 0;
    }
}
