package dev.clockwork.cli.simulate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The reference policies (lru, opt) on sequences worked out by hand. */
class PolicyTest {

    static Trace trace(long... keys) {
        return new Trace("t", keys, null, null);
    }

    static Trace sized(long[] keys, int[] sizes) {
        return new Trace("t", keys, sizes, null);
    }

    /** Each access's hit (1) or miss (0). */
    static int[] hits(SimPolicy policy, Trace t, boolean bytes) {
        int[] h = new int[t.length()];
        for (int i = 0; i < h.length; i++) {
            h[i] = policy.access(t.key(i), bytes ? t.size(i) : 1) ? 1 : 0;
        }
        return h;
    }

    @Test
    void lruEvictsTheLeastRecentlyUsed() {
        // a b a c b at 2: a, b miss; a hits (b is now eldest); c evicts b; b misses
        assertArrayEquals(new int[] {0, 0, 1, 0, 0},
                hits(new LruPolicy(2), trace(1, 2, 1, 3, 2), false));
        // a b c a b c at 2: LRU's worst case, never a hit
        assertArrayEquals(new int[6], hits(new LruPolicy(2), trace(1, 2, 3, 1, 2, 3), false));
        LruPolicy lru = new LruPolicy(3);
        hits(lru, trace(1, 2, 3, 4, 5), false);
        assertEquals(3, lru.entryCount());
    }

    @Test
    void lruInBytesEvictsUntilTheNewEntryFits() {
        // at 10 bytes: a(6), b(5) evicts a; a(6) evicts b; c(11) is larger than the cache and is
        // not kept (a stays); a hits
        Trace t = sized(new long[] {1, 2, 1, 3, 1}, new int[] {6, 5, 6, 11, 6});
        assertArrayEquals(new int[] {0, 0, 0, 0, 1}, hits(new LruPolicy(10), t, true));
    }

    @Test
    void optOnTheTextbookSequence() {
        // 1 2 3 4 1 2 5 1 2 3 4 5 at 3: MIN misses 7 times (4 and 5 are not kept: 3 is used
        // before them); hits at 1, 2 (twice each) and 3
        Trace t = trace(1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5);
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 0},
                hits(new OptPolicy(t, 3), t, false));
    }

    @Test
    void optDeclinesKeysUsedLaterThanEveryResident() {
        // a b a b at 1: b is used after a's next use, so b is not kept and a hits
        Trace t = trace(1, 2, 1, 2);
        assertArrayEquals(new int[] {0, 0, 1, 0}, hits(new OptPolicy(t, 1), t, false));
        // a b c a b c at 2: keeps a and b, declines c
        Trace loop = trace(1, 2, 3, 1, 2, 3);
        assertArrayEquals(new int[] {0, 0, 0, 1, 1, 0}, hits(new OptPolicy(loop, 2), loop, false));
        // in bytes, at 10: a(6) kept; b(5) would need a, used sooner: declined
        Trace s = sized(new long[] {1, 2, 1, 2}, new int[] {6, 5, 6, 5});
        assertArrayEquals(new int[] {0, 0, 1, 0}, hits(new OptPolicy(s, 10), s, true));
    }

    @Test
    void optNextUses() {
        int never = Integer.MAX_VALUE;
        assertArrayEquals(new int[] {2, 3, never, never},
                OptPolicy.nextUses(trace(7, 8, 7, 8)));
    }

    @Test
    void optRefusesAnotherTrace() {
        OptPolicy opt = new OptPolicy(trace(1, 2), 1);
        assertThrows(IllegalStateException.class, () -> opt.access(2, 1));
    }

    @Test
    void optNeverLosesToLruOrCaffeine() {
        SplittableRandom random = new SplittableRandom(42);
        long[] keys = new long[20_000];
        for (int i = 0; i < keys.length; i++) {
            // skewed: the smaller of two uniform draws
            keys[i] = Math.min(random.nextInt(3000), random.nextInt(3000));
        }
        Trace t = trace(keys);
        for (long capacity : new long[] {1, 10, 200, 1000}) {
            long opt = Replay.replay(t, false, new OptPolicy(t, capacity), Progress.none(), "");
            long lru = Replay.replay(t, false, new LruPolicy(capacity), Progress.none(), "");
            long caffeine = Replay.replay(t, false, new CaffeinePolicy(capacity, false),
                    Progress.none(), "");
            assertTrue(opt >= lru && opt >= caffeine,
                    capacity + ": opt " + opt + ", lru " + lru + ", caffeine " + caffeine);
        }
    }
}
