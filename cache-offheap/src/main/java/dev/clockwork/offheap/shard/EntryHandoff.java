package dev.clockwork.offheap.shard;

import dev.clockwork.cache.EntryVisitor;

/**
 * How a shard hands one pinned entry of its cache to an {@link EntryVisitor}: the cache recovers
 * the caller's key from the hashed key and views the value read-only. Implemented by the cache
 * privately and given to its shards' walks only, because it trusts its arguments: the address and
 * length must be those of a value of this cache that stays allocated for the call, or the visitor
 * could read any native memory. Not reachable from outside the module.
 */
@FunctionalInterface
public interface EntryHandoff {
    /**
     * Hands the entry to {@code visitor}; the caller keeps it pinned until this returns.
     *
     * @param visitor receives the entry
     * @param readsValues the visitor's {@link EntryVisitor#readsValues()}
     * @param h0 the entry's hashed key, first half
     * @param h1 the entry's hashed key, second half
     * @param valueAddress native address of the entry's value
     * @param valueLength the value's length in bytes
     * @param chargeWord the record's charge word: the entry's charge (excluding metadata) and
     *     its kind ({@code ChargeWord}), which the visitor gets apart
     */
    void visit(EntryVisitor visitor, boolean readsValues, long h0, long h1, long valueAddress,
               int valueLength, long chargeWord);
}
