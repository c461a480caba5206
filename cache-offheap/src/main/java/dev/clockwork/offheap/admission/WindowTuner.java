package dev.clockwork.offheap.admission;

/**
 * Sizes W-TinyLFU's admission window from ghosts: evidence, per miss, of which side of the cache
 * would have hit it had it been larger. ARC's adaptation (Megiddo and Modha, "ARC: A Self-Tuning,
 * Low Overhead Replacement Cache", FAST 2003), applied to the window instead of ARC's T1.
 *
 * <h2>Evidence</h2>
 * TinyLFU remembers, for a little while, the candidates it refused and the victims it let go
 * ({@link RecentKeys}, "ghosts": hashes only). On a miss:
 * <ul>
 *   <li>a key refused lately <em>and</em> accessed within the last {@value #RECENT_HORIZON} ×
 *   entries accesses says a larger window (more recency) would have hit: the share grows;
 *   <li>a key evicted lately as a victim says the main region (frequency) would have hit: the
 *   share shrinks.
 * </ul>
 * Each vote moves the window by one entry, times the ratio of the other ghost's size to this
 * one's when that is above 1 (as ARC weighs its ghost hits), so that the side refusing or evicting
 * more keys does not win by volume alone: a flood of one-off keys, all refused, does not open the
 * window for the few that come back. The "accessed lately" test is what keeps a loop longer than
 * the cache frozen: its keys come back after more accesses than the cache holds, where LRU would
 * miss them too, so a refused loop key is no evidence for recency.
 *
 * <h2>Why not hill climbing</h2>
 * Caffeine climbs the window on the sampled hit ratio. On a working set that moves on (the hit
 * ratio flat near zero until the window holds a whole phase) a climber sees no slope and stays put
 * (Caffeine 10.6 % against LRU's 83 % on such a trace); measured on the LIRS and cache2k traces, a
 * climber also did no better than a fixed 1 % window. Ghosts see each miss that the other choice
 * would have hit, at once. See docs/simulate.md.
 *
 * <p>Memory: three {@link RecentKeys} of {@value RecentKeys#BITS_PER_KEY} bits per entry in
 * each of two generations: 6 bytes per entry of capacity. Not thread-safe: {@link #onAccess} and
 * the rotations run under {@link TinyLfu}'s lock; {@link #onRefused} and {@link #onEvicted} race
 * (a lost ghost is lost evidence, nothing worse); {@link #share} is read by any thread.
 */
final class WindowTuner {
    /** The window's share of capacity at the start: Caffeine's 1 %. */
    static final double FIRST_SHARE = 0.01;
    /**
     * A ghost generation lasts this many accesses per entry of capacity, so a refused or evicted
     * key is remembered for 0.5 to 1 × entries accesses.
     */
    static final double GHOST_GENERATION = 0.5;
    /**
     * "Accessed lately" means within 0.375 to this × entries accesses: less than the cache holds,
     * so only a key LRU of this size would still hold counts as evidence for recency.
     */
    static final double RECENT_HORIZON = 0.75;

    private final long entries;
    private final RecentKeys refused;
    private final RecentKeys evicted;
    private final RecentKeys recent;
    private final long ghostGeneration;
    private final long recentGeneration;
    private long sinceGhostRotation;
    private long sinceRecentRotation;
    /** The window's share of capacity, 0..1; written under the lock, read by any thread. */
    private volatile double share;

    WindowTuner(long entries, double share) {
        this.entries = Math.max(1, entries);
        this.refused = new RecentKeys(this.entries, 0x2545_F491_4F6C_DD1DL);
        this.evicted = new RecentKeys(this.entries, 0x1B87_3593_CC9E_2D51L);
        this.recent = new RecentKeys(this.entries, 0x6C8E_9CF5_7093_2BD5L);
        this.ghostGeneration = Math.max(1, (long) (this.entries * GHOST_GENERATION));
        this.recentGeneration = Math.max(1, (long) (this.entries * RECENT_HORIZON / 2));
        this.share = share;
    }

    double share() {
        return share;
    }

    /** A candidate was refused (racy). */
    void onRefused(long keyHash) {
        refused.add(keyHash);
    }

    /** A victim was evicted for a candidate (racy). */
    void onEvicted(long keyHash) {
        evicted.add(keyHash);
    }

    /** Under the lock: one recorded access, in order. */
    void onAccess(long keyHash, boolean hit) {
        if (!hit) {
            if (refused.contains(keyHash) && recent.contains(keyHash)) {
                move(weight(evicted, refused));
            } else if (evicted.contains(keyHash)) {
                move(-weight(refused, evicted));
            }
        }
        recent.add(keyHash);
        if (++sinceRecentRotation >= recentGeneration) {
            recent.rotate();
            sinceRecentRotation = 0;
        }
        if (++sinceGhostRotation >= ghostGeneration) {
            refused.rotate();
            evicted.rotate();
            sinceGhostRotation = 0;
        }
    }

    /** ARC's weight of a hit in {@code hit}'s ghost: at least 1, else the other's size over its. */
    private static double weight(RecentKeys other, RecentKeys hit) {
        return Math.max(1.0, (double) other.added() / Math.max(1, hit.added()));
    }

    private void move(double votes) {
        share = Math.max(0, Math.min(1, share + votes / entries));
    }

    long bytes() {
        return refused.bytes() + evicted.bytes() + recent.bytes();
    }
}
