package dev.clockwork.offheap.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.clockwork.offheap.context.CacheContext;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * One cache's value slabs for a test, opened before each test and closed after it, with the
 * check that closing returned every native byte the test's slabs took.
 */
abstract class SlabsFixture {
    /** All memory, unscoped: for reading and writing blocks the slabs handed out. */
    static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    static final long MIB = 1 << 20;

    CacheContext context;
    ValueSlabs slabs;
    /** Native bytes outstanding before the slabs were made. */
    long baseline;

    @BeforeEach
    void open() {
        baseline = NativeAllocator.outstandingBytes();
        context = new CacheContext(false, "test");
        slabs = new ValueSlabs(context.all());
    }

    @AfterEach
    void close() {
        context.closeArena();
        slabs.freeAll();
        assertEquals(baseline, NativeAllocator.outstandingBytes(), "native bytes leaked");
    }
}
