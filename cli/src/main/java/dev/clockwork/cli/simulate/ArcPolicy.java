package dev.clockwork.cli.simulate;

import java.util.LinkedHashSet;

/**
 * ARC, the Adaptive Replacement Cache (Megiddo and Modha, "ARC: A Self-Tuning, Low Overhead
 * Replacement Cache", FAST 2003), as the paper's pseudocode gives it, in entries. Four LRU
 * lists: T1 (resident, seen once recently) and T2 (resident, seen at least twice), and the ghost
 * lists B1 and B2 of keys evicted from T1 and T2. The target size p of T1 adapts: a hit in B1
 * (a key T1 lost too soon) raises p by max(1, |B2| / |B1|), a hit in B2 lowers it by
 * max(1, |B1| / |B2|); REPLACE then evicts T1's LRU entry to B1 if |T1| exceeds p (or equals it
 * on a B2 hit), else T2's LRU entry to B2. A hit, and a ghost hit, put the key at T2's MRU end; a
 * miss in all four lists puts it at T1's, after trimming B1 (when T1 and B1 hold the capacity
 * c) or B2 (when all four hold 2c). So T1 + T2 hold at most c keys and the four lists 2c.
 *
 * <p>The ratios are integer quotients, as in Caffeine's simulator ({@code adaptive.ArcPolicy}),
 * so p stays an integer (the paper leaves the division's kind open; with a real p the test
 * {@code |T1| = p} could seldom hold). Sizes are not supported: ARC's lists and p count pages,
 * so {@code simulate} refuses it with {@code -bytes}.
 *
 * <p>Structure: each list is an insertion-ordered {@link LinkedHashSet} (LRU first), so a key's
 * list is found by lookup and every step is O(1).
 */
final class ArcPolicy implements SimPolicy {
    private final int capacity;
    private final LinkedHashSet<Long> t1 = new LinkedHashSet<>();
    private final LinkedHashSet<Long> t2 = new LinkedHashSet<>();
    private final LinkedHashSet<Long> b1 = new LinkedHashSet<>();
    private final LinkedHashSet<Long> b2 = new LinkedHashSet<>();
    /** Target size of T1, in [0, capacity]. */
    private int p;

    ArcPolicy(int capacity) {
        this.capacity = capacity;
    }

    @Override
    public boolean access(long key, long size) {
        if (t1.remove(key) || t2.remove(key)) {
            t2.add(key);
            return true;
        }
        if (b1.contains(key)) {
            p = Math.min(capacity, p + Math.max(1, b2.size() / b1.size()));
            replace(false);
            b1.remove(key);
            t2.add(key);
        } else if (b2.contains(key)) {
            p = Math.max(0, p - Math.max(1, b1.size() / b2.size()));
            replace(true);
            b2.remove(key);
            t2.add(key);
        } else {
            onMissEverywhere();
            t1.add(key);
        }
        return false;
    }

    /** Case IV of the paper: makes room for a key in none of the four lists. */
    private void onMissEverywhere() {
        int l1 = t1.size() + b1.size();
        int l2 = t2.size() + b2.size();
        if (l1 == capacity) {
            if (t1.size() < capacity) {
                removeLru(b1);
                replace(false);
            } else {
                removeLru(t1);
            }
        } else if (l1 + l2 >= capacity) {
            if (l1 + l2 == 2 * capacity) {
                removeLru(b2);
            }
            replace(false);
        }
    }

    /** REPLACE(x, p): evicts T1's or T2's LRU entry to its ghost list. */
    private void replace(boolean hitInB2) {
        int sizeT1 = t1.size();
        if (sizeT1 >= 1 && (sizeT1 > p || (hitInB2 && sizeT1 == p))) {
            b1.add(removeLru(t1));
        } else {
            b2.add(removeLru(t2));
        }
    }

    private static long removeLru(LinkedHashSet<Long> list) {
        return list.removeFirst();
    }

    /** Resident entries (for tests). */
    int entryCount() {
        return t1.size() + t2.size();
    }

    /** Ghost keys (for tests). */
    int ghostCount() {
        return b1.size() + b2.size();
    }

    /** The target size of T1 (for tests). */
    int target() {
        return p;
    }
}
