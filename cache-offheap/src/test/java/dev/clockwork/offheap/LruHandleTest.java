package dev.clockwork.offheap;

import static dev.clockwork.cache.Priority.BOTTOM;
import static dev.clockwork.cache.Priority.HIGH;
import static dev.clockwork.cache.Priority.LOW;
import static dev.clockwork.offheap.TestValues.noise;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.lru.LruHandle;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * LRU handle misuse: a double release, a made-up, stale or foreign handle (another LRU cache's,
 * a HyperClock cache's) is refused without changing the cache; close frees every native byte
 * with entries still pinned.
 */
class LruHandleTest extends LruCacheTestBase {
    @Test
    void doubleReleaseThrowsAndLeavesTheCacheUsable() {
        LruCache cache = cache(1000, 0.5, 0);
        long a = pin(cache, 1, LOW);
        assertFalse(cache.release(a));
        assertRefusedUnderTheLock(cache, a);
        // Reading through a handle released too early, while its entry is still cached, is not
        // refused (LruShard.recordAddress checks one word, the generation); but it can only ever
        // give the key's own bytes.
        assertValueOfOrRefused(cache, a, 1);

        put(cache, 2, LOW);
        long b = lookup(cache, 2);
        assertFalse(cache.release(b));
        assertThrows(IllegalStateException.class, () -> cache.release(b));
        assertPools(cache, 100, 0, 100, 0);
        assertEquals(Set.of(1L, 2L), present(cache, 1, 2));
    }

    /** Each misuse must throw the exception the API names for it, and change nothing. */
    private static void assertRefusedBy(LruCache cache, long handle, Executable... uses) {
        LruCache.PoolUsage before = cache.poolUsage();
        long entries = cache.entryCount();
        for (Executable use : uses) {
            Throwable t = assertThrows(RuntimeException.class, use,
                    "handle " + Long.toHexString(handle) + " was accepted");
            assertEquals(IllegalStateException.class, t.getClass(), "unexpected " + t);
        }
        assertEquals(before, cache.poolUsage());
        assertEquals(entries, cache.entryCount());
    }

    /** Release and ref, checked under the shard lock, refuse {@code handle}. */
    private static void assertRefusedUnderTheLock(LruCache cache, long handle) {
        assertRefusedBy(cache, handle,
                () -> cache.release(handle),
                () -> cache.release(handle, true),
                () -> cache.ref(handle));
    }

    /** Every way to use a handle refuses {@code handle}, the lock-free value reads included. */
    private static void assertRefused(LruCache cache, long handle) {
        assertRefusedUnderTheLock(cache, handle);
        assertRefusedBy(cache, handle,
                () -> cache.value(handle),
                () -> cache.valueSize(handle),
                () -> cache.charge(handle),
                () -> cache.copyValue(handle, new byte[1 << 10], 0),
                () -> cache.copyValue(handle, MemorySegment.ofArray(new byte[1 << 10]), 0));
    }

    /** A handle of a cached, unpinned entry: refused, or read as that entry's own value. */
    private static void assertValueOfOrRefused(LruCache cache, long handle, long key) {
        MemorySegment v;
        try {
            v = cache.value(handle);
        } catch (IllegalStateException refused) {
            return;
        }
        assertArrayEquals(valueOf(key), v.toArray(ValueLayout.JAVA_BYTE));
    }

    /** The same record, another generation in the check: a handle never handed out for it. */
    private static long otherGeneration(long handle, int delta) {
        long checkMask = ((1L << EntryStamp.CHECK_BITS) - 1) << EntryStamp.CHECK_SHIFT;
        long check = (handle + ((long) delta << EntryStamp.CHECK_SHIFT)) & checkMask;
        return (handle & ~checkMask) | check;
    }

    /** A handle with the given check (a generation) and location (a one-shard cache's record). */
    private static long madeUp(long check, long location) {
        return (check << EntryStamp.CHECK_SHIFT) | location;
    }

    @Test
    void madeUpHandlesThrowAndLeaveTheCacheUsable() {
        LruCache cache = cache(1000, 0.5, 0);
        long pinned = pin(cache, 1, LOW);
        put(cache, 2, HIGH);
        long two = lookup(cache, 2);
        assertFalse(cache.release(two)); // a real handle, of an entry no longer pinned
        long[] madeUp = {
            Cache.MISS, 12345L, -1L, Long.MAX_VALUE, Long.MIN_VALUE,
            madeUp(1, 0),                                   // record 0 is "none"
            madeUp(1 << 7, 1024),                           // a chunk that is not there
            madeUp(1, 0x7FFF_FFFFL),                        // the largest index
            madeUp(1, EntryStamp.KIND | LruHandle.index(pinned, 0)), // a kind LRU never has
            otherGeneration(pinned, 1), otherGeneration(pinned, -1),
            otherGeneration(pinned, 1 << 14),
            otherGeneration(two, 1), otherGeneration(two, 12345),
        };
        for (long h : madeUp) {
            assertNotEquals(pinned, h);
            assertRefused(cache, h);
        }
        assertRefusedUnderTheLock(cache, two);
        assertValueOfOrRefused(cache, two, 2);
        // Records never handed out: not pinned, whatever the generation.
        for (int g = 0; g < 4; g++) {
            assertRefusedUnderTheLock(cache, madeUp(2 * g + 1, 3));
            assertRefusedUnderTheLock(cache, madeUp(2 * g + 1, 1023));
        }

        assertValueOf(cache, pinned, 1);
        assertFalse(cache.release(pinned));
        assertPools(cache, 100, 0, 100, 0);
        assertEquals(Set.of(1L, 2L), present(cache, 1, 2));
        put(cache, 3, BOTTOM);
        assertEquals(3, cache.entryCount());
    }

    @Test
    void aStaleHandleIsRefusedAfterItsRecordIsReused() {
        LruCache cache = cache(1000, 0.5, 0);
        long stale = pin(cache, 1, LOW);
        assertTrue(cache.release(stale, true)); // freed; its record is free
        assertRefused(cache, stale);
        long reuse = pin(cache, 2, LOW);       // takes the same record again
        assertEquals(LruHandle.index(stale, 0), LruHandle.index(reuse, 0), "the record was reused");
        assertNotEquals(stale, reuse);
        assertRefused(cache, stale);
        assertValueOf(cache, reuse, 2);
        assertFalse(cache.release(reuse));
        assertRefusedUnderTheLock(cache, reuse);

        // Evicted rather than erased: the same.
        LruCache small = cache(200, 0, 0);
        long h = pin(small, 1, LOW);
        small.release(h);
        put(small, 2, LOW);
        assertRefusedUnderTheLock(small, h);
        put(small, 3, LOW); // evicts 1 and takes its record
        assertRefused(small, h);
        long other = pin(small, 4, LOW);
        assertRefused(small, h);
        small.release(other);
        assertEquals(Set.of(3L, 4L), present(small, 1, 2, 3, 4));
    }

    @Test
    void aHandleFromAnotherLruCacheIsRefused() {
        LruCache cache = cache(1000, 0.5, 0);
        LruCache other = cache(1000, 0.5, 0);
        long mine = pin(cache, 1, LOW);
        put(cache, 2, LOW);
        // The other cache's record 1 in a generation this cache's record 1 is not in.
        long theirs = pin(other, 7, LOW);
        other.release(theirs, true);
        long theirs2 = pin(other, 8, LOW);
        assertEquals(LruHandle.index(mine, 0), LruHandle.index(theirs2, 0));
        assertNotEquals(mine, theirs2);
        assertRefused(cache, theirs2);
        // A record this cache never handed out: nothing to release.
        long[] more = new long[3];
        for (int i = 0; i < more.length; i++) {
            more[i] = pin(other, 20 + i, LOW);
        }
        assertRefusedUnderTheLock(cache, more[2]);
        // A handle of a shard this cache does not have.
        LruCache sharded = track(LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(1 << 20).numShardBits(4).build());
        long far = Cache.MISS;
        for (long k = 0; far == Cache.MISS; k++) {
            byte[] v = valueOf(k);
            long h = sharded.insertPinned(k, key1(k), v, 0, v.length, C, LOW);
            if (LruHandle.shard(h, 4) != 0) {
                far = h;
            } else {
                sharded.release(h);
            }
        }
        assertRefused(cache, far);

        assertValueOf(cache, mine, 1);
        assertFalse(cache.release(mine));
        assertEquals(Set.of(1L, 2L), present(cache, 1, 2));
        other.release(theirs2);
        for (long h : more) {
            other.release(h);
        }
        sharded.release(far);
    }

    /**
     * Two fresh caches hand out handles for the same record (shard 0, index 1) whose checks are
     * drawn from each cache's own salt; so a handle of one is refused by the other, instead of
     * reading or releasing its own entry. The checks coincide for 1 pair of caches in 2^31: then
     * the next cache is tried.
     */
    @Test
    void aForeignHandleOfTheSameRecordIsRefused() {
        LruCache cache = cache(1000, 0.5, 0);
        long mine = pin(cache, 1, LOW);
        LruCache other = cache(1000, 0.5, 0);
        long theirs = pin(other, 2, LOW);
        if (theirs == mine) {
            other = cache(1000, 0.5, 0);
            theirs = pin(other, 2, LOW);
        }
        assertNotEquals(mine, theirs);
        assertEquals(LruHandle.index(mine, 0), LruHandle.index(theirs, 0),
                "same record, other cache");
        long foreign = theirs;
        assertThrows(IllegalStateException.class, () -> cache.value(foreign),
                "another cache's handle read this cache's entry");
        assertThrows(IllegalStateException.class, () -> cache.release(foreign),
                "another cache's handle released this cache's entry");
        assertValueOf(cache, mine, 1);
        // Both caches are closed by closeAllAndCheckNativeMemory, pinned entries and all.
    }

    /**
     * No check makes a handle name a record that holds no entry: neither a freed record (whose
     * value was freed) nor one never handed out (here the first 2^16 of the 2^31 checks). Never
     * reads through a segment.
     */
    @Test
    void noHandleReadsARecordThatHoldsNoEntry() {
        LruCache cache = cache(1000, 0.5, 0);
        long h = pin(cache, 1, LOW);
        put(cache, 2, LOW);
        assertTrue(cache.release(h, true)); // record of key 1: free
        int freeRecord = LruHandle.index(h, 0);
        int neverUsed = 1000;
        for (int index : new int[] {freeRecord, neverUsed}) {
            for (int g = 0; g < 1 << 16; g++) {
                long madeUp = madeUp(g, index);
                assertThrows(IllegalStateException.class, () -> cache.value(madeUp),
                        "value() accepted " + Long.toHexString(madeUp)
                                + ", naming a record that holds no entry");
            }
        }
    }

    @Test
    void hyperClockHandlesAreRefused() {
        LruCache cache = cache(1000, 0.5, 0);
        long mine = pin(cache, 1, LOW);
        FixedHyperClockCache clock = track(HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE).capacity(1 << 20)
                .estimatedEntryCharge(1024).numShardBits(0).build());
        byte[] v = valueOf(1);
        long table = clock.insertPinned(1, key1(1), v, 0, v.length, C, LOW);
        long standalone = clock.insertPinned(1, key1(1), v, 0, v.length, C, LOW);
        assertNotEquals(Cache.MISS, table);
        assertNotEquals(Cache.MISS, standalone);
        assertRefused(cache, table);
        assertRefused(cache, standalone);
        // And the other way round.
        assertThrows(IllegalStateException.class, () -> clock.release(mine));
        clock.release(table);
        clock.release(standalone);
        assertValueOf(cache, mine, 1);
        assertFalse(cache.release(mine));
        assertEquals(Set.of(1L), present(cache, 1));
    }

    @Test
    void closeWithEntriesStillPinnedFreesEveryNativeByte() {
        long native0 = NativeMemory.outstandingBytes();
        LruCache cache = LruCache.builder().admission(AdmissionPolicy.NONE).capacity(2 << 20)
                .numShardBits(1)
                .highPriPoolRatio(0.3).lowPriPoolRatio(0.3).build();
        List<Long> held = new ArrayList<>();
        for (long k = 0; k < 6000; k++) { // more than one slab chunk (1023 records) per shard
            byte[] v = noise(k, (int) (k % 700));
            cache.insert(k, key1(k), v, 0, v.length, v.length, Priority.values()[(int) (k % 3)]);
        }
        assertTrue(cache.entryCount() > 2 * 1023, "entries: " + cache.entryCount());
        for (long k = 0; k < 6000; k += 7) {
            long h = lookup(cache, k);
            if (h != Cache.MISS) {
                held.add(h);
                if (k % 2 == 0) {
                    cache.ref(h); // two references
                }
            }
        }
        for (long k = 0; k < 6000; k += 21) {
            cache.erase(k, key1(k)); // erased while pinned: freed at release, or at close
        }
        byte[] v = noise(1, 5000);
        held.add(cache.insertPinned(-1, -1, v, 0, v.length, v.length, HIGH));
        assertTrue(cache.pinnedUsage() > 0);
        assertTrue(held.size() > 100);
        cache.close();
        assertEquals(native0, NativeMemory.outstandingBytes(), "close left native bytes");
        for (long h : held.subList(0, 3)) {
            assertThrows(IllegalStateException.class, () -> cache.release(h));
        }
    }
}
