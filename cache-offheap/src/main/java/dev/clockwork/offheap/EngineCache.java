package dev.clockwork.offheap;

import dev.clockwork.cache.KeyPredicate;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.shard.Shard;
import java.lang.foreign.MemorySegment;

/**
 * What a storage engine asks of its block cache beyond the index's lookup, insert and erase,
 * built on them for every cache type alike: each operation is a class of its own, and this
 * layer only holds it and hands calls to it.
 *
 * <p>Between {@link ShardedCache} (the index, its handles and close) and the cache types, so
 * that the operations see the index's package-private hooks and every type gets them the same.
 */
public abstract class EngineCache extends ShardedCache {
    /** put, putIfAbsent and its pinned form, under the key's stripe. */
    final KeyedPuts puts = new KeyedPuts(this);

    EngineCache(CacheContext context, Shard[] shards, long capacity, long hashSeed,
                Admission admission) {
        super(context, shards, capacity, hashSeed, admission);
    }

    // ---------------------------------------------------------------- uniform writes

    /** Under the key's stripe: erases the key, then inserts ({@link KeyedPuts}). */
    @Override
    public final boolean put(long key0, long key1, MemorySegment value, long charge,
                             Priority priority) {
        Args.requireNonNull("value", value);
        int length = ValueCopies.checkLength(value.byteSize());
        return puts.put(key0, key1, value, null, 0, length, charge, priority);
    }

    @Override
    public final boolean put(long key0, long key1, byte[] value, int offset, int length,
                             long charge, Priority priority) {
        ValueCopies.checkArray(value, offset, length);
        return puts.put(key0, key1, null, value, offset, length, charge, priority);
    }

    /** Under the key's stripe: a presence check, then an insert ({@link KeyedPuts}). */
    @Override
    public final boolean putIfAbsent(long key0, long key1, MemorySegment value, long charge,
                                     Priority priority) {
        Args.requireNonNull("value", value);
        int length = ValueCopies.checkLength(value.byteSize());
        return puts.putIfAbsent(key0, key1, value, null, 0, length, charge, priority);
    }

    @Override
    public final boolean putIfAbsent(long key0, long key1, byte[] value, int offset, int length,
                                     long charge, Priority priority) {
        ValueCopies.checkArray(value, offset, length);
        return puts.putIfAbsent(key0, key1, null, value, offset, length, charge, priority);
    }

    /**
     * Pins the entry now under the key: the present one, or else a copy of {@code value} stored
     * now; {@link #MISS} if the key was absent and the insert was refused (strict capacity limit,
     * size limit or admission, counted in the stats as an insert's refusal). Runs under the key's
     * stripe ({@link KeyStripes}), ordered against {@code put}, {@code putIfAbsent} and every
     * other call of this method on the key: of racing calls on an absent key, exactly one stores,
     * and the others pin what it stored. In a HyperClock cache whose table has no free slot the
     * new entry is standalone (see {@link #insertPinned}): the handle reads the value, lookups do
     * not find it. Finding the present entry is not counted as a lookup. Internal, for the
     * engine's get-or-load; not API.
     *
     * @return a pinned handle, to be released once, or {@link #MISS}
     * @throws IllegalArgumentException as {@link #insertPinned}, before anything changes
     * @throws NullPointerException as {@link #insertPinned}, before anything changes
     * @throws IllegalStateException if the cache is closed, or if called from inside an
     *     admission policy (see {@link KeyStripes})
     */
    final long putIfAbsentPinned(long key0, long key1, MemorySegment value, long charge,
                                 Priority priority) {
        Args.requireNonNull("value", value);
        int length = ValueCopies.checkLength(value.byteSize());
        return puts.putIfAbsentPinned(key0, key1, value, null, 0, length, charge, priority);
    }

    /** As {@link #putIfAbsentPinned(long, long, MemorySegment, long, Priority)}, from an array. */
    final long putIfAbsentPinned(long key0, long key1, byte[] value, int offset, int length,
                                 long charge, Priority priority) {
        ValueCopies.checkArray(value, offset, length);
        return puts.putIfAbsentPinned(key0, key1, null, value, offset, length, charge, priority);
    }

    // ---------------------------------------------------------------- erasing by key

    @Override
    public final void clear() {
        eraseIf(KeySweep.EVERY_KEY);
    }

    /** One walk of the entries, erasing what the predicate picks ({@link KeySweep}). */
    @Override
    public final long eraseIf(KeyPredicate predicate) {
        Args.requireNonNull("predicate", predicate);
        checkOpen();
        return eraseMatching(predicate);
    }

    /** {@link #eraseIf} after its checks: the type's way of {@link KeySweep}. */
    abstract long eraseMatching(KeyPredicate predicate);
}
