package dev.clockwork.cli.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.hash.KeyHash;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class KeyGenTest {

    @Test
    void random64IsStdMt19937_64() {
        // The C++ standard requires the 10000th output of a default-seeded mt19937_64 to be this.
        Random64 r = new Random64(5489);
        for (int i = 0; i < 9999; i++) {
            r.next();
        }
        assertEquals(Long.parseUnsignedLong("9981545732273789042"), r.next());
    }

    @Test
    void keysAndOpsMatchCacheBenchForTheSameSeed() {
        // Produced by the same steps in C++ (std::mt19937_64(12345), skew 5, max key 16384):
        // key number, key bytes 0..7 and 8..15 as little-endian int64, then the op's random value.
        long[][] expected = {
            {3402, 792633534417207309L, 3402, Long.parseUnsignedLong("528733477622103608")},
            {64, 16426, 4197120, Long.parseUnsignedLong("11366725980638043916")},
            {437, 480533825978368L, 123008962869067776L, 71698162575291127L},
            {6876, 1935434034490376192L, -2592947485458563072L, 63596454888201062L},
            {2097, 2097, 536843, Long.parseUnsignedLong("16051379310345671190")},
        };
        Random64 rnd = new Random64(12345);
        KeyGen gen = new KeyGen();
        for (long[] e : expected) {
            long key = KeyGen.randomKey(rnd, 16384, 5);
            gen.encode(key);
            assertEquals(e[0], key);
            assertEquals(e[1], gen.key0());
            assertEquals(e[2], gen.key1());
            assertEquals(e[3], rnd.next());
        }
        // libstdc++ uniform_int_distribution<uint64_t>(0, 1000) continuing the same engine
        for (long u : new long[] {772, 700, 644, 636, 998}) {
            assertEquals(u, rnd.uniform(1001));
        }
    }

    @Test
    void keyBytesLayout() {
        KeyGen gen = new KeyGen();
        // key 0: offset 0 -> [42, 0 x8][11 ...]
        gen.encode(0);
        assertEquals(42, gen.key0());
        assertEquals(11L << 8, gen.key1());
        // key 1: offset 1 -> bytes 1..8 are the key; then [11, key...]
        gen.encode(1);
        assertEquals(1, gen.key0());
        assertEquals(11 | (1L << 8), gen.key1());
        // distinct key numbers give distinct keys
        Set<String> seen = new HashSet<>();
        for (long k = 0; k < 100_000; k++) {
            gen.encode(k);
            assertTrue(seen.add(gen.key0() + ":" + gen.key1()), "collision at " + k);
        }
    }

    @Test
    void skewZeroIsUniform() {
        int buckets = 10;
        long maxKey = 1000;
        int n = 200_000;
        long[] counts = new long[buckets];
        Random64 rnd = new Random64(42);
        for (int i = 0; i < n; i++) {
            long key = KeyGen.randomKey(rnd, maxKey, 0);
            assertTrue(key >= 0 && key < maxKey);
            counts[(int) (key * buckets / maxKey)]++;
        }
        double expected = (double) n / buckets;
        double chi2 = 0;
        for (long c : counts) {
            chi2 += (c - expected) * (c - expected) / expected;
        }
        assertTrue(chi2 < 30, "chi-square " + chi2); // 9 degrees of freedom; p < 0.001 at 27.9
    }

    @Test
    void largerSkewFavoursSmallKeys() {
        long maxKey = 1_000_000;
        int n = 100_000;
        double previousMean = Double.MAX_VALUE;
        for (int skew : new int[] {0, 1, 5, 20}) {
            Random64 rnd = new Random64(7);
            double sum = 0;
            long belowTenth = 0;
            for (int i = 0; i < n; i++) {
                long key = KeyGen.randomKey(rnd, maxKey, skew);
                assertTrue(key >= 0 && key < maxKey);
                sum += key;
                if (key < maxKey / 10) {
                    belowTenth++;
                }
            }
            double mean = sum / n / maxKey;
            // min of skew+1 uniforms: mean 1/(skew+2), P(< 0.1) = 1 - 0.9^(skew+1)
            assertEquals(1.0 / (skew + 2), mean, 0.01, "mean for skew " + skew);
            assertEquals(1 - Math.pow(0.9, skew + 1), (double) belowTenth / n, 0.01,
                    "P(key < max/10) for skew " + skew);
            assertTrue(mean < previousMean);
            previousMean = mean;
        }
    }

    @Test
    void zeroMaxKeyGivesKeyZero() {
        assertEquals(0, KeyGen.randomKey(new Random64(1), 0, 5));
    }

    @Test
    void degenerateKeysHashToTheWantedHashedKey() {
        for (int bits : new int[] {1, 6, 17, 63}) {
            for (long hashSeed : new long[] {0, 1, 12345, 0x7FFF_FFFFL}) {
                KeyGen gen = new KeyGen(bits, hashSeed);
                long lowMask = (1L << bits) - 1;
                long fixedLow = KeyGen.DEGENERATE_H1_BASE & lowMask;
                Set<String> keys = new HashSet<>();
                Set<Long> h0s = new HashSet<>();
                Set<Long> shards = new HashSet<>();
                for (long k = 0; k < 5000; k++) {
                    long keyNumber = k * 0x1_0001L + (k & 3); // some spread, some neighbours
                    gen.encode(keyNumber);
                    long key0 = gen.key0();
                    long key1 = gen.key1();
                    long wantH0 = KeyGen.mixKeyNumber(keyNumber);
                    long wantH1 = KeyGen.DEGENERATE_H1_BASE ^ (wantH0 << bits);
                    assertEquals(wantH1, KeyGen.degenerateH1(wantH0, bits));
                    // the cache hashes the constructed key back to exactly the wanted pair
                    long h0 = KeyHash.hash0(key0, key1, hashSeed);
                    long h1 = KeyHash.hash1FromHash0(h0, key1);
                    assertEquals(wantH0, h0);
                    assertEquals(wantH1, h1);
                    assertEquals(h1, KeyHash.hash1(key0, key1, hashSeed));
                    // the low bits (home slot) are the same for every key
                    assertEquals(fixedLow, h1 & lowMask, "bits " + bits + " key " + keyNumber);
                    assertTrue(keys.add(key0 + ":" + key1), "duplicate key for " + keyNumber);
                    h0s.add(h0);
                    shards.add(h0 >>> 32 & 63);
                }
                assertEquals(5000, h0s.size());
                assertEquals(64, shards.size(), "the shard still varies");
            }
        }
    }

    @Test
    void degenerateKeysDependOnTheHashSeedAndAreStable() {
        KeyGen a = new KeyGen(6, 1);
        KeyGen b = new KeyGen(6, 2);
        KeyGen again = new KeyGen(6, 1);
        a.encode(42);
        b.encode(42);
        again.encode(42);
        assertNotEquals(a.key0(), b.key0(), "key0 absorbs the seed");
        assertEquals(a.key1(), b.key1(), "key1 does not depend on the seed");
        assertEquals(a.key0(), again.key0());
        assertEquals(a.key1(), again.key1());
        // the seed is only xored into key0 after inverting
        assertEquals(a.key0() ^ 1 ^ 2, b.key0());
    }

    @Test
    void zeroDegenerateBitsGiveOrdinaryKeys() {
        KeyGen plain = new KeyGen();
        KeyGen zero = new KeyGen(0, 99);
        for (long k = 0; k < 1000; k++) {
            plain.encode(k);
            zero.encode(k);
            assertEquals(plain.key0(), zero.key0());
            assertEquals(plain.key1(), zero.key1());
        }
        assertThrows(IllegalArgumentException.class, () -> new KeyGen(64, 0));
        assertThrows(IllegalArgumentException.class, () -> new KeyGen(-1, 0));
    }

    @Test
    void mixKeyNumberIsInjectiveOnASample() {
        Set<Long> seen = new HashSet<>();
        for (long k = 0; k < 200_000; k++) {
            assertTrue(seen.add(KeyGen.mixKeyNumber(k)));
        }
        assertNotEquals(0, KeyGen.mixKeyNumber(0));
    }

    /** -file_keys: block k % N of file k / N, every key distinct, one key0 per file. */
    @Test
    void fileKeysAreDistinctAndShareKey0WithinAFile() {
        KeyGen gen = KeyGen.fileKeys(10_000, 4096, 8192);
        Set<String> seen = new HashSet<>();
        long firstKey0 = 0;
        for (long k = 0; k < 10_000; k++) {
            gen.encode(k);
            Assertions.assertTrue(seen.add(gen.key0() + ":" + gen.key1()),
                    "key " + k);
            if (k == 0) {
                firstKey0 = gen.key0();
            } else if (k < 4096) {
                Assertions.assertEquals(firstKey0, gen.key0(), "file 0");
            } else {
                Assertions.assertNotEquals(firstKey0, gen.key0(), "file 1+");
            }
        }
    }
}
