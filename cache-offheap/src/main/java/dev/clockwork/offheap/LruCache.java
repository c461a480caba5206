package dev.clockwork.offheap;

import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.KeyPredicate;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.dump.DumpFormat;
import dev.clockwork.cache.dump.DumpWriter;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.entry.RecordSlab;
import dev.clockwork.offheap.lru.LruDumpWalk;
import dev.clockwork.offheap.lru.LruHandle;
import dev.clockwork.offheap.lru.LruShard;
import dev.clockwork.offheap.shard.InsertOutcome;
import dev.clockwork.offheap.shard.ShardSizing;
import java.io.IOException;
import java.lang.foreign.Arena;

/**
 * A sharded off-heap LRU cache with three priority pools, as RocksDB's LRUCache: entries, the hash
 * index and the intrusive list live in native memory, each shard behind one short lock.
 *
 * <p>One list per shard, oldest to newest, is split into a bottom, a low and a high pool. An
 * entry inserted with {@link Priority#HIGH} enters at the newest end of the high pool,
 * {@link Priority#LOW} at the newest end of the low pool (the "mid point"), and
 * {@link Priority#BOTTOM} at the newest end of the bottom pool; an entry that was hit goes to the
 * high pool when it is released. The high and low pools hold at most {@code highPriPoolRatio} and
 * {@code lowPriPoolRatio} of the capacity and pass their oldest entries down when they overflow;
 * a ratio of 0 removes the pool, and its entries fall to the next pool that exists. Eviction takes
 * the oldest entry of the bottom pool first. So index and filter blocks inserted HIGH, and data
 * blocks inserted LOW, outlive a scan of BOTTOM entries, which has only the bottom pool to churn.
 *
 * <p>With an admission policy, TinyLFU by default ({@code admission(AdmissionPolicy.NONE)} turns it
 * off and gives RocksDB's LRU cache as described above), the cache is W-TinyLFU: new entries enter
 * an admission window (a second list, its share of capacity set by the policy), and leave it, when
 * the cache is full, only by out-scoring the main list's oldest entry in the policy's frequency
 * sketch; in the main list the bottom pool is the probation region and the high pool (0.8 of the
 * main region unless {@code highPriPoolRatio} is given) the protected one. See
 * {@link dev.clockwork.cache.admission.Admission}.
 *
 * <p>Pinned (referenced) entries are off the list and never evicted. When pinned entries leave no
 * room, an insert is refused under a strict limit (if the caller wanted a handle), or dropped
 * "as if inserted and evicted at once" (if not), or else stored over capacity.
 *
 * <p>Handles ({@link LruHandle}) name a slab record by index and carry a check of its stamp; each
 * use checks them, so a made-up, foreign or stale handle gets an exception, never another
 * entry's bytes (but with the probabilities {@link EntryStamp} gives).
 */
public final class LruCache extends EngineCache {
    /** RocksDB's default minimum shard size for LRUCache when choosing shard bits. */
    static final long MIN_SHARD_BYTES = 512L << 10;

    private final LruShard[] shards;
    private final int shardMask;
    private final int shardBits;

    private LruCache(CacheContext context, LruShard[] shards, long capacity, long hashSeed,
                     Admission admission) {
        super(context, shards, capacity, hashSeed, admission);
        this.shards = shards;
        this.shardMask = shards.length - 1;
        this.shardBits = Integer.numberOfTrailingZeros(shards.length);
    }

    /**
     * A builder with every option at its default; only the capacity must be set.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Options of an {@link LruCache}; see {@link CacheOptions} for the shared ones, and for the
     * limits on sizes. Nothing is allocated in proportion to the capacity, so
     * {@code capacity(Long.MAX_VALUE)} builds an unbounded cache (usage bounded by
     * {@link CacheOptions#MAX_USAGE}). A shard holds at most
     * {@code 2^(31 - numShardBits)} records (less one per 1,024 for chunk headers);
     * with all of them in use an insert evicts the least recently used entry to reuse its
     * record, and is refused ({@code memoryLimitRejects}) when every record is pinned.
     */
    public static final class Builder extends CacheOptions<Builder> {

        private Builder() {
            super(new BuilderSettings());
        }

        @Override
        long minShardBytes() {
            return MIN_SHARD_BYTES;
        }

        /**
         * Share of capacity for the high pool, 0..1; 0: no pool. Default 0.5, as RocksDB, or with
         * an admission policy 0.8 of the main region, W-TinyLFU's protected region.
         *
         * @param ratio the high pool's share, 0 to 1; {@link #validate()} refuses other values,
         *     NaN, and a sum with {@link #lowPriPoolRatio} above 1
         * @return this builder
         */
        public Builder highPriPoolRatio(double ratio) {
            settings.highPriPoolRatio = ratio;
            settings.highPriPoolRatioGiven = true;
            return this;
        }

        /**
         * Share of capacity for the low pool, 0..1 (default 0, as RocksDB); 0: no pool.
         *
         * @param ratio the low pool's share, 0 to 1; {@link #validate()} refuses other values,
         *     NaN, and a sum with the high pool's share above 1
         * @return this builder
         */
        public Builder lowPriPoolRatio(double ratio) {
            settings.lowPriPoolRatio = ratio;
            return this;
        }

        @Override
        public void validate() {
            super.validate();
            Args.requireInRange("highPriPoolRatio", settings.highPriPoolRatio, 0.0, 1.0);
            double high = settings.highPriPoolRatio();
            Args.requireInRange("lowPriPoolRatio", settings.lowPriPoolRatio, 0.0, 1.0);
            if (high + settings.lowPriPoolRatio > 1.0) {
                throw new IllegalArgumentException("highPriPoolRatio + lowPriPoolRatio is "
                        + (high + settings.lowPriPoolRatio) + "; at most 1.0");
            }
        }

        @Override
        public LruCache build() {
            validate();
            CacheContext context = new CacheContext(settings.recordStats, settings.kindCounts(),
                    "LruCache");
            int shardBits = shardBits();
            int maxChunks = ShardSizing.maxRecordChunks(shardBits);
            BuilderSettings o = settings;
            // A shard holds at most the records its slab can name.
            Admission admission = o.admissionFor(true,
                    (long) maxChunks * RecordSlab.RECORDS_PER_CHUNK << shardBits);
            LruShard.Options options =
                    new LruShard.Options(o.highPriPoolRatio(), o.lowPriPoolRatio, maxChunks);
            LruShard[] shards = makeShards(new LruShard[1 << shardBits], context, admission,
                    shard -> new LruShard(shard, options));
            return new LruCache(context, shards, o.capacity, o.hashSeed, admission);
        }
    }

    // ---------------------------------------------------------------- shards and handles

    private LruShard shardOf(long h0) {
        return shards[shardIndex(h0)];
    }

    private int shardIndex(long h0) {
        return (int) (h0 >>> 32) & shardMask;
    }

    /** The shard a handle names, or an exception if it cannot be one of ours. */
    private LruShard shardOfHandle(long handle) {
        if (!LruHandle.isWellFormed(handle)) {
            throw foreign(handle);
        }
        return shards[LruHandle.shard(handle, shardBits)];
    }

    /** Handle misuse is always an IllegalStateException (Cache, "Misuse"), whatever the bits. */
    private static IllegalStateException foreign(long handle) {
        return new IllegalStateException("handle " + handle + " is not a handle of this cache"
                + " (made up, or from another cache)");
    }

    @Override
    long recordAddress(long handle) {
        return shardOfHandle(handle).recordAddress(handle);
    }

    @Override
    void checkRecord(long handle, long lengthWord) {
        LruHandle.checkStamp(handle, (int) (lengthWord >>> 32));
    }

    // ---------------------------------------------------------------- operations

    @Override
    long lookupHashed(long h0, long h1) {
        return shardOf(h0).lookup(h0, h1);
    }

    @Override
    public boolean release(long handle, boolean eraseIfLastRef) {
        checkOpen();
        return shardOfHandle(handle).release(handle, eraseIfLastRef);
    }

    @Override
    public void ref(long handle) {
        checkOpen();
        shardOfHandle(handle).ref(handle);
    }

    @Override
    long insertCopied(long h0, long h1, long address, int length, long charge,
                      Placement placement, boolean keepRef) {
        LruShard shard = shardOf(h0);
        long result = shard.insert(h0, h1, address, length, charge, placement, keepRef);
        if (InsertOutcome.stored(result)) {
            stats.inserts.increment();
            return keepRef ? result : 1;
        }
        context.values.free(address, length); // outside the shard's lock: may race close
        return InsertOutcome.failed(result, context, shard, shardIndex(h0), charge, keepRef);
    }

    /** An entry off the index and the list, pinned, as an erased entry still held is. */
    @Override
    long pinOutsideIndex(long h0, long h1, long address, int length, long charge,
                         Placement placement) {
        long result = shardOf(h0).insertDetached(h0, h1, address, length, charge, placement);
        if (!InsertOutcome.stored(result)) {
            return MISS;
        }
        stats.standaloneInserts.increment();
        return result;
    }

    @Override
    boolean eraseHashed(long h0, long h1) {
        return shardOf(h0).erase(h0, h1);
    }

    // ---------------------------------------------------------------- visiting entries

    /**
     * Walks each shard in batches of {@code entriesPerLock} records, each under the shard's lock
     * ({@link LruShard#visitEntries}), which keeps the entry being visited from being freed and
     * bounds how long writers of the shard wait. Between batches a record index is the cursor.
     */
    @Override
    void forEachEntryChecked(EntryVisitor visitor, int entriesPerLock) {
        boolean readsValues = visitor.readsValues();
        for (LruShard shard : shards) {
            int cursor = 1; // index 0 is the first chunk's header
            do {
                cursor = shard.visitEntries(handoff, visitor, readsValues, cursor, entriesPerLock);
            } while (cursor >= 0);
        }
    }

    /**
     * Most recent first ({@link LruDumpWalk}), the shards in turn, 64 entries of each at a time,
     * so that a dump cut short by a load into a smaller cache keeps every shard's newest.
     */
    @Override
    void dumpEntries(DumpWriter writer) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            LruDumpWalk[] walks = new LruDumpWalk[shards.length];
            for (int i = 0; i < shards.length; i++) {
                walks[i] = new LruDumpWalk(shards[i], arena, context.all(), hashSeed);
            }
            for (int left = walks.length; left > 0;) {
                left = 0;
                for (LruDumpWalk walk : walks) {
                    int answer = walk.batch(writer, 64);
                    while (answer == LruDumpWalk.FULL) {
                        writer.flush(); // outside the shard's lock
                        answer = walk.batch(writer, 64);
                    }
                    left += answer == LruDumpWalk.MORE ? 1 : 0;
                }
            }
        }
    }

    @Override
    int dumpOrder() {
        return DumpFormat.ORDER_RECENCY;
    }

    /** Erases after each batch, outside the lock its predicate runs under ({@link KeySweep}). */
    @Override
    long eraseMatching(KeyPredicate predicate) {
        return KeySweep.eraseAfterEachBatch(this, shards, predicate);
    }

    // ---------------------------------------------------------------- capacity and usage

    /**
     * Usage by pool, summed over shards (each shard read under its lock; the sum is not atomic
     * across shards).
     *
     * @return the usage of each pool and of the pinned entries, in bytes
     * @throws IllegalStateException if the cache is closed
     */
    public PoolUsage poolUsage() {
        checkOpen();
        long high = 0;
        long low = 0;
        long bottom = 0;
        long pinned = 0;
        for (LruShard shard : shards) {
            synchronized (shard) {
                high += shard.highPoolUsage();
                low += shard.lowPoolUsage();
                bottom += shard.bottomPoolUsage();
                pinned += shard.pinnedUsage();
            }
        }
        return new PoolUsage(high, low, bottom, pinned);
    }

    /**
     * Usage split by where entries are: the three pools of the list (unreferenced entries) and
     * pinned entries, off the list. Each includes the 64-byte records when metadata is charged.
     * With an admission policy, the unreferenced entries of the admission window are in none of
     * them.
     *
     * @param high bytes charged by unreferenced entries in the high pool (with an admission
     *     policy: the protected region)
     * @param low bytes charged by unreferenced entries in the low pool
     * @param bottom bytes charged by unreferenced entries in the bottom pool (with an admission
     *     policy: the probation region)
     * @param pinned bytes charged by entries a handle references, including erased ones not yet
     *     released
     */
    public record PoolUsage(long high, long low, long bottom, long pinned) {
        /**
         * The four together.
         *
         * @return {@code high + low + bottom + pinned}: the cache's usage, less the unreferenced
         *     entries of the admission window if there is one
         */
        public long total() {
            return high + low + bottom + pinned;
        }
    }

    /**
     * Native bytes of the indexes and entry records (not the values).
     *
     * @return the bytes of every shard's hash index and of the records carved from its slab so
     *     far
     * @throws IllegalStateException if the cache is closed
     */
    public long metadataBytes() {
        checkOpen();
        return ShardSizing.sumOverShards(shards, LruShard::metadataBytes);
    }
}
