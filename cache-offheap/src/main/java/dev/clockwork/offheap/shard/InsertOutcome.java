package dev.clockwork.offheap.shard;

import dev.clockwork.cache.Cache;
import dev.clockwork.offheap.context.CacheContext;

/**
 * What a shard's insert answers, for both families: a success is any number {@code >= 0} (a
 * HyperClock table answers the slot it filled, from 0; an LRU shard the new entry's handle,
 * always {@code > 0}); a failure is one of the negative codes below, each named once here so
 * that both caches count and report it the same way ({@link #failed}). None of them equals a
 * HyperClock table's {@code FoundEntry.NONE} (-1).
 *
 * <p>Codes, not an enum: the success case carries the slot or handle in the same {@code long},
 * so that the insert path returns one primitive and allocates nothing.
 */
public final class InsertOutcome {
    /** Not stored, nothing charged: free the value ("as if inserted and evicted at once"). */
    public static final long DROPPED = -2;
    /** Refused by a limit (usage, records, or a strict capacity), nothing charged. */
    public static final long REFUSED = -3;
    /** HyperClock only: usage charged, no slot: the cache makes a standalone entry. */
    public static final long STANDALONE = -4;
    /** The admission policy kept a victim against the new entry; nothing charged. */
    public static final long REJECTED = -5;

    private InsertOutcome() {
    }

    /** Whether an outcome is a success: a slot or a handle, not one of the codes. */
    public static boolean stored(long outcome) {
        return outcome >= 0;
    }

    /**
     * Counts a failed insert ({@link #DROPPED}, {@link #REFUSED} or {@link #REJECTED}; the value
     * already freed by the caller) in the cache's stats and events, and answers what the cache's
     * insert returns for it: {@link Cache#MISS}, except for an entry dropped that the caller did
     * not want pinned, which reads as inserted (any non-zero number: 1).
     *
     * @param shard the shard that did not store it
     * @param shardIndex its number
     * @param keepRef whether the caller asked for a handle
     */
    public static long failed(long outcome, CacheContext context, Shard shard, int shardIndex,
                              long charge, boolean keepRef) {
        assert outcome == DROPPED || outcome == REFUSED || outcome == REJECTED : outcome;
        if (outcome == REFUSED) {
            context.stats.memoryLimitRejects.increment();
            context.events.memoryLimitReject(shard, shardIndex, charge, keepRef);
            return Cache.MISS;
        }
        if (outcome == REJECTED) {
            context.stats.admissionRejects.increment();
            context.events.admissionReject(shard, shardIndex, charge, false);
            return Cache.MISS;
        }
        return keepRef ? Cache.MISS : 1; // dropped: as if inserted and evicted at once
    }
}
