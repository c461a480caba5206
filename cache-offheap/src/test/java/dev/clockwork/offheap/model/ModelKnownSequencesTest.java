package dev.clockwork.offheap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.NativeMemory;
import dev.clockwork.offheap.model.SequenceConfig.CacheType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hand-written sequences for failures the random sequences found, run through the same models,
 * so that each stays a named, readable regression test.
 */
class ModelKnownSequencesTest {

    @AfterEach
    void nativeMemoryReturned() {
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    private static SequenceConfig strictOneShard(CacheType type) {
        // 1,000 bytes, one shard, no metadata charge: ten entries of 100 fill it exactly.
        return new SequenceConfig(type, 0, 1000, type == CacheType.FIXED ? 100 : 64, false, true,
                30, 0, 0, 0x5EEDL, 12, 100);
    }

    /** Ten entries of 100 fill the cache; one of 600 must evict six of them. */
    private static List<Op> fillThenInsertLarge() {
        List<Op> ops = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            ops.add(Op.insert(k, 100, Values.HEADER, Priority.LOW));
        }
        ops.add(Op.insert(10, 600, Values.HEADER, Priority.LOW));
        return ops;
    }

    /**
     * With a strict limit, an insert that needs more than four entries evicted must still
     * succeed when nothing is pinned. EvictionData.giveUpOnEffort multiplies
     * {@code (freedCount + 1) * (Long.MAX_VALUE / 4)} for strict tables, which overflows to a
     * negative number from the fifth freed entry on, so the run "exceeds its effort" and the
     * insert is refused after evicting four or five entries for nothing.
     */
    @Test
    void strictFixedInsertEvictsAsMuchAsItNeeds() {
        assertNull(SequenceHarness.run(strictOneShard(CacheType.FIXED), fillThenInsertLarge()));
    }

    @Test
    void strictAutoInsertEvictsAsMuchAsItNeeds() {
        assertNull(SequenceHarness.run(strictOneShard(CacheType.AUTO), fillThenInsertLarge()));
    }

    @Test
    void strictLruInsertEvictsAsMuchAsItNeeds() {
        assertNull(SequenceHarness.run(strictOneShard(CacheType.LRU), fillThenInsertLarge()));
    }
}
