package dev.clockwork.cache.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The two transforms are bijections (involutions) with the bit-packing property claimed. */
class KeyBitsTest {

    @Test
    void bothAreTheirOwnInverse() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long v = random.nextLong() >>> random.nextInt(64);
            assertEquals(v, KeyBits.reverse(KeyBits.reverse(v)));
            assertEquals(v, KeyBits.downwardInvolution(KeyBits.downwardInvolution(v)));
        }
    }

    @Test
    void downwardInvolutionDistributesOverXorAndKeepsTheHighestBit() {
        SplittableRandom random = new SplittableRandom(8);
        for (int i = 0; i < 100_000; i++) {
            long a = random.nextLong() >>> random.nextInt(64);
            long b = random.nextLong();
            assertEquals(KeyBits.downwardInvolution(a) ^ KeyBits.downwardInvolution(b),
                    KeyBits.downwardInvolution(a ^ b));
            assertEquals(Long.numberOfLeadingZeros(a),
                    Long.numberOfLeadingZeros(KeyBits.downwardInvolution(a)));
        }
    }

    /**
     * The low b bits of v and the low c bits of DI(v) identify v when v < 2^(b+c): checked
     * exhaustively for every v below 2^14 and every split of those 14 bits into b and c.
     */
    @Test
    void lowBitsOfBothIdentifyTheValueWhileWidthsFit() {
        int bits = 14;
        for (int b = 0; b <= bits; b++) {
            int c = bits - b;
            Set<Long> seen = new HashSet<>();
            for (long v = 0; v < (1L << bits); v++) {
                long low = v & ((1L << b) - 1);
                long di = KeyBits.downwardInvolution(v) & ((1L << c) - 1);
                assertTrue(seen.add((low << 32) | di), "b=" + b + " c=" + c + " v=" + v);
            }
        }
    }
}
