package dev.clockwork.cli.simulate;

import static dev.clockwork.cli.simulate.PolicyTest.hits;
import static dev.clockwork.cli.simulate.PolicyTest.sized;
import static dev.clockwork.cli.simulate.PolicyTest.trace;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The published policies (S3-FIFO, SIEVE, ARC, LIRS, CLOCK-Pro) on sequences worked out by hand
 * in the comments, their bounds on a long random trace, and a loop, whose hits can be derived.
 */
class PeerPolicyTest {

    /** Accesses {@code keys} in entries; returns each access's hit (1) or miss (0). */
    private static int[] run(SimPolicy policy, long... keys) {
        return hits(policy, trace(keys), false);
    }

    @Test
    void sieveKeepsAVisitedEntryWhereItIsAndMovesTheHandOn() {
        // capacity 3; the queue is written newest first, * marks a visited entry.
        // 1 2 3: [3 2 1]; 1 hits: [3 2 1*]
        // 4: the hand starts at the tail: clears 1, evicts 2, rests on 3: [4 3 1]
        // 5: evicts 3 (the hand), rests on 4: [5 4 1]; 6: evicts 4: [6 5 1]
        // 1 hits (LRU and FIFO lost it at 6): [6 5 1*]
        // 4: evicts 5, rests on 6: [4 6 1*]; 5: evicts 6: [5 4 1*]; 1, 4, 5 hit
        assertArrayEquals(new int[] {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1},
                run(new SievePolicy(3), 1, 2, 3, 1, 4, 5, 6, 1, 4, 5, 1, 4, 5));
        assertArrayEquals(new int[] {0, 0, 0, 1, 0, 0, 0, 0},
                run(new LruPolicy(3), 1, 2, 3, 1, 4, 5, 6, 1), "LRU differs");
    }

    @Test
    void sieveInBytesEvictsUntilTheNewEntryFits() {
        // capacity 10: 1(4) 2(3); 1 hits; 3(5) needs 2 more: the hand clears 1, evicts 2 and
        // wraps (2 was the head): [3 1] = 9. 4(2): from the tail, 1 is evicted (its bit was
        // cleared): [4 3] = 7, the hand on 3. 1(4): evicts 3: [1 4] = 6. 4 hits.
        Trace t = sized(new long[] {1, 2, 1, 3, 4, 1, 4}, new int[] {4, 3, 4, 5, 2, 4, 2});
        SievePolicy sieve = new SievePolicy(10);
        assertArrayEquals(new int[] {0, 0, 1, 0, 0, 0, 1}, hits(sieve, t, true));
        assertEquals(6, sieve.used());
        // larger than the whole cache: not inserted, nothing evicted
        assertFalse(sieve.access(9, 11));
        assertFalse(sieve.access(9, 11));
        assertEquals(6, sieve.used());
    }

    @Test
    void s3fifoPromotesOnTwoHitsInSmallAndReinsertsMainEntriesWhileFrequent() {
        // capacity 10: S's share 1, M's 9, G's 9. 1..10 fill S (nothing is evicted before the
        // cache is full, so S holds all 10); each of 1..9 is hit twice (frequency 2).
        S3FifoPolicy s3 = new S3FifoPolicy(10);
        for (long k = 1; k <= 10; k++) {
            assertFalse(s3.access(k, 1));
        }
        for (long k = 1; k <= 9; k++) {
            assertTrue(s3.access(k, 1));
            assertTrue(s3.access(k, 1));
        }
        // 11: S is evicted from: 1..9 (frequency 2 > 1) move to M, frequency 0; 10 goes to G
        assertFalse(s3.access(11, 1));
        for (long k = 1; k <= 9; k++) {
            assertTrue(s3.inMain(k), "key " + k);
        }
        assertEquals(1, s3.ghostUsed());
        // 1 hit once (frequency 1), 2 twice (2); 12 makes room by evicting S's only entry, 11
        // (frequency 0), to G (10, 11), and enters S; 12 is hit twice (2)
        assertArrayEquals(new int[] {1, 1, 1, 0, 1, 1}, run(s3, 1, 2, 2, 12, 12, 12));
        assertEquals(2, s3.ghostUsed());
        // 13: S is evicted from: 12 (frequency 2) moves to M, which then holds 10 > 9, so M
        // evicts once: its oldest, 1 (frequency 1), goes back to M's head at 0, then 2 (2) at
        // 1, and 3 (0) leaves the cache (not to G). S is empty, the cache holds 9: 13 enters S
        assertFalse(s3.access(13, 1));
        assertTrue(s3.inMain(12));
        assertFalse(s3.inMain(3));
        assertTrue(s3.inMain(1) && s3.inMain(2));
        assertEquals(2, s3.ghostUsed());
        assertEquals(10, s3.used());
        // 3 is gone and not in G: a miss into S. 10 is in G: a miss into M.
        assertFalse(s3.access(3, 1));
        assertFalse(s3.inMain(3));
        assertFalse(s3.access(10, 1));
        assertTrue(s3.inMain(10));
        assertTrue(s3.access(1, 1) && s3.access(2, 1) && s3.access(12, 1));
    }

    @Test
    void s3fifoLooksInTheGhostAfterMakingRoom() {
        // capacity 2: S 1, M 1, G 1. 1 2 fill S; 3 evicts 1 to G. 1: making room evicts 2 to
        // G, which pushes 1 out of G (it holds one key), so 1 enters S, not M (the paper's
        // order, and Caffeine's simulator's).
        S3FifoPolicy s3 = new S3FifoPolicy(2);
        assertArrayEquals(new int[4], run(s3, 1, 2, 3, 1));
        assertFalse(s3.inMain(1));
        // with room in G: capacity 10, G holds 9; 1..10, then 11 evicts 1 to G; 1 comes back
        // into M (after 2 is evicted to G to make room)
        S3FifoPolicy big = new S3FifoPolicy(10);
        assertArrayEquals(new int[12], run(big, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1));
        assertTrue(big.inMain(1));
        assertFalse(big.inMain(2));
        assertEquals(1, big.ghostUsed(), "2 in G, 1 taken out");
        // hit once in S is not enough for M: 1 (frequency 1) goes to G when 11 makes room
        S3FifoPolicy once = new S3FifoPolicy(10);
        assertArrayEquals(new int[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
                run(once, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 11));
        assertFalse(once.inMain(1));
        assertEquals(1, once.ghostUsed());
    }

    @Test
    void s3fifoInBytes() {
        // capacity 100: S 10, M 90, G 90. 1(60) 2(30) = 90; 3(30): S is evicted from: 1 to G
        // (60), leaving 60. 1(60): 2 to G (60 + 30 = 90, fits), leaving 30; 1 is in G: M.
        Trace t = sized(new long[] {1, 2, 3, 1, 3, 2}, new int[] {60, 30, 30, 60, 30, 30});
        S3FifoPolicy s3 = new S3FifoPolicy(100);
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 0}, hits(s3, t, true));
        assertTrue(s3.inMain(1));
        // 2(30) at the end: 3 left S for G (G: 60 + 30 + 30 > 90, so 1 left G), 2 was in G
        assertTrue(s3.inMain(2));
        assertTrue(s3.used() <= 100);
        assertFalse(s3.access(7, 101), "larger than the cache");
        assertFalse(s3.access(7, 101));
    }

    @Test
    void arcAdaptsItsTargetOnGhostHits() {
        // capacity 2; lists LRU first, p = 0.
        // 1 2: T1 [1 2]. 3: |L1| = 2 = c and |T1| = c: T1's LRU (1) is dropped, no ghost.
        // 2 hits: T2 [2], T1 [3]. 4: |L1| + |L2| = 2: REPLACE, |T1| = 1 > p: 3 to B1; T1 [4].
        // 3 (B1 hit): p = 0 + max(1, 0 / 1) = 1; REPLACE, |T1| = 1 = p: T2's LRU (2) to B2;
        //   T2 [3]. 2 (B2 hit): p = 1 - max(1, 0 / 1) = 0; REPLACE: 4 to B1; T2 [3 2].
        // 4 (B1 hit): p = 1; REPLACE, T1 empty: 3 to B2; T2 [2 4], B2 [3].
        // 5: |L1| = 0, |L1| + |L2| = 3: REPLACE, T1 empty: 2 to B2 [3 2]; T1 [5].
        // 6: |L1| + |L2| = 4 = 2c: B2's LRU (3) dropped; REPLACE, |T1| = 1 = p: 4 to B2 [2 4];
        //   T1 [5 6]. 5 hits.
        ArcPolicy arc = new ArcPolicy(2);
        long[] keys = {1, 2, 3, 2, 4, 3, 2, 4, 5, 6, 5};
        int[] targets = {0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1};
        int[] expected = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1};
        for (int i = 0; i < keys.length; i++) {
            assertEquals(expected[i] == 1, arc.access(keys[i], 1), "access " + i);
            assertEquals(targets[i], arc.target(), "p after access " + i);
            assertTrue(arc.entryCount() <= 2);
        }
        assertEquals(2, arc.ghostCount(), "B2 [2 4]");
        // 2 is in B2: a miss that lowers p; 3 was dropped from B2: a plain miss, p unchanged
        assertFalse(arc.access(2, 1));
        assertEquals(0, arc.target());
        assertFalse(arc.access(3, 1));
        assertEquals(0, arc.target());
    }

    @Test
    void lirsPromotesOnLowInterReferenceRecency() {
        // capacity 3: 2 LIR blocks, 1 resident HIR. S and Q bottom first; n = non-resident.
        // 1 2: LIR. 3: HIR, S [1 2 3], Q [3]. 4: evicts 3 (non-resident in S); S [1 2 3n 4].
        // 3 (in S, IRR 1): evicts 4 (non-resident), 3 becomes LIR, 1 (S's bottom) HIR: Q [1];
        //   S [2 4n 3]. 1 hits (not in S: stays HIR); S [2 4n 3 1].
        // 2 hits at S's bottom: S [4n 3 1 2] is pruned to [3 1 2] (4 forgotten).
        // 1 hits in S: LIR; 3 becomes HIR, Q [3]; S [2 1]. 4 (forgotten): evicts 3 (not in
        //   S: forgotten); S [2 1 4], Q [4]. 3: evicts 4 (non-resident); S [2 1 4n 3].
        // 4 (in S): evicts 3; 4 LIR, 2 HIR, Q [2]; S [1 3n 4]. 2 hits (in Q).
        LirsPolicy lirs = new LirsPolicy(3);
        assertArrayEquals(new int[] {0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1},
                run(lirs, 1, 2, 3, 4, 3, 1, 2, 1, 4, 3, 4, 2));
        assertTrue(lirs.isLir(1) && lirs.isLir(4));
        assertFalse(lirs.isLir(2) || lirs.isLir(3));
        assertEquals(1, lirs.nonResidentCount(), "3");
        assertEquals(3, lirs.entryCount());
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0},
                run(new LruPolicy(3), 1, 2, 3, 4, 3, 1, 2, 1, 4, 3, 4, 2), "LRU differs");
    }

    @Test
    void lirsDoesNotPromoteOnARepeatedAccess() {
        // 4 enters as HIR at S's top (S [1 2 3n 4]); accessed again at once, it stays HIR
        // (a correlated reference); after another access in between it becomes LIR, and 1
        // (S's bottom) HIR
        LirsPolicy lirs = new LirsPolicy(3);
        assertArrayEquals(new int[] {0, 0, 0, 0, 1}, run(lirs, 1, 2, 3, 4, 4));
        assertFalse(lirs.isLir(4));
        assertTrue(lirs.access(2, 1));
        assertTrue(lirs.access(4, 1));
        assertTrue(lirs.isLir(4));
        assertFalse(lirs.isLir(1));
        assertTrue(lirs.access(1, 1), "1 is still resident, as HIR");
    }

    @Test
    void lirsBoundsItsNonResidentBlocks() {
        // capacity 2: 1 is LIR and stays; a stream of new keys leaves each one non-resident in
        // S (above 1), until the bound, twice the capacity, forgets the oldest
        LirsPolicy lirs = new LirsPolicy(2);
        lirs.access(1, 1);
        for (long k = 2; k < 200; k++) {
            assertFalse(lirs.access(k, 1));
            assertTrue(lirs.nonResidentCount() <= 2 * 2);
        }
        // S: [1 195n 196n 197n 198n 199], Q: [199]
        assertEquals(4, lirs.nonResidentCount());
        // 194 was forgotten: it comes back as HIR, not in S. Evicting 199 (non-resident in S)
        // passes the bound, and 195 is forgotten. S: [1 196n 197n 198n 199n 194]
        assertFalse(lirs.access(194, 1));
        assertFalse(lirs.isLir(194));
        assertEquals(4, lirs.nonResidentCount());
        // 196 is still in S: its IRR is low, so it becomes LIR and 1 (S's bottom) HIR; pruning
        // then forgets every non-resident block under 196
        assertFalse(lirs.access(196, 1));
        assertTrue(lirs.isLir(196));
        assertFalse(lirs.isLir(1));
        assertEquals(0, lirs.nonResidentCount());
        assertTrue(lirs.access(1, 1), "resident HIR, in Q");
        assertEquals(2, lirs.entryCount());
    }

    @Test
    void lirsRefusesACapacityWithoutRoomForAnHirBlock() {
        assertNotNull(LirsPolicy.refusal(1));
        assertNull(LirsPolicy.refusal(2));
        assertThrows(IllegalArgumentException.class, () -> new LirsPolicy(1));
    }

    @Test
    void clockProPromotesAColdPageReusedInItsTestPeriod() {
        // capacity 4: the cold target is 2 (bounds [2, 2]), ghosts at most 8. The list is
        // written head (newest) first; n marks a ghost. 1 2 enter hot, 3 4 cold in their test
        // period: [4 3 2 1], the cold hand on 3, the hot hand on 1.
        // 5: the cold hand evicts 3 (unreferenced, in test: a ghost) and moves to 4: [5 4 3n 2 1]
        // 3 (a ghost in test): the cold hand evicts 4 the same way; 3 is promoted, and as hot
        //   pages (2) would pass the capacity less the cold target, the hot hand demotes 1
        //   (unreferenced) to cold: [3 1 5 4n 2]
        ClockProPolicy clock = new ClockProPolicy(4);
        assertArrayEquals(new int[6], run(clock, 1, 2, 3, 4, 5, 3));
        assertTrue(clock.isHot(3) && clock.isHot(2));
        assertFalse(clock.isHot(1));
        assertEquals(1, clock.nonResidentCount(), "4");
        // 1 hits (its bit set). 6: the cold hand evicts 5 and moves to 1: [6 3 1 5n 4n 2]
        // 7: 1 is referenced but not in test: its bit is cleared and it goes to the head for a
        //   new period; 6 is evicted: [7 1 6n 3 5n 4n 2]. 1 hits again.
        assertArrayEquals(new int[] {1, 0, 0, 1}, run(clock, 1, 6, 7, 1));
        // 6 (a ghost): the cold hand finds 1 referenced in its period and promotes it, the hot
        // hand demoting 2 and ending the periods of the ghosts 4 and 5 it passes (forgotten);
        // then it evicts 7. 6 is promoted too, the hot hand demoting 3 and ending the periods
        // of 6 and 7 as it moves on, so nothing is left in test: [6 3 1 2]
        assertFalse(clock.access(6, 1));
        assertTrue(clock.isHot(6) && clock.isHot(1));
        assertFalse(clock.isHot(3) || clock.isHot(2));
        assertEquals(0, clock.nonResidentCount());
        assertEquals(4, clock.entryCount());
        assertEquals(2, clock.coldTarget());
    }

    @Test
    void clockProTakesARepeatedAccessAsOne() {
        // 4 enters cold; repeated at once it is a hit that does not set its bit, so the cold
        // hand evicts it at 6 (after 3 at 5), and 4 is a miss
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 0, 0, 0},
                run(new ClockProPolicy(4), 1, 2, 3, 4, 4, 5, 6, 4));
        // with another access between, 4's bit is set: at 6 it is promoted instead (its test
        // period was still on), and the cold hand evicts 5
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 0, 0, 1},
                run(new ClockProPolicy(4), 1, 2, 3, 4, 1, 4, 5, 6, 4));
        assertNotNull(ClockProPolicy.refusal(3));
        assertNull(ClockProPolicy.refusal(4));
        assertThrows(IllegalArgumentException.class, () -> new ClockProPolicy(3));
    }

    /**
     * A loop over 30 keys, 20 times, at 10 entries. LIRS: the first 9 keys become LIR and hit
     * every round after the first; each other key is missed and, by its next use, out of S
     * and Q, so 19 x 9 hits. LRU, ARC (T1 is full, so its LRU is dropped without a ghost) and
     * SIEVE (no hit, no visited bit: FIFO) never hit. Nor does S3-FIFO: S holds the 10 newest
     * keys (M stays empty), and a key evicted to G is pushed out of it by the 9 evicted after
     * it, 20 accesses before its next use.
     */
    @Test
    void aLoopLargerThanTheCache() {
        long[] keys = new long[30 * 20];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i % 30;
        }
        Trace loop = trace(keys);
        assertEquals(19 * 9, replay(loop, new LirsPolicy(10)));
        assertEquals(0, replay(loop, new ArcPolicy(10)));
        assertEquals(0, replay(loop, new SievePolicy(10)));
        assertEquals(0, replay(loop, new S3FifoPolicy(10)));
        assertEquals(0, replay(loop, new LruPolicy(10)));
    }

    private static long replay(Trace t, SimPolicy policy) {
        return Replay.replay(t, false, policy, Progress.none(), "");
    }

    /** A skewed random trace: the smaller of two uniform draws over {@code keys}. */
    private static Trace skewed(int accesses, int keys, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] k = new long[accesses];
        int[] sizes = new int[accesses];
        for (int i = 0; i < accesses; i++) {
            k[i] = Math.min(random.nextInt(keys), random.nextInt(keys));
            sizes[i] = 1 + (int) (k[i] * 7 % 50);
        }
        return new Trace("skewed", k, sizes, null);
    }

    @Test
    void boundsHoldAndNoneBeatsOpt() {
        Trace t = skewed(30_000, 3000, 7);
        for (int capacity : new int[] {4, 5, 10, 200, 1000}) {
            S3FifoPolicy s3 = new S3FifoPolicy(capacity);
            SievePolicy sieve = new SievePolicy(capacity);
            ArcPolicy arc = new ArcPolicy(capacity);
            LirsPolicy lirs = new LirsPolicy(capacity);
            ClockProPolicy clock = new ClockProPolicy(capacity);
            long[] hitCounts = new long[5];
            for (int i = 0; i < t.length(); i++) {
                hitCounts[0] += s3.access(t.key(i), 1) ? 1 : 0;
                hitCounts[1] += sieve.access(t.key(i), 1) ? 1 : 0;
                hitCounts[2] += arc.access(t.key(i), 1) ? 1 : 0;
                hitCounts[3] += lirs.access(t.key(i), 1) ? 1 : 0;
                hitCounts[4] += clock.access(t.key(i), 1) ? 1 : 0;
                assertTrue(s3.used() <= capacity && s3.ghostUsed() <= 0.9 * capacity);
                assertTrue(sieve.entryCount() <= capacity);
                assertTrue(arc.entryCount() <= capacity
                        && arc.entryCount() + arc.ghostCount() <= 2 * capacity);
                assertTrue(lirs.entryCount() <= capacity
                        && lirs.lirCount() <= (int) (0.99 * capacity)
                        && lirs.nonResidentCount() <= 2 * capacity, "lirs at " + i);
                assertTrue(clock.entryCount() <= capacity && clock.hotCount() < capacity
                        && clock.nonResidentCount() <= 2 * capacity, "clockpro at " + i);
            }
            assertEquals((int) (0.99 * capacity), lirs.lirCount(), "the LIR part is full");
            long opt = replay(t, new OptPolicy(t, capacity));
            long lru = replay(t, new LruPolicy(capacity));
            for (long h : hitCounts) {
                assertTrue(h <= opt, capacity + ": " + h + " > opt " + opt);
            }
            // on this skewed trace every one of them keeps the hot keys better than LRU, at
            // least from a capacity of 10
            if (capacity >= 10) {
                for (long h : hitCounts) {
                    assertTrue(h >= lru, capacity + ": " + h + " < lru " + lru);
                }
            }
        }
    }

    @Test
    void boundsHoldInBytes() {
        Trace t = skewed(30_000, 3000, 11);
        for (long capacity : new long[] {1, 49, 50, 1000, 20_000}) {
            S3FifoPolicy s3 = new S3FifoPolicy(capacity);
            SievePolicy sieve = new SievePolicy(capacity);
            for (int i = 0; i < t.length(); i++) {
                s3.access(t.key(i), t.size(i));
                sieve.access(t.key(i), t.size(i));
                assertTrue(s3.used() <= capacity && s3.ghostUsed() <= 0.9 * capacity);
                assertTrue(sieve.used() <= capacity);
            }
        }
    }

    @Test
    void theEntriesOnlyPoliciesRefuseBytes() {
        PolicyRegistry registry = PolicyRegistry.standard();
        Trace t = sized(new long[] {1}, new int[] {10});
        for (String name : new String[] {"arc", "lirs", "clockpro"}) {
            PolicyFactory f = registry.factory(name);
            assertFalse(f.takesBytes());
            assertNotNull(f.check(t, 100, true));
            assertNull(f.check(t, 100, false));
            assertThrows(IllegalArgumentException.class, () -> f.create(t, 100, true));
        }
        for (String name : new String[] {"s3fifo", "sieve"}) {
            assertTrue(registry.factory(name).takesBytes());
        }
        assertNotNull(registry.factory("lirs").check(t, 1, false));
        assertNotNull(registry.factory("clockpro").check(t, 3, false));
        assertFalse(registry.namesTakingBytes().contains("arc"));
        assertTrue(registry.namesTakingBytes().contains("sieve"));
    }
}
