package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.entry.EntryStamp;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One slot or record reused millions of times, through the public API: a handle of its first
 * entry must be refused by every entry that follows, and no two of its entries may get the same
 * handle. Each test reuses its slot {@link #REUSES} times, more than the 2^21 checks a slot's
 * handles could carry before checks were widened to 31 bits: those had to repeat a handle by
 * then, and let stale handles through after 0.5-7.6 million reuses.
 *
 * <p>A handle is accepted exactly when its location is the slot's and its check the slot's
 * current generation ({@link EntryStamp#names}), that is, when it equals the handle the slot's
 * current entry was given. So comparing each new entry's handle with the first one is the
 * acceptance test, made at every reuse; the API itself is asked every {@link #ASK_EVERY}th
 * reuse, and at the end (an exception per ask would take most of the run).
 */
class StaleHandleTest {
    private static final int REUSES = 3 << 20;
    private static final int ASK_EVERY = 1 << 16;
    private static final byte[] VALUE = {1, 2, 3, 4, 5, 6, 7, 8};

    private Cache cache;

    @AfterEach
    void closeAndCheckNativeMemory() {
        if (cache != null) {
            cache.close();
        }
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    /** An LRU record: insert a key pinned, release it erasing, and again; one free record. */
    @Test
    void anLruRecordReusedMillionsOfTimesRefusesItsFirstHandle() {
        cache = LruCache.builder().capacity(1 << 20).numShardBits(0).build();
        assertRefusedAfterReuses(() -> pin(cache, 7));
    }

    /**
     * A standalone record: a 4-slot table whose 3 usable slots hold pinned entries, so a pinned
     * insert of another key goes to a standalone record, which its release frees for the next.
     */
    @Test
    void aStandaloneRecordReusedMillionsOfTimesRefusesItsFirstHandle() {
        cache = fourSlotTable();
        long[] held = {pin(cache, 1), pin(cache, 2), pin(cache, 3)};
        assertRefusedAfterReuses(() -> {
            long h = pin(cache, 4);
            assertFalse(EntryStamp.isKind(h), "not standalone: " + Long.toHexString(h));
            return h;
        });
        for (long h : held) {
            cache.release(h);
        }
    }

    /** A slot of a 4-slot table: one key inserted pinned and released erasing, again and again. */
    @Test
    void aTableSlotReusedMillionsOfTimesRefusesItsFirstHandle() {
        cache = fourSlotTable();
        assertRefusedAfterReuses(() -> {
            long h = pin(cache, 5);
            assertTrue(EntryStamp.isKind(h), "not in the table: " + Long.toHexString(h));
            return h;
        });
    }

    private static Cache fourSlotTable() {
        FixedHyperClockCache table = HyperClockCache.builder().capacity(200)
                .estimatedEntryCharge(100).chargeMetadata(false).numShardBits(0).build();
        assertEquals(4, table.tableSlots());
        return table;
    }

    private interface Pin {
        long pin();
    }

    /**
     * Takes {@link #REUSES} + 1 entries in a row with {@code pin}, each released (and freed)
     * before the next: all must land in the first one's slot, get distinct handles, and refuse
     * the first one's handle.
     */
    private void assertRefusedAfterReuses(Pin pin) {
        long first = pin.pin();
        assertTrue(cache.release(first, true), "the first entry was freed");
        long[] handles = new long[REUSES];
        for (int i = 0; i < REUSES; i++) {
            long h = pin.pin();
            handles[i] = h;
            if (EntryStamp.location(h) != EntryStamp.location(first)) {
                throw new AssertionError("reuse " + i + " took another slot");
            }
            if (h == first) {
                throw new AssertionError("after " + (i + 1) + " reuses the first entry's handle"
                        + " names the slot's entry again: " + Long.toHexString(h));
            }
            if (i % ASK_EVERY == 0) {
                assertRefused(first);
            }
            assertTrue(cache.release(h, true));
        }
        long last = pin.pin();
        assertRefused(first);
        cache.release(last, true);
        long[] sorted = handles.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            assertNotEquals(sorted[i - 1], sorted[i], "two entries of the slot got one handle");
        }
    }

    /** Every use of a stale handle throws and leaves the slot's entry pinned and readable. */
    private void assertRefused(long stale) {
        long usage = cache.usage();
        assertThrows(IllegalStateException.class, () -> cache.value(stale));
        assertThrows(IllegalStateException.class, () -> cache.ref(stale));
        assertThrows(IllegalStateException.class, () -> cache.release(stale));
        assertThrows(IllegalStateException.class, () -> cache.release(stale, true));
        assertEquals(usage, cache.usage());
    }

    private static long pin(Cache cache, long key) {
        long h = cache.insertPinned(key, ~key, VALUE, 0, VALUE.length, 1, Priority.LOW);
        assertNotEquals(Cache.MISS, h);
        return h;
    }
}
