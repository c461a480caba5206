package dev.clockwork.cli.simulate;

import java.util.HashMap;
import java.util.Map;

/**
 * Belady's optimal policy (MIN): on a miss with the cache full, evict the entry used again
 * farthest in the future, or, if the missed key itself is used again later than all of them,
 * do not insert it (a key never used again is never inserted). With capacities in entries this
 * is optimal; with sizes, the same rule applied greedily is a good bound but not optimal
 * (optimal caching with sizes is NP-hard).
 *
 * <p>It must see the trace it was made for, access by access in order: the next use of every
 * access is computed up front (one backward pass, O(n) expected with a hash map), and a resident
 * entry is identified by the position of its next use. At access {@code i} the key is resident
 * iff {@code residentAt[i]}; entries wait in a max-heap by next-use position, so an eviction
 * is O(log n). Heap positions at or before the current access are stale (their entry was hit or
 * dropped) and skipped lazily: every live position lies in the future, so a stale one is never
 * above a live one. Memory: 4 + 8 + 1 bytes an access, plus the heap.
 */
final class OptPolicy implements SimPolicy {
    /** next use of "never": past every position. */
    private static final int NEVER = Integer.MAX_VALUE;

    private final Trace trace;
    private final long capacity;
    private final int[] nextUse;
    /** residentAt[p]: a resident entry's next use is access p. */
    private final boolean[] residentAt;
    /** sizeAt[p]: the size of the resident entry whose next use is access p. */
    private final long[] sizeAt;
    private final IntMaxHeap byNextUse = new IntMaxHeap();
    private int cursor;
    private long used;

    OptPolicy(Trace trace, long capacity) {
        this.trace = trace;
        this.capacity = capacity;
        this.nextUse = nextUses(trace);
        this.residentAt = new boolean[trace.length()];
        this.sizeAt = new long[trace.length()];
    }

    /** For each access, the position of the next access to the same key, or {@link #NEVER}. */
    static int[] nextUses(Trace trace) {
        int n = trace.length();
        int[] next = new int[n];
        Map<Long, Integer> later = new HashMap<>();
        for (int i = n - 1; i >= 0; i--) {
            Integer p = later.put(trace.key(i), i);
            next[i] = p == null ? NEVER : p;
        }
        return next;
    }

    @Override
    public boolean access(long key, long size) {
        int i = cursor++;
        if (i >= trace.length() || trace.key(i) != key) {
            throw new IllegalStateException("OPT replays the trace it was made for, in order;"
                    + " access " + i + " is not key " + key);
        }
        int next = nextUse[i];
        if (residentAt[i]) {
            residentAt[i] = false;
            long entrySize = sizeAt[i];
            if (next == NEVER) {
                used -= entrySize; // never used again: dropping it costs nothing
            } else {
                keep(next, entrySize);
            }
            return true;
        }
        if (next != NEVER && size <= capacity && makeRoom(next, size)) {
            used += size;
            keep(next, size);
        }
        return false;
    }

    private void keep(int next, long size) {
        residentAt[next] = true;
        sizeAt[next] = size;
        byNextUse.push(next);
    }

    /**
     * Evicts entries used again after {@code next} until {@code size} more fits; false (insert
     * nothing) when the farthest resident entry is used before {@code next}.
     */
    private boolean makeRoom(int next, long size) {
        while (used + size > capacity) {
            int farthest = byNextUse.peek();
            if (!residentAt[farthest]) {
                byNextUse.pop(); // stale
                continue;
            }
            if (farthest < next) {
                return false;
            }
            byNextUse.pop();
            residentAt[farthest] = false;
            used -= sizeAt[farthest];
        }
        return true;
    }
}
