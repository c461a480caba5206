package dev.clockwork.offheap.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.clockwork.offheap.NativeMemory;
import dev.clockwork.offheap.model.SequenceConfig.CacheType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Model-based test of an LRU cache: seeded random sequences of inserts (plain and pinned), lookups
 * (held or not), releases (with and without eraseIfLastRef), refs, erases, capacity and
 * strict-limit changes, run against the reference model in {@link LruReference}, which states the
 * rules checked; failures are shrunk and reported with their seed ({@link SequenceHarness} has
 * the system properties for longer runs and replays).
 */
class ModelLruCacheTest {

    @AfterEach
    void nativeMemoryReturned() {
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    @Test
    void randomSequencesAgreeWithTheModel() {
        var summary = SequenceHarness.runAll(CacheType.LRU, getClass().getSimpleName(),
                0x5EED1220L);
        System.out.printf("%s: %d sequences, %d ops, %d ms%n", getClass().getSimpleName(),
                summary.sequences(), summary.ops(), summary.millis());
        System.out.print(Coverage.drain());
    }
}
