package dev.clockwork.offheap.memory;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EntryStampTest {

    /** A slot's next entry never shares the tag bits (and so the handle check) of its last. */
    @Test
    void successorDiffersFromItsPredecessorInTheTagBits() {
        SplittableRandom random = new SplittableRandom(17);
        int skipped = 0;
        for (int i = 0; i < 2_000_000; i++) {
            int last = random.nextInt() | 1;
            int next = EntryStamp.live(EntryStamp.dead(last), 0, 0);
            assertTrue(EntryStamp.isLive(next));
            assertNotEquals(0, (next ^ last) & EntryStamp.SUCCESSOR_DIFFERS,
                    "stamp " + last + " followed by " + next);
            if (next != ((EntryStamp.scramble(last >>> 1) << 1) | 1)) {
                skipped++;
            }
        }
        // About one in 512 first successors agrees in those bits and is scrambled once more.
        assertTrue(skipped > 2_000 && skipped < 6_000, "rescrambled " + skipped);
    }
}
