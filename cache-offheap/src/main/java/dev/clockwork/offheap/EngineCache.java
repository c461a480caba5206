package dev.clockwork.offheap;

import dev.clockwork.cache.AsyncValueLoader;
import dev.clockwork.cache.KeyPredicate;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueLoader;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.shard.Shard;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

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
    /** Get-or-load, with its loads in flight. */
    final LoadOnce loading = new LoadOnce(this);

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

    // ---------------------------------------------------------------- get-or-load (LoadOnce)

    /** A hit is {@link #lookup}'s, and costs what it costs: the rest is the miss's. */
    @Override
    public final long lookupOrLoad(long key0, long key1, ValueLoader loader, Priority priority) {
        LoadOnce.checkArguments(loader, priority);
        long handle = lookup(key0, key1);
        return handle != MISS ? handle : loading.lookupMissed(key0, key1, loader, priority);
    }

    /** A hit is {@link #get(long, long, byte[], int)}'s; the rest is the miss's. */
    @Override
    public final int getOrLoad(long key0, long key1, byte[] dst, int offset, ValueLoader loader,
                               Priority priority) {
        LoadOnce.checkArguments(loader, priority);
        int length = get(key0, key1, dst, offset);
        return length != ABSENT ? length
                : (int) loading.getMissed(key0, key1, null, dst, offset, loader, priority);
    }

    /** A hit is {@link #get(long, long, MemorySegment, long)}'s; the rest is the miss's. */
    @Override
    public final long getOrLoad(long key0, long key1, MemorySegment dst, long offset,
                                ValueLoader loader, Priority priority) {
        LoadOnce.checkArguments(loader, priority);
        long length = get(key0, key1, dst, offset);
        return length != ABSENT ? length
                : loading.getMissed(key0, key1, dst, null, offset, loader, priority);
    }

    @Override
    public final CompletableFuture<byte[]> getOrLoadAsync(long key0, long key1,
                                                          AsyncValueLoader loader,
                                                          Priority priority) {
        return loading.getOrLoadAsync(key0, key1, loader, priority);
    }

    /** Loads in flight now, for tests: 0 once every caller of a load has returned. */
    final int loadsInFlight() {
        return loading.loads.inFlight();
    }

    /**
     * Keeps a loaded value that the cache refused (a strict limit, admission) for the callers
     * that asked for it: stores it outside the index, pinned once, as a HyperClock cache's
     * standalone entry is (found by no lookup, charged to usage while pinned, over capacity if
     * need be, freed by its last release). Returns its handle, or {@link #MISS} if even that
     * cannot be (the shard's usage at its share of {@link CacheOptions#MAX_USAGE}, or every
     * record of an LRU shard pinned); then, and when it throws, the value at
     * {@code valueAddress} is still the caller's.
     */
    abstract long pinOutsideIndex(long h0, long h1, long valueAddress, int length, long charge);

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
