package dev.clockwork.cache.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyHashTest {

    private static final long[] EDGE = {
        0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0x8000_0000L, 0xFFFF_FFFFL, 0x0123456789abcdefL
    };

    @Test
    void unhashInvertsHash() {
        Random rnd = new Random(1);
        long[] out = new long[2];
        for (int i = 0; i < 200_000; i++) {
            long k0 = rnd.nextLong();
            long k1 = rnd.nextLong();
            long seed = (i & 1) == 0 ? 0 : rnd.nextLong();
            assertRoundTrip(k0, k1, seed, out);
        }
        for (long k0 : EDGE) {
            for (long k1 : EDGE) {
                for (long seed : EDGE) {
                    assertRoundTrip(k0, k1, seed, out);
                }
            }
        }
    }

    /** The inverse is also a right inverse: every 128-bit value is some key's hash. */
    @Test
    void hashInvertsUnhash() {
        Random rnd = new Random(2);
        for (int i = 0; i < 100_000; i++) {
            long h0 = rnd.nextLong();
            long h1 = rnd.nextLong();
            long seed = rnd.nextLong();
            long k1 = KeyHash.unhash1(h0, h1);
            long k0 = KeyHash.unhash0(h0, h1, seed);
            assertEquals(h0, KeyHash.hash0(k0, k1, seed));
            assertEquals(h1, KeyHash.hash1(k0, k1, seed));
        }
    }

    @Test
    void distinctSmallKeysDoNotCollide() {
        // Implied by the bijection; a cheap sanity check on a structured key set.
        Set<String> seen = new HashSet<>();
        for (long k0 = 0; k0 < 64; k0++) {
            for (long k1 = 0; k1 < 1024; k1++) {
                long h0 = KeyHash.hash0(k0, k1, 7);
                long h1 = KeyHash.hash1FromHash0(h0, k1);
                assertTrue(seen.add(h0 + ":" + h1));
            }
        }
        assertTrue(KeyHash.hash0(0, 0, 0) != 0 || KeyHash.hash1(0, 0, 0) != 0,
                "the zero key must not map to zero");
    }

    /**
     * Strict avalanche: flipping any one of the 128 input bits flips each of the 128 output bits
     * with probability 0.5 +- 0.05 (10,000 random keys; the standard error is 0.005).
     */
    @Test
    void avalancheInBothHalves() {
        final int samples = 10_000;
        Random rnd = new Random(3);
        long[] k0s = new long[samples];
        long[] k1s = new long[samples];
        long[] h0s = new long[samples];
        long[] h1s = new long[samples];
        long seed = rnd.nextLong();
        for (int s = 0; s < samples; s++) {
            k0s[s] = rnd.nextLong();
            k1s[s] = rnd.nextLong();
            h0s[s] = KeyHash.hash0(k0s[s], k1s[s], seed);
            h1s[s] = KeyHash.hash1FromHash0(h0s[s], k1s[s]);
        }
        int[] flips0 = new int[64];
        int[] flips1 = new int[64];
        double worst = 0;
        String worstAt = "";
        for (int inBit = 0; inBit < 128; inBit++) {
            Arrays.fill(flips0, 0);
            Arrays.fill(flips1, 0);
            for (int s = 0; s < samples; s++) {
                long k0 = inBit < 64 ? k0s[s] ^ (1L << inBit) : k0s[s];
                long k1 = inBit < 64 ? k1s[s] : k1s[s] ^ (1L << (inBit - 64));
                long h0 = KeyHash.hash0(k0, k1, seed);
                long h1 = KeyHash.hash1FromHash0(h0, k1);
                long d0 = h0 ^ h0s[s];
                long d1 = h1 ^ h1s[s];
                for (int b = 0; b < 64; b++) {
                    flips0[b] += (int) ((d0 >>> b) & 1);
                    flips1[b] += (int) ((d1 >>> b) & 1);
                }
            }
            for (int b = 0; b < 64; b++) {
                double p0 = (double) flips0[b] / samples;
                double p1 = (double) flips1[b] / samples;
                if (Math.abs(p0 - 0.5) > worst) {
                    worst = Math.abs(p0 - 0.5);
                    worstAt = "input bit " + inBit + " -> h0 bit " + b + ": " + p0;
                }
                if (Math.abs(p1 - 0.5) > worst) {
                    worst = Math.abs(p1 - 0.5);
                    worstAt = "input bit " + inBit + " -> h1 bit " + b + ": " + p1;
                }
            }
        }
        assertTrue(worst <= 0.05, "worst avalanche bias " + worstAt);
    }

    /** Sequential keys spread evenly over 64 shards (upper 32 bits of h0) and h1's low bits. */
    @Test
    void sequentialKeysSpreadEvenly() {
        for (long seed : new long[] {0L, 0x5eed_5eed_5eedL}) {
            for (boolean varyKey0 : new boolean[] {false, true}) {
                final int n = 1 << 18;
                int[] shards = new int[64];
                int[] slots = new int[1024];
                int[] probeLowBits = new int[64];
                for (int i = 0; i < n; i++) {
                    long k0 = varyKey0 ? i : 0;
                    long k1 = varyKey0 ? 0 : i;
                    long h0 = KeyHash.hash0(k0, k1, seed);
                    long h1 = KeyHash.hash1FromHash0(h0, k1);
                    shards[(int) (h0 >>> 32) & 63]++;
                    slots[(int) h1 & 1023]++;
                    probeLowBits[(int) (h0 >>> 1) & 63]++;
                }
                String what = "seed " + seed + (varyKey0 ? ", key0 = i" : ", key1 = i");
                assertChiSquareOk(shards, n, what + " shards");
                assertChiSquareOk(slots, n, what + " h1 low bits");
                assertChiSquareOk(probeLowBits, n, what + " h0 bits 1..6");
            }
        }
    }

    /**
     * Chi-square against the uniform distribution, accepted below dof + 5 * sqrt(2 * dof) (about
     * five standard deviations; a fair hash essentially never exceeds it, a biased one does).
     */
    private static void assertChiSquareOk(int[] counts, int n, String what) {
        double expected = (double) n / counts.length;
        double chi2 = 0;
        for (int c : counts) {
            chi2 += (c - expected) * (c - expected) / expected;
        }
        int dof = counts.length - 1;
        double bound = dof + 5 * Math.sqrt(2.0 * dof);
        assertTrue(chi2 < bound, what + ": chi-square " + chi2 + " >= " + bound);
    }

    private static void assertRoundTrip(long k0, long k1, long seed, long[] out) {
        long h0 = KeyHash.hash0(k0, k1, seed);
        long h1 = KeyHash.hash1FromHash0(h0, k1);
        assertEquals(h1, KeyHash.hash1(k0, k1, seed));
        KeyHash.hash(k0, k1, seed, out);
        assertEquals(h0, out[0]);
        assertEquals(h1, out[1]);
        assertEquals(k1, KeyHash.unhash1(h0, h1));
        assertEquals(k0, KeyHash.unhash0(h0, h1, seed));
        assertEquals(k0, KeyHash.unhash0FromKey1(h0, k1, seed));
    }
}
