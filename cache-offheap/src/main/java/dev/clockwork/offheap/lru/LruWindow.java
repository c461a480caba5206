package dev.clockwork.offheap.lru;

import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.admission.TinyLfu;

/**
 * An LRU shard's admission policy and window: W-TinyLFU's eviction over the shard's two lists
 * (the window, {@code windowHead}, takes new entries; the main list's bottom pool is the
 * probation region and its high pool the protected one). Apart from {@link LruShard} because it
 * is the one part of the shard that asks a policy, and the only one a cache without a policy
 * does not have (the shard then holds no window and evicts plain LRU). Runs under the shard's
 * lock, on the shard's lists and usage; the shard stays their owner.
 *
 * <p>A window entry keeps its {@code IN_WINDOW} flag while referenced, so that its last release
 * puts it back in the window.
 */
final class LruWindow {
    /** Where {@link #evictFor} sends the new entry, or that the policy refused it. */
    enum Placement {
        /** Room was made and the new entry enters the window. */
        WINDOW,
        /** Room was made, the new entry won its duel: it enters the main list. */
        MAIN,
        /** The new entry lost its duel and is not inserted. */
        REFUSED
    }

    private final LruShard shard;
    /** One hit in this many on the protected pool is told to TinyLFU; a power of two. */
    static final int PROTECTED_HIT_SAMPLE = 4;
    private final Admission admission;
    /** Hits on the protected pool, under the shard's lock: {@link #recordHit}'s sampling. */
    private int protectedHits;
    /**
     * Whether {@link #admission} is the built-in TinyLFU, which never calls back into a cache and
     * so is asked without the callback marks ({@link LruRefusals#ASKING_POLICY}).
     */
    private final boolean trustedPolicy;
    /** The window's share of capacity last read from the policy. */
    private double windowShare;

    /**
     * Tells the cache's own TinyLFU of a hit, under the shard's lock ({@link LruShard#lookup}):
     * every hit outside the protected pool, where the window's and probation's entries wait to
     * be judged, and one in {@value #PROTECTED_HIT_SAMPLE} of the protected pool's, whose entries
     * are judged only once they fall back to probation. So most hits on the hot set cost
     * admission a counter's increment. A user's policy hears of every lookup from the cache.
     */
    void recordHit(long h0, boolean inProtectedPool) {
        if (trustedPolicy
                && (!inProtectedPool || (++protectedHits & (PROTECTED_HIT_SAMPLE - 1)) == 0)) {
            admission.recordAccess(h0, true);
        }
    }

    LruWindow(LruShard shard, Admission admission) {
        this.shard = shard;
        this.admission = admission;
        this.trustedPolicy = admission instanceof TinyLfu;
    }

    double windowShare() {
        return windowShare;
    }

    /** Sizes the window and the main list's pools for a capacity and the window's share. */
    void apply(long capacity, double share) {
        windowShare = share;
        shard.setWindowShare(capacity, share);
    }

    /** Resizes the window and the pools if the policy has moved the window's share. */
    void followShare(long capacity) {
        double share = askShare();
        if (share != windowShare) {
            apply(capacity, share);
        }
    }

    /**
     * W-TinyLFU's eviction, making room for a new entry of {@code charge}, bound for the window
     * if it fits in the window's share, else for the main list. While the shard is over capacity:
     * <ul>
     *   <li>if the window is over its share (counting the new entry, if bound for it), its oldest
     *   entry (the candidate) leaves, judged by the policy against the main list's oldest (the
     *   victim): the loser is evicted, and a winning candidate joins the main list as its newest
     *   probation entry (the bottom pool, or the high pool if inserted {@link Priority#HIGH});
     *   <li>else, if the new entry is bound for the main list, it is judged itself against the
     *   victim: it is refused as soon as it loses (the victims it won against stay evicted),
     *   unless it replaces its key's entry ({@code replacing}): a new value for a present key is
     *   never refused;
     *   <li>else the main list is over its share: its oldest is evicted unasked.
     * </ul>
     * With an empty main list the window's oldest is evicted unasked. A window entry that loses
     * is counted as an admission reject and as an eviction; a new entry that loses is refused
     * (the caller counts it). When no room had to be made, a window over its share passes its
     * oldest to the main list unjudged (a cache filling up, as in Caffeine).
     */
    Placement evictFor(long charge, long newKey, boolean replacing) {
        boolean intoWindow = charge <= shard.windowCapacity;
        boolean full = !shard.fits(charge);
        long evicted = 0;
        long rejected = 0;
        try {
            while (!shard.fits(charge)) {
                long victim = shard.next(shard.head);
                long candidate = shard.next(shard.windowHead);
                if (victim == shard.head) {
                    if (!shard.evictOldest()) {
                        break;
                    }
                } else if (candidate != shard.windowHead && windowOver(intoWindow ? charge : 0)) {
                    if (!duel(candidate, victim)) {
                        rejected++;
                    }
                } else if (!intoWindow && !replacing && !admits(newKey, shard.key0(victim))) {
                    return Placement.REFUSED;
                } else {
                    shard.evict(victim);
                }
                evicted++;
            }
        } finally {
            // Also when the policy threw: what was evicted before stays evicted, and counted.
            shard.countEvictions(evicted, rejected);
        }
        if (!full) {
            trimWindow(intoWindow ? charge : 0);
        }
        return intoWindow ? Placement.WINDOW : Placement.MAIN;
    }

    private boolean windowOver(long charge) {
        return shard.windowUsage + charge > shard.windowCapacity;
    }

    /**
     * The window's oldest ({@code candidate}) against the main list's oldest ({@code victim}):
     * the loser is evicted; a winning candidate moves to the main list. Returns whether the
     * candidate won.
     */
    private boolean duel(long candidate, long victim) {
        if (admits(shard.key0(candidate), shard.key0(victim))) {
            shard.evict(victim);
            admitFromWindow(candidate);
            return true;
        }
        long loserCharge = shard.charge(candidate); // read before its record is freed
        shard.evict(candidate);
        shard.windowLoser(loserCharge);
        return false;
    }

    /**
     * Asks the policy whether {@code candidate} may displace {@code victim}. Between two entries
     * of the list, under the lock: a user's policy is asked with the shard and the thread marked,
     * so that a call it makes back into the cache is refused instead of changing the list under
     * this eviction (or, on another shard, waiting for a lock in a cycle). What it throws ends
     * the insert; the entries evicted so far stay evicted.
     */
    private boolean admits(long candidate, long victim) {
        if (trustedPolicy) {
            return admission.admit(candidate, victim);
        }
        shard.refusals.enterCallback(LruRefusals.ASKING_POLICY);
        try {
            return admission.admit(candidate, victim);
        } finally {
            shard.refusals.exitCallback(LruRefusals.ASKING_POLICY);
        }
    }

    /**
     * The window's share of capacity the policy asks for, in [0, 1] whatever it answers (NaN:
     * 0): a share past 1 would make the main region's capacity negative, and an infinite one
     * never fits a long.
     */
    double askShare() {
        double share;
        if (trustedPolicy) {
            share = admission.windowShare();
        } else {
            shard.refusals.enterCallback(LruRefusals.ASKING_POLICY);
            try {
                share = admission.windowShare();
            } finally {
                shard.refusals.exitCallback(LruRefusals.ASKING_POLICY);
            }
        }
        return share >= 0 ? Math.min(share, 1) : 0; // NaN fails the comparison too
    }

    /**
     * Moves the window's oldest entries to the main list, unjudged, until {@code charge} more
     * fits in the window's share.
     */
    private void trimWindow(long charge) {
        while (windowOver(charge) && shard.next(shard.windowHead) != shard.windowHead) {
            admitFromWindow(shard.next(shard.windowHead));
        }
    }

    /** Moves an unreferenced window entry to the main list, as a probation entry. */
    private void admitFromWindow(long e) {
        assert shard.hasFlag(e, LruRecordLayout.IN_WINDOW) : "not a window entry";
        shard.listRemove(e);
        shard.setFlags(e, 0, LruRecordLayout.IN_WINDOW | LruRecordLayout.HAS_HIT);
        shard.listInsert(e);
    }
}
