package dev.clockwork.offheap;

import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.KeyPredicate;
import dev.clockwork.offheap.lru.LruShard;
import java.lang.foreign.MemorySegment;

/**
 * {@code eraseIf} and {@code clear}: one walk of the entries ({@code forEachEntry}'s), asking the
 * predicate of each key and erasing what it picks through the cache's own {@code erase}, so a
 * pinned entry stays readable and is freed on its last release, as after any erase.
 *
 * <h2>Two ways, by where the walk may erase</h2>
 * <ul>
 *   <li>HyperClock ({@link #eraseWhileVisiting}): the walk holds only a reference on the entry it
 *       visits and no lock, and {@code erase} from inside a visitor works (it makes the entry
 *       unfindable; the walk's own release frees it). So each picked key is erased at once, and
 *       the walk keeps nothing but a count.</li>
 *   <li>LRU ({@link #eraseAfterEachBatch}): the walk visits under the shard's lock, where an
 *       erase is refused. So each batch of {@value #BATCH} records collects the keys it picks in
 *       a fixed buffer, and they are erased once the batch has let the lock go: the heap used is
 *       that buffer ({@value #BATCH} pairs of longs, 4 KiB), however many entries there are.
 *       A key picked and then replaced before its batch's erase loses the replacement too,
 *       which the contract allows for entries inserted during the call.</li>
 * </ul>
 *
 * <h2>A predicate that throws</h2>
 * The walk stops and the exception goes on to the caller. The walks leave nothing pinned and no
 * lock held ({@code forEachEntry}'s guarantee); the keys picked before the throw are erased (the
 * LRU walk erases its batch's keys before the exception goes on, adding any failure of those
 * erases to it as suppressed), so both ways leave the same state: every key picked is erased.
 */
final class KeySweep {
    /** Records per lock of the LRU walk; RocksDB's cache_bench's default entries per lock. */
    static final int BATCH = 256;
    /** The predicate {@code clear} erases with. */
    static final KeyPredicate EVERY_KEY = (key0, key1) -> true;
    /** The first record of an LRU shard's walk: index 0 is the first chunk's header. */
    private static final int FIRST_RECORD = 1;

    private KeySweep() {
    }

    /** Erases, as the walk visits them, the entries whose keys {@code predicate} picks. */
    static long eraseWhileVisiting(ShardedCache cache, KeyPredicate predicate) {
        ErasingVisitor visitor = new ErasingVisitor(cache, predicate);
        cache.forEachEntryChecked(visitor, BATCH);
        return visitor.erased;
    }

    /** Erases each batch's picked keys after the batch, outside the shard's lock. */
    static long eraseAfterEachBatch(ShardedCache cache, LruShard[] shards,
                                    KeyPredicate predicate) {
        CollectingVisitor batch = new CollectingVisitor(predicate);
        long erased = 0;
        for (LruShard shard : shards) {
            int cursor = FIRST_RECORD;
            do {
                try {
                    cursor = shard.visitEntries(cache.handoff, batch, false, cursor, BATCH);
                } catch (Throwable t) {
                    eraseAfterFailure(cache, batch, t);
                    throw t;
                }
                erased += batch.eraseCollected(cache);
            } while (cursor >= 0);
        }
        return erased;
    }

    /** Erases what a batch collected before {@code failure}; a failure of that joins it. */
    private static void eraseAfterFailure(ShardedCache cache, CollectingVisitor batch,
                                          Throwable failure) {
        try {
            batch.eraseCollected(cache);
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
        }
    }

    /** The HyperClock way: erases each picked key as it is visited, and counts. */
    private static final class ErasingVisitor implements EntryVisitor {
        private final ShardedCache cache;
        private final KeyPredicate predicate;
        long erased;

        ErasingVisitor(ShardedCache cache, KeyPredicate predicate) {
            this.cache = cache;
            this.predicate = predicate;
        }

        @Override
        public void visit(long key0, long key1, MemorySegment value, long charge) {
            if (predicate.test(key0, key1) && cache.erase(key0, key1)) {
                erased++;
            }
        }

        @Override
        public boolean readsValues() {
            return false;
        }
    }

    /**
     * The LRU way: collects one batch's picked keys under the lock (a batch visits at most
     * {@link #BATCH} entries, so the buffer never fills), to erase after it.
     */
    private static final class CollectingVisitor implements EntryVisitor {
        private final KeyPredicate predicate;
        /** key0 and key1 of each picked key, in pairs. */
        private final long[] keys = new long[2 * BATCH];
        private int count;

        CollectingVisitor(KeyPredicate predicate) {
            this.predicate = predicate;
        }

        @Override
        public void visit(long key0, long key1, MemorySegment value, long charge) {
            if (predicate.test(key0, key1)) {
                keys[2 * count] = key0;
                keys[2 * count + 1] = key1;
                count++;
            }
        }

        @Override
        public boolean readsValues() {
            return false;
        }

        /**
         * Erases the collected keys and empties the buffer; returns how many were present. The
         * buffer is emptied first, so a failing erase (a racing close) erases nothing twice.
         */
        long eraseCollected(ShardedCache cache) {
            int n = count;
            count = 0;
            long erased = 0;
            for (int i = 0; i < n; i++) {
                if (cache.erase(keys[2 * i], keys[2 * i + 1])) {
                    erased++;
                }
            }
            return erased;
        }
    }
}
