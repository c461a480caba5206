package dev.clockwork.offheap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.model.SequenceConfig.CacheType;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The harness's own machinery: shrinking, and replays being deterministic. */
class ModelShrinkerTest {

    @Test
    void shrinksToTheOpsThatMatter() {
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            ops.add(Op.lookup(i % 7, false));
        }
        Op a = Op.insert(3, 10, 20, Priority.HIGH);
        Op b = Op.erase(3);
        ops.add(57, a);
        ops.add(211, b);
        // "Fails" when a comes before b: the minimum is exactly [a, b].
        Shrinker shrinker = new Shrinker(list -> {
            int i = list.indexOf(a);
            return i >= 0 && list.indexOf(b) > i;
        }, 10_000);
        assertEquals(List.of(a, b), shrinker.shrink(ops));
        assertTrue(shrinker.runs() < 200, "took " + shrinker.runs() + " runs");
    }

    @Test
    void shortensValues() {
        List<Op> ops = List.of(Op.insert(1, 5, 500, Priority.LOW), Op.lookup(1, true));
        Shrinker shrinker = new Shrinker(list -> list.size() == 2, 100);
        assertEquals(Values.HEADER, shrinker.shrink(ops).get(0).length());
    }

    @Test
    void aSeedDrawsTheSameSequence() {
        for (CacheType type : CacheType.values()) {
            long seed = new SplittableRandom(type.ordinal()).nextLong();
            var one = SequenceHarness.Sequence.of(type, seed, 300);
            var two = SequenceHarness.Sequence.of(type, seed, 300);
            assertEquals(one, two);
        }
    }

    @Test
    void valuesNameTheirInsert() {
        byte[] v = Values.of(17, 123456789L, 40);
        assertEquals(17, Values.key(v));
        assertEquals(123456789L, Values.version(v));
        assertEquals(40, v.length);
    }
}
