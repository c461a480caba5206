package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.entry.RecordSlab;
import dev.clockwork.offheap.memory.NativeAllocator;
import dev.clockwork.offheap.memory.SizeClasses;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Native allocation failures (injected: malloc "returns NULL") at every allocation an insert
 * makes: the insert throws {@link OutOfMemoryError} naming the size, stores nothing, leaks
 * nothing, leaves usage as it was, and the cache keeps working.
 */
class NativeAllocationFailureTest {
    private final List<Cache> caches = new ArrayList<>();
    private long baseline;

    @BeforeEach
    void recordBaseline() {
        baseline = NativeMemory.outstandingBytes();
    }

    @AfterEach
    void closeAndCheck() {
        NativeAllocator.clearInjectedFailure();
        caches.forEach(Cache::close);
        assertEquals(baseline, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    private <C extends Cache> C track(C cache) {
        caches.add(cache);
        return cache;
    }

    private static void assertReads(Cache cache, long key, int length) {
        long h = cache.lookup(key, ~key);
        assertNotEquals(Cache.MISS, h, "key " + key + " missing");
        try {
            byte[] out = new byte[length];
            cache.copyValue(h, out, 0);
            assertArrayEquals(pattern(key, length), out);
        } finally {
            cache.release(h);
        }
    }

    /**
     * The value's own allocation fails: nothing is stored, nothing changes. A 333-byte value is
     * the first of its size class, so its slab carves a chunk, and that fails; a value longer than
     * the slabs' largest class is malloc'd alone, and that fails.
     */
    private void valueAllocationFails(Cache cache) {
        valueAllocationFails(cache, 2, 333, 1L << SizeClasses.chunkShift(SizeClasses.classOf(333)));
        valueAllocationFails(cache, 3, 20_000, 20_000);
    }

    private void valueAllocationFails(Cache cache, long key, int length, long failedBytes) {
        cache.insert(1, ~1L, pattern(1, 100), 0, 100, 100, Priority.LOW);
        long usage = cache.usage();
        long entries = cache.entryCount();
        long bytes = NativeMemory.outstandingBytes();
        NativeAllocator.failAllocationAfter(0);
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
                () -> cache.insert(key, ~key, pattern(key, length), 0, length, length,
                        Priority.LOW));
        assertTrue(e.getMessage().contains(" " + failedBytes + " bytes"), e.getMessage());
        assertEquals(usage, cache.usage());
        assertEquals(entries, cache.entryCount());
        assertEquals(bytes, NativeMemory.outstandingBytes());
        assertEquals(Cache.MISS, cache.lookup(key, ~key));
        assertTrue(cache.insert(key, ~key, pattern(key, length), 0, length, length, Priority.LOW));
        assertReads(cache, 1, 100);
        assertReads(cache, key, length);
    }

    /**
     * A pinned insert of a present key becomes a standalone entry; its slot's allocation fails
     * after the table has charged it: the charge is undone and the value freed.
     */
    @Test
    void hyperClockStandaloneSlotAllocation() {
        FixedHyperClockCache cache = track(HyperClockCache.builder().capacity(1 << 20)
                .estimatedEntryCharge(256).numShardBits(0).build());
        long first = cache.insertPinned(7, ~7L, pattern(7, 50), 0, 50, 50, Priority.LOW);
        long usage = cache.usage();
        long bytes = NativeMemory.outstandingBytes();
        // The value comes from its slab (no malloc); the standalone records' first allocation
        // fails.
        NativeAllocator.failAllocationAfter(0);
        assertThrows(OutOfMemoryError.class,
                () -> cache.insertPinned(7, ~7L, pattern(8, 60), 0, 60, 60, Priority.LOW));
        assertEquals(usage, cache.usage());
        assertEquals(0, cache.standaloneUsage());
        assertEquals(bytes, NativeMemory.outstandingBytes());
        long second = cache.insertPinned(7, ~7L, pattern(8, 60), 0, 60, 60, Priority.LOW);
        assertEquals(60, cache.standaloneUsage());
        cache.release(second);
        cache.release(first);
        assertReads(cache, 7, 50);
    }

    /**
     * The LRU insert that needs a new slab chunk (the first shard chunk holds 1,023 records):
     * the chunk's allocation fails, the insert throws before linking anything, and the next one
     * succeeds.
     */
    @Test
    void lruSlabChunkAllocation() {
        LruCache cache = track(LruCache.builder().capacity(64L << 20).numShardBits(0)
                .build());
        for (long k = 0; k < RecordSlab.RECORDS_PER_CHUNK - 1; k++) {
            assertTrue(cache.insert(k, ~k, pattern(k, 16), 0, 16, 16, Priority.LOW));
        }
        long usage = cache.usage();
        long bytes = NativeMemory.outstandingBytes();
        long entries = cache.entryCount();
        long key = RecordSlab.RECORDS_PER_CHUNK;
        NativeAllocator.failAllocationAfter(0); // the value comes from its slab, the chunk fails
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
                () -> cache.insert(key, ~key, pattern(key, 16), 0, 16, 16, Priority.LOW));
        assertTrue(e.getMessage().contains(RecordSlab.CHUNK_BYTES + " bytes"), e.getMessage());
        assertEquals(usage, cache.usage());
        assertEquals(entries, cache.entryCount());
        assertEquals(bytes, NativeMemory.outstandingBytes());
        assertEquals(Cache.MISS, cache.lookup(key, ~key));
        assertTrue(cache.insert(key, ~key, pattern(key, 16), 0, 16, 16, Priority.LOW));
        assertReads(cache, key, 16);
        assertReads(cache, 0, 16);
    }

    /**
     * The LRU insert that doubles the bucket array (entries past the bucket count, 16 at first):
     * that allocation fails after the entry is linked, so the insert succeeds and the index stays
     * at its old size, more loaded, and still finds everything.
     */
    @Test
    void lruBucketArrayAllocation() {
        LruCache cache = track(LruCache.builder().capacity(1 << 20).numShardBits(0).build());
        for (long k = 0; k < 16; k++) {
            assertTrue(cache.insert(k, ~k, pattern(k, 16), 0, 16, 16, Priority.LOW));
        }
        // The value comes from its slab (no malloc); the bigger bucket array fails.
        NativeAllocator.failAllocationAfter(0);
        assertTrue(cache.insert(16, ~16L, pattern(16, 16), 0, 16, 16, Priority.LOW));
        for (long k = 17; k < 200; k++) {
            assertTrue(cache.insert(k, ~k, pattern(k, 16), 0, 16, 16, Priority.LOW));
        }
        for (long k = 0; k < 200; k++) {
            assertReads(cache, k, 16);
        }
    }

    /**
     * Every native allocation a build makes, failed in turn: the build throws
     * {@link OutOfMemoryError} and holds nothing (an LRU shard frees its list heads and records
     * if its buckets or records cannot be had; before, they stayed allocated for good), until
     * the allocation to fail lies past the build's last and the cache is built.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void everyAllocationOfABuildFailingLeaksNothing(CacheKind kind) {
        for (int skip = 0; ; skip++) {
            NativeAllocator.failAllocationAfter(skip);
            Cache cache;
            try {
                cache = buildWithWindow(kind);
            } catch (OutOfMemoryError expected) {
                assertEquals(baseline, NativeMemory.outstandingBytes(),
                        kind + ": allocation " + skip + " of the build failed and leaked");
                continue;
            } finally {
                NativeAllocator.clearInjectedFailure();
            }
            cache.close();
            assertEquals(baseline, NativeMemory.outstandingBytes(), kind + ": close leaked");
            if (kind != CacheKind.AUTO) { // an Auto table maps its slots, past the injection
                assertTrue(skip > 0, kind + ": a build mallocs (tables, records, list heads)");
            }
            return;
        }
    }

    /** A cache of {@code kind} with four shards and TinyLFU (an LRU then has a window list). */
    private static Cache buildWithWindow(CacheKind kind) {
        return switch (kind) {
            case FIXED -> HyperClockCache.builder().capacity(1 << 20).numShardBits(2)
                    .estimatedEntryCharge(1024).admission(AdmissionPolicy.TINY_LFU).build();
            case AUTO -> HyperClockCache.builder().capacity(1 << 20).numShardBits(2)
                    .admission(AdmissionPolicy.TINY_LFU).build();
            case LRU -> LruCache.builder().capacity(1 << 20).numShardBits(2)
                    .admission(AdmissionPolicy.TINY_LFU).build();
        };
    }
}
