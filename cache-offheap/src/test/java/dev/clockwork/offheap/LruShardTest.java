package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.entry.RecordSlab;
import dev.clockwork.offheap.lru.LruShard;
import dev.clockwork.offheap.shard.InsertOutcome;
import dev.clockwork.offheap.shard.ShardContext;
import dev.clockwork.offheap.shard.ShardSizing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The list and pool rules of one LRU shard, read off its list. */
class LruShardTest {
    private static final long CHARGE = 100;
    private final CacheContext context = new CacheContext(false, "test");
    private LruShard shard;

    private LruShard shard(long capacity, double high, double low) {
        return shard(capacity, high, low, RecordSlab.MAX_CHUNKS);
    }

    private LruShard shard(long capacity, double high, double low, int maxRecordChunks) {
        shard = new LruShard(new ShardContext(0, 0, capacity, CacheOptions.MAX_USAGE, false, false,
                context, Admission.ALWAYS), new LruShard.Options(high, low, maxRecordChunks));
        return shard;
    }

    @AfterEach
    void freeEverything() {
        if (shard != null) {
            shard.freeAll();
        }
        context.closeArena();
        context.values.freeAll();
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    private static long h1(long key) {
        return key * 0x9E37_79B9_7F4A_7C15L;
    }

    private long insert(long key, Priority priority, boolean keepRef) {
        long value = context.values.allocate(8);
        long e = shard.insert(key, h1(key), value, 8, CHARGE, priority, keepRef);
        if (e == InsertOutcome.DROPPED || e == InsertOutcome.REFUSED) {
            context.values.free(value, 8);
        }
        return e;
    }

    /** The list, oldest first, as keys. */
    private long[] order() {
        long[] entries = shard.listOrder();
        long[] keys = new long[entries.length];
        for (int i = 0; i < entries.length; i++) {
            keys[i] = shard.key0(entries[i]);
        }
        return keys;
    }

    private void hit(long key) {
        long e = shard.lookup(key, h1(key));
        assertNotEquals(0, e, "key " + key + " missing");
        shard.release(e, false);
    }

    /**
     * At its record limit (here one chunk: 1,023 records) a shard evicts its least recently used
     * entry to reuse the record, whatever the capacity left, and refuses an insert when every
     * record is pinned; after a release it takes inserts again.
     */
    @Test
    void atTheRecordLimitInsertsEvictTheOldestOrAreRefused() {
        int records = RecordSlab.RECORDS_PER_CHUNK - 1; // the chunk's header is no record
        shard(Long.MAX_VALUE >> 8, 0, 0, 1);
        for (long k = 0; k < records; k++) {
            assertTrue(insert(k, Priority.LOW, false) > 0, "insert " + k);
        }
        assertEquals(records, shard.entryCount());
        long evictions = context.stats.evictions.sum();
        hit(0); // key 1 is now the oldest
        assertTrue(insert(records, Priority.LOW, false) > 0);
        assertEquals(records, shard.entryCount());
        assertEquals(evictions + 1, context.stats.evictions.sum());
        assertEquals(0, shard.lookup(1, h1(1)), "the oldest gave its record up");
        hit(0);
        // Pin every record: nothing left to evict, so inserts are refused, pinned or not.
        long[] handles = new long[records];
        for (int k = 0; k < records; k++) {
            handles[k] = shard.lookup(k == 1 ? records : k, h1(k == 1 ? records : k));
            assertNotEquals(0, handles[k], "key " + k);
        }
        assertEquals(InsertOutcome.REFUSED, insert(5000, Priority.LOW, false));
        assertEquals(InsertOutcome.REFUSED, insert(5001, Priority.HIGH, true));
        assertEquals(records, shard.entryCount());
        shard.release(handles[7], false);
        assertTrue(insert(5002, Priority.LOW, false) > 0, "evicts 7, the only unpinned entry");
        assertEquals(0, shard.lookup(7, h1(7)));
        for (int k = 0; k < records; k++) {
            if (k != 7) {
                shard.release(handles[k], false);
            }
        }
        assertEquals(RecordSlab.MAX_CHUNKS, ShardSizing.maxRecordChunks(0), "31-bit indexes");
        assertEquals(1 << 11, ShardSizing.maxRecordChunks(10), "2^21 records with 2^10 shards");
        assertEquals(1 << 5, ShardSizing.maxRecordChunks(16), "2^15 records with 2^16 shards");
    }

    @Test
    void withoutPoolsTheListIsPlainLru() {
        shard(300, 0, 0);
        insert(1, Priority.HIGH, false);
        insert(2, Priority.LOW, false);
        insert(3, Priority.BOTTOM, false);
        assertArrayEquals(new long[] {1, 2, 3}, order());
        hit(1);
        assertArrayEquals(new long[] {2, 3, 1}, order());
        insert(4, Priority.HIGH, false); // evicts the oldest, whatever its priority
        assertArrayEquals(new long[] {3, 1, 4}, order());
        assertEquals(0, shard.lookup(2, h1(2)));
    }

    @Test
    void midPointInsertionAndPromotionOnHit() {
        shard(1000, 0.5, 0); // high pool up to 500; no low pool: LOW goes to bottom
        insert(1, Priority.HIGH, false);
        insert(2, Priority.LOW, false);
        insert(3, Priority.LOW, false);
        insert(4, Priority.HIGH, false);
        assertArrayEquals(new long[] {2, 3, 1, 4}, order());
        hit(2); // a hit promotes to the high pool's newest end
        assertArrayEquals(new long[] {3, 1, 4, 2}, order());
        assertEquals(300, shard.highPoolUsage());
    }

    @Test
    void overflowDemotesHighToLowToBottom() {
        shard(1000, 0.3, 0.2); // high <= 300, low <= 200
        for (long k = 1; k <= 4; k++) {
            insert(k, Priority.HIGH, false);
        }
        // The high pool holds 3; its oldest (1) fell to the low pool.
        assertEquals(300, shard.highPoolUsage());
        assertEquals(100, shard.lowPoolUsage());
        insert(5, Priority.HIGH, false);
        insert(6, Priority.HIGH, false);
        // 1, 2, 3 fell to low (200 max): 1 fell on to bottom.
        assertEquals(300, shard.highPoolUsage());
        assertEquals(200, shard.lowPoolUsage());
        assertArrayEquals(new long[] {1, 2, 3, 4, 5, 6}, order());
        insert(7, Priority.LOW, false); // the low pool's newest end: between 3 and 4
        assertArrayEquals(new long[] {1, 2, 3, 7, 4, 5, 6}, order());
        assertEquals(200, shard.lowPoolUsage()); // 2 fell to bottom
        insert(8, Priority.BOTTOM, false); // the bottom pool's newest end: after 2
        assertArrayEquals(new long[] {1, 2, 8, 3, 7, 4, 5, 6}, order());
    }

    @Test
    void pinnedEntriesAreNotEvictedAndStrictRefuses() {
        shard(300, 0, 0);
        long a = insert(1, Priority.LOW, true);
        long b = insert(2, Priority.LOW, true);
        insert(3, Priority.LOW, false);
        insert(4, Priority.LOW, false); // evicts 3, the only unpinned entry
        assertArrayEquals(new long[] {4}, order());
        assertEquals(200, shard.pinnedUsage());
        shard.setStrict(true);
        long c = insert(5, Priority.LOW, true); // evicts 4; now everything is pinned
        assertEquals(InsertOutcome.REFUSED, insert(6, Priority.LOW, true),
                "strict, nothing to evict: refused");
        assertEquals(InsertOutcome.DROPPED, insert(7, Priority.LOW, false),
                "without a handle: dropped");
        assertEquals(300, shard.usage());
        shard.release(a, false);
        shard.release(b, false);
        shard.release(c, false);
        assertEquals(0, shard.pinnedUsage());
    }

    @Test
    void eraseWhilePinnedFreesAtTheLastReleaseOrAtClose() {
        shard(1000, 0.5, 0);
        long a = insert(1, Priority.LOW, true);
        long b = insert(2, Priority.LOW, true);
        assertTrue(shard.erase(1, h1(1)));
        assertTrue(shard.erase(2, h1(2)));
        assertEquals(0, shard.lookup(1, h1(1)));
        assertEquals(200, shard.usage());
        assertTrue(shard.release(a, false));
        assertEquals(100, shard.usage());
        assertFalse(shard.erase(1, h1(1)));
        // b stays referenced: freeAll (in @AfterEach) must still free it.
    }

    @Test
    void aReleasedEntryCannotBeReleasedAgain() {
        shard(1000, 0, 0);
        long a = insert(1, Priority.LOW, true);
        shard.release(a, false); // back on the list, still in the cache
        assertThrows(IllegalStateException.class, () -> shard.release(a, false));
    }

    @Test
    void theIndexGrowsAndFindsEverything() {
        shard(1_000_000, 0.5, 0.2);
        for (long k = 0; k < 5000; k++) {
            insert(k, Priority.values()[(int) (k % 3)], false);
        }
        for (long k = 0; k < 5000; k++) {
            hit(k);
        }
        assertEquals(500_000, shard.usage());
        assertEquals(5000, order().length);
    }
}
