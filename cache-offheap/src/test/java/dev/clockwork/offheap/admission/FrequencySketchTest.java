package dev.clockwork.offheap.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.hash.KeyHash;
import org.junit.jupiter.api.Test;

class FrequencySketchTest {
    private static long key(long i) {
        return KeyHash.hash0(i, 0, 42); // the cache's hashed key, as the sketch receives it
    }

    @Test
    void theDoorkeeperTakesTheFirstOccurrenceAndTheCountersTheRest() {
        FrequencySketch sketch = new FrequencySketch(1024);
        assertEquals(0, sketch.frequency(key(1)));
        sketch.increment(key(1));
        assertEquals(1, sketch.frequency(key(1)), "seen once: the doorkeeper's bit only");
        for (int i = 0; i < 5; i++) {
            sketch.increment(key(1));
        }
        assertEquals(6, sketch.frequency(key(1)), "5 counted occurrences plus the doorkeeper's");
    }

    @Test
    void countersSaturateAtFifteen() {
        FrequencySketch sketch = new FrequencySketch(1 << 16);
        for (int i = 0; i < 100; i++) {
            sketch.increment(key(7));
        }
        assertEquals(16, sketch.frequency(key(7)), "15 in every counter plus the doorkeeper's bit");
    }

    @Test
    void agingHalvesEveryCounterAndClearsTheDoorkeeper() {
        FrequencySketch sketch = new FrequencySketch(1 << 16);
        for (int i = 0; i < 11; i++) {
            sketch.increment(key(3));
        }
        assertEquals(11, sketch.frequency(key(3)));
        sketch.age();
        assertEquals(5, sketch.frequency(key(3)), "10 counted, halved; the doorkeeper cleared");
        assertEquals(0, sketch.events());
    }

    @Test
    void agesAfterTenEventsPerEntry() {
        FrequencySketch sketch = new FrequencySketch(100);
        assertEquals(1000, sketch.sampleSize());
        for (int i = 0; i < 999; i++) {
            sketch.increment(key(i));
        }
        assertEquals(999, sketch.events());
        sketch.increment(key(5));
        assertEquals(0, sketch.events(), "the 1,000th event aged the sketch");
    }

    @Test
    void oneHitKeysRarelyLookFrequent() {
        FrequencySketch sketch = new FrequencySketch(10_000);
        for (int round = 0; round < 8; round++) {
            for (int hot = 0; hot < 100; hot++) {
                sketch.increment(key(hot));
            }
        }
        int falseHot = 0;
        for (long once = 1_000_000; once < 1_005_000; once++) {
            sketch.increment(key(once));
        }
        for (long once = 1_000_000; once < 1_005_000; once++) {
            if (sketch.frequency(key(once)) >= 3) {
                falseHot++;
            }
        }
        assertTrue(falseHot < 50, falseHot + " of 5,000 one-hit keys estimated at 3 or more");
        for (int hot = 0; hot < 100; hot++) {
            assertTrue(sketch.frequency(key(hot)) >= 8, "hot key " + hot);
        }
    }

    @Test
    void holdsAtMostEightBytesPerEntry() {
        for (long entries : new long[] {1, 100, 1000, 4097, 1 << 20, 3_000_000}) {
            FrequencySketch sketch = new FrequencySketch(entries);
            long perEntryBound = Math.max(8 * entries, 8 * 8 + 8); // the smallest sketch: a block
            assertTrue(sketch.bytes() <= perEntryBound,
                    entries + " entries: " + sketch.bytes() + " bytes");
        }
    }
}
