package dev.clockwork.offheap.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The window's share moves on ghost evidence only, one entry per vote, and stays in 0..1. */
class WindowTunerTest {
    private static final long ENTRIES = 1000;

    /** A well-mixed key, as the cache's hashed keys are. */
    private static long key(long k) {
        long x = (k + 1) * 0x9E37_79B9_7F4A_7C15L;
        x ^= x >>> 31;
        return x * 0xBF58_476D_1CE4_E5B9L;
    }

    @Test
    void aRefusedKeyMissedSoonAfterItsLastAccessGrowsTheWindow() {
        WindowTuner tuner = new WindowTuner(ENTRIES, 0.1);
        for (long k = 0; k < 100; k++) {
            tuner.onAccess(key(k), false);
            tuner.onRefused(key(k));
        }
        for (long k = 0; k < 100; k++) {
            tuner.onAccess(key(k), false); // 100 accesses later: well within the horizon
        }
        assertEquals(0.1 + 100.0 / ENTRIES, tuner.share(), 1e-9, "one entry per vote");
    }

    @Test
    void aLoopLongerThanTheHorizonIsNoEvidenceForRecency() {
        WindowTuner tuner = new WindowTuner(ENTRIES, 0.1);
        long loop = ENTRIES + 11; // as the LIRS loop trace at capacity 1000
        for (int pass = 0; pass < 5; pass++) {
            for (long k = 0; k < loop; k++) {
                tuner.onAccess(key(k), false);
                tuner.onRefused(key(k));
            }
        }
        // Only Bloom false positives could vote; at these sizes there are at most a handful.
        assertTrue(tuner.share() < 0.1 + 10.0 / ENTRIES, "share " + tuner.share());
    }

    @Test
    void anEvictedKeyMissedAgainShrinksTheWindow() {
        WindowTuner tuner = new WindowTuner(ENTRIES, 0.5);
        for (long k = 0; k < 50; k++) {
            tuner.onEvicted(key(k));
        }
        for (long k = 0; k < 50; k++) {
            tuner.onAccess(key(k), false);
        }
        assertEquals(0.5 - 50.0 / ENTRIES, tuner.share(), 1e-9);
        for (long k = 0; k < 50; k++) {
            tuner.onAccess(key(k), true);
        }
        assertEquals(0.5 - 50.0 / ENTRIES, tuner.share(), 1e-9, "hits are no evidence");
    }

    @Test
    void votesAreWeighedByTheOtherGhostsSize() {
        WindowTuner tuner = new WindowTuner(ENTRIES, 0.5);
        for (long k = 0; k < 400; k++) {
            tuner.onRefused(key(10_000 + k)); // a flood of refused one-off keys
        }
        for (long k = 0; k < 4; k++) {
            tuner.onEvicted(key(k));
        }
        tuner.onAccess(key(0), false);
        assertEquals(0.5 - 100.0 / ENTRIES, tuner.share(), 1e-9,
                "an evicted key's miss weighs 400 refused / 4 evicted = 100 entries");
    }

    @Test
    void theShareStaysWithinZeroAndOne() {
        WindowTuner tuner = new WindowTuner(10, 0.9);
        for (long k = 0; k < 5; k++) {
            tuner.onAccess(key(k), false);
            tuner.onRefused(key(k));
            tuner.onAccess(key(k), false);
        }
        assertEquals(1.0, tuner.share());
        for (long k = 100; k < 140; k++) {
            tuner.onEvicted(key(k));
            tuner.onAccess(key(k), false);
        }
        assertEquals(0.0, tuner.share());
    }
}
