package dev.clockwork.offheap.entry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

class EntryStampTest {
    private static final int TAG_MASK = (1 << EntryStamp.TAG_BITS) - 1;
    /** Generations the old successor kept for ever: 0 and 1,877,912,539. */
    private static final int[] OLD_FIXED_POINTS = {0, 1_877_912_539};

    // ---------------------------------------------------------------- the construction's parts

    /** Every width the tests walk, and the cache's: mix and unmix undo each other on all inputs. */
    @Test
    void mixIsABijectionAtEveryWidthUpToTheCaches() {
        for (int bits = 1; bits <= EntryStamp.HIGH_BITS; bits++) {
            int size = 1 << bits;
            for (int x = 0; x < size; x++) {
                int mixed = EntryStamp.mix(x, bits);
                assertTrue(mixed >= 0 && mixed < size, bits + " bits: mix(" + x + ") = " + mixed);
                assertEquals(x, EntryStamp.unmix(mixed, bits), bits + " bits, x " + x);
                assertEquals(x, EntryStamp.mix(EntryStamp.unmix(x, bits), bits),
                        bits + " bits, x " + x);
            }
        }
    }

    @Test
    void inversesAreInversesMod2To32() {
        for (int odd : new int[] {1, 3, -1, 0x85EB_CA6B, 0xC2B2_AE35, 0x7FFF_FFFF}) {
            assertEquals(1, odd * EntryStamp.inverse(odd), Integer.toHexString(odd));
        }
    }

    @Test
    void orderAndUnorderUndoEachOtherAndKeepTheTag() {
        SplittableRandom random = new SplittableRandom(5);
        int[] edges = {0, 1, 2, TAG_MASK - 1, TAG_MASK, TAG_MASK + 1, 1 << 30, (1 << 30) - 1,
                Integer.MAX_VALUE, Integer.MAX_VALUE - 1, Integer.MAX_VALUE - TAG_MASK,
                OLD_FIXED_POINTS[1]};
        int[] inputs = Arrays.copyOf(edges, edges.length + 1_000_000);
        for (int i = edges.length; i < inputs.length; i++) {
            inputs[i] = random.nextInt() & Integer.MAX_VALUE;
        }
        for (int x : inputs) {
            int g = order(x);
            assertTrue(g >= 0, "31 bits: order(" + x + ") = " + g);
            assertEquals(x & TAG_MASK, g & TAG_MASK, "the tag is the count's");
            assertEquals(x, unorder(g), "unorder(order(" + x + "))");
            int c = unorder(x);
            assertTrue(c >= 0, "31 bits: unorder(" + x + ") = " + c);
            assertEquals(x, order(c), "order(unorder(" + x + "))");
        }
    }

    // ---------------------------------------------------------------- successors

    /**
     * A slot's next stamp is live, never its last one (so never a fixed point: the old successor
     * had two, and a slot on one spun for ever), and never shares the tag bits, whatever stamp,
     * salt and slot.
     */
    @Test
    void theNextStampIsLiveAndDiffersFromTheLastInTheTagBits() {
        SplittableRandom random = new SplittableRandom(17);
        int[] special = {0, 1, 2, TAG_MASK, OLD_FIXED_POINTS[1], Integer.MAX_VALUE};
        for (int i = 0; i < 2_000_000; i++) {
            int generation = i < special.length ? special[i] : random.nextInt() >>> 1;
            int last = (generation << 1) | 1;
            long salt = random.nextLong();
            long identity = random.nextLong();
            int next = EntryStamp.live(EntryStamp.dead(last), salt, identity);
            assertTrue(EntryStamp.isLive(next));
            assertNotEquals(0, (next ^ last) & EntryStamp.SUCCESSOR_DIFFERS,
                    "stamp " + last + " followed by " + next);
        }
    }

    @Test
    void aFreshSlotsFirstStampIsItsSeedsSuccessor() {
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 100_000; i++) {
            long salt = random.nextLong();
            long identity = random.nextLong();
            int seed = EntryStamp.seed(salt, identity);
            int first = EntryStamp.live(0, salt, identity);
            assertEquals((next(seed) << 1) | 1, first);
        }
    }

    /** Seeds keep away from 0 and its neighbours: tags 2..510, each about as often. */
    @Test
    void seedsHaveTheTagsTwoTo510Evenly() {
        SplittableRandom random = new SplittableRandom(11);
        int[] tags = new int[TAG_MASK + 1];
        int draws = 509 * 2_000;
        for (int i = 0; i < draws; i++) {
            int seed = EntryStamp.seed(random.nextLong(), i);
            assertTrue(seed > 0, "seed " + seed);
            tags[seed & TAG_MASK]++;
        }
        assertEquals(0, tags[0] + tags[1] + tags[TAG_MASK]);
        for (int tag = 2; tag < TAG_MASK; tag++) {
            assertTrue(tags[tag] > 1_700 && tags[tag] < 2_300, "tag " + tag + ": " + tags[tag]);
        }
    }

    /**
     * The first generations of fresh slots of different caches (or different slots of one) agree
     * about as often as 2^-31 predicts: 2^20 draws make 256 equal pairs on average. A per-slot
     * mask xor'ed in and out instead of the swap gives ~40,000 here (its first tags are 1 half
     * the time, 3 a quarter, ...).
     */
    @Test
    void firstGenerationsOfFreshSlotsAgreeAsRarelyAsRandomOnes() {
        SplittableRandom random = new SplittableRandom(23);
        for (int t = 1; t <= 3; t++) {
            int[] generations = new int[1 << 20];
            for (int i = 0; i < generations.length; i++) {
                long salt = random.nextLong();
                int stamp = 0;
                for (int k = 0; k < t; k++) {
                    stamp = EntryStamp.live(EntryStamp.isLive(stamp) ? EntryStamp.dead(stamp)
                            : stamp, salt, 42);
                }
                generations[i] = stamp >>> 1;
            }
            long pairs = equalNeighbours(generations);
            assertTrue(pairs < 400, "entry " + t + ": " + pairs + " equal pairs, 256 expected");
        }
    }

    // ---------------------------------------------------------------- the period

    /**
     * The construction at reduced widths, walked from 0 (a fresh slot) until it comes back: it
     * must take every generation once, 2^width steps, and change the tag at every step; for
     * every seed the widths allow up to 7 bits, and for some at 21.
     */
    @Test
    void everySlotTakesEveryGenerationBeforeRepeatingAtReducedWidths() {
        int[][] widths = {{2, 1}, {2, 2}, {3, 3}, {3, 4}, {4, 3}};
        for (int[] w : widths) {
            int tagBits = w[0];
            int tags = 1 << tagBits;
            for (int seed = 1; seed < 1 << (tagBits + w[1]); seed++) {
                int tag = seed & (tags - 1);
                if (tag >= 2 && tag <= tags - 2) {
                    assertFullPeriod(seed, tagBits, w[1]);
                }
            }
        }
        SplittableRandom random = new SplittableRandom(29);
        for (int i = 0; i < 4; i++) {
            int seed = ((random.nextInt(1 << 12)) << 9) | (2 + random.nextInt(509));
            assertFullPeriod(seed, 9, 12);
        }
        // Seeds whose tag is next to 0's (1 or 511), or 0 itself, break the tag rule.
        assertFalse(changesEveryTag(1, 3, 4));
        assertFalse(changesEveryTag(7, 3, 4));
    }

    /**
     * The cache's width walked whole: 2^31 successors of one slot from 0, every one a new
     * generation until the 2^31st, which is 0 again. About a minute (25 ns a step), so only with
     * {@code -Dclockwork.fullPeriod=true}; the reduced widths above walk the same code.
     */
    @Test
    @EnabledIfSystemProperty(named = "clockwork.fullPeriod", matches = "true")
    void aSlotAtTheCachesWidthComesBackAfterExactly2To31Entries() {
        int seed = EntryStamp.seed(0x5EED, 7);
        long steps = 0;
        int g = 0;
        do {
            int next = EntryStamp.successor(g, seed, EntryStamp.TAG_BITS, EntryStamp.HIGH_BITS);
            if (((next ^ g) & TAG_MASK) == 0) {
                throw new AssertionError("tag kept at step " + steps);
            }
            g = next;
            steps++;
        } while (g != 0 && steps <= 1L << 31);
        assertEquals(1L << 31, steps);
    }

    private static void assertFullPeriod(int seed, int tagBits, int highBits) {
        int size = 1 << (tagBits + highBits);
        BitSet seen = new BitSet(size);
        int g = 0;
        int tagMask = (1 << tagBits) - 1;
        for (int step = 1; step <= size; step++) {
            int next = EntryStamp.successor(g, seed, tagBits, highBits);
            assertTrue(next >= 0 && next < size, "out of range: " + next);
            assertNotEquals(0, (next ^ g) & tagMask, "seed " + seed + ", step " + step
                    + ": tag kept, " + g + " -> " + next);
            assertFalse(seen.get(next), "seed " + seed + ": " + next + " again at step " + step);
            seen.set(next);
            g = next;
        }
        assertEquals(0, g, "seed " + seed + ": back to 0 after 2^" + (tagBits + highBits));
    }

    private static boolean changesEveryTag(int seed, int tagBits, int highBits) {
        int g = 0;
        int tagMask = (1 << tagBits) - 1;
        for (int step = 0; step < 1 << (tagBits + highBits); step++) {
            int next = EntryStamp.successor(g, seed, tagBits, highBits);
            if (((next ^ g) & tagMask) == 0) {
                return false;
            }
            g = next;
        }
        return true;
    }

    // ---------------------------------------------------------------- handles

    @Test
    void aHandleNamesItsOwnEntryOnly() {
        SplittableRandom random = new SplittableRandom(31);
        for (int i = 0; i < 100_000; i++) {
            int stamp = random.nextInt() | 1;
            long location = random.nextLong() & EntryStamp.LOCATION_MASK;
            long kind = random.nextBoolean() || location == 0 ? EntryStamp.KIND : 0;
            long handle = EntryStamp.handle(kind, location, stamp);
            assertTrue(handle > 0, "handles are positive: " + Long.toHexString(handle));
            assertTrue(EntryStamp.isWellFormed(handle));
            assertEquals(location, EntryStamp.location(handle));
            assertEquals(kind != 0, EntryStamp.isKind(handle));
            assertTrue(EntryStamp.names(handle, stamp));
            assertFalse(EntryStamp.names(handle, EntryStamp.dead(stamp)), "freed");
            int other = random.nextInt() | 1;
            assertEquals(other == stamp, EntryStamp.names(handle, other));
            for (int bit = 0; bit < EntryStamp.CHECK_BITS; bit++) {
                long changed = handle ^ (1L << (EntryStamp.CHECK_SHIFT + bit));
                assertFalse(EntryStamp.names(changed, stamp), "check bit " + bit + " changed");
            }
            assertFalse(EntryStamp.isWellFormed(handle | Long.MIN_VALUE));
            assertFalse(EntryStamp.names(handle | Long.MIN_VALUE, stamp));
        }
        // The check is the whole generation: stamps that differ only in bit 31 are told apart.
        long high = EntryStamp.handle(EntryStamp.KIND, 0, 0x8000_0001);
        assertFalse(EntryStamp.names(high, 1));
        assertTrue(EntryStamp.names(high, 0x8000_0001));
        assertNotEquals(0, EntryStamp.handle(EntryStamp.KIND, 0, 1), "MISS is no handle");
    }

    // ---------------------------------------------------------------- helpers

    private static int order(int count) {
        return EntryStamp.order(count, EntryStamp.TAG_BITS, EntryStamp.HIGH_BITS);
    }

    private static int unorder(int generation) {
        return EntryStamp.unorder(generation, EntryStamp.TAG_BITS, EntryStamp.HIGH_BITS);
    }

    private static int next(int generation) {
        return EntryStamp.next(generation, EntryStamp.TAG_BITS, EntryStamp.HIGH_BITS);
    }

    private static long equalNeighbours(int[] values) {
        int[] sorted = values.clone();
        Arrays.sort(sorted);
        long pairs = 0;
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                pairs++;
            }
        }
        return pairs;
    }
}
