package dev.clockwork.offheap.lru;

import static dev.clockwork.offheap.lru.LruList.INT;
import static dev.clockwork.offheap.lru.LruList.LONG;
import static dev.clockwork.offheap.lru.LruList.RAW;
import static dev.clockwork.offheap.lru.LruRecordLayout.CHARGE_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.IN_CACHE;
import static dev.clockwork.offheap.lru.LruRecordLayout.REFS_AND_FLAGS_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_ADDRESS_OFFSET;
import static dev.clockwork.offheap.lru.LruRecordLayout.VALUE_LENGTH_OFFSET;

import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.offheap.entry.RecordSlab;
import dev.clockwork.offheap.shard.EntryHandoff;

/**
 * The walk of {@code Cache.forEachEntry} over one LRU shard's records. Apart from
 * {@link LruShard} because it reads the records in slab order, not through the index or the
 * lists, and changes nothing: the shard keeps what the walk needs around it (its lock, the
 * re-entry refusal, the free a close from the visitor leaves to it).
 *
 * <p>Record indexes are a stable cursor: records are carved from chunks that are only ever
 * added, and an entry stays in its record from insert to free (an insert of a present key takes
 * a new record and erases the old entry). So an entry in the index throughout the whole walk is
 * met exactly once, in the batch whose range holds its index, whatever happened between
 * batches; an entry inserted meanwhile is met if its record lies ahead of the cursor. Indexes
 * below the slab's fresh mark have all been handed out at least once (chunk headers excepted),
 * and past it no record ever held an entry.
 */
final class LruVisit {
    private LruVisit() {
    }

    /**
     * Visits the entries in the index among at most {@code maxRecords} records (live or free),
     * in record index order from {@code from}; stops early if the visitor closed the cache.
     * Under the shard's lock, with the visit marked ({@link LruRefusals#VISITING}).
     *
     * @return the index to continue from, or -1 when the shard is done
     */
    static int batch(RecordSlab slab, LruRefusals refusals, EntryHandoff cache,
                     EntryVisitor visitor, boolean readsValues, int from, int maxRecords) {
        int end = slab.freshIndex();
        int index = from;
        for (int examined = 0; examined < maxRecords && index < end; index++) {
            if (RecordSlab.isHeader(index)) {
                continue;
            }
            examined++;
            long e = slab.address(index);
            if ((RAW.get(INT, e + REFS_AND_FLAGS_OFFSET) & IN_CACHE) == 0
                    || !RecordSlab.isLive(slab.stamp(e))) {
                continue;
            }
            cache.visit(visitor, readsValues, LruList.key0(e), LruList.key1(e),
                    RAW.get(LONG, e + VALUE_ADDRESS_OFFSET),
                    RAW.get(INT, e + VALUE_LENGTH_OFFSET), RAW.get(LONG, e + CHARGE_OFFSET));
            if (refusals.closed()) {
                index++;
                break; // the visitor closed the cache
            }
        }
        return index < end ? index : -1;
    }
}
