package dev.clockwork.cache;

import java.lang.foreign.MemorySegment;

/**
 * Receives the entries of a cache from {@link Cache#forEachEntry}, one call per entry, for
 * example to gather statistics of what a block cache holds (bytes per kind of block) while it is
 * in use.
 *
 * <p>The caller supplies the visitor and the cache allocates nothing per entry besides the value
 * view (see {@link #readsValues()}), so a visitor that only adds numbers into its own fields
 * makes a whole pass allocation-free.
 */
@FunctionalInterface
public interface EntryVisitor {

    /**
     * Called once per visited entry.
     *
     * @param key0 the first half of the entry's key, as given to {@link Cache#insert}
     * @param key1 the second half
     * @param value a read-only view of the entry's value, valid only during this call (the
     *     entry is pinned while it runs; reading the view after this call returns is undefined:
     *     the entry may be freed and its memory reused). {@link MemorySegment#NULL} when
     *     {@link #readsValues()} is {@code false}.
     * @param charge what the entry counts against capacity, excluding metadata (the
     *     {@code charge} given to insert)
     */
    void visit(long key0, long key1, MemorySegment value, long charge);

    /**
     * Called once per visited entry by the caches that tag entries with their
     * {@link EntryKind}, instead of {@link #visit(long, long, MemorySegment, long)}; by default
     * it calls that method, so a visitor that does not care about kinds implements only it.
     *
     * @param key0 the first half of the entry's key
     * @param key1 the second half
     * @param value as for {@link #visit(long, long, MemorySegment, long)}
     * @param charge as for {@link #visit(long, long, MemorySegment, long)}
     * @param kind the kind the entry was inserted with: one declared on the cache's builder, or
     *     {@link EntryKind#DEFAULT} for an entry inserted with a {@link Priority}; never null
     */
    default void visit(long key0, long key1, MemorySegment value, long charge, EntryKind kind) {
        visit(key0, key1, value, charge);
    }

    /**
     * Whether {@link #visit} reads its {@code value} argument. A visitor that returns
     * {@code false} is passed {@link MemorySegment#NULL} instead of a view of each value, which
     * spares the cache creating one view object per entry (the JIT often, but not always,
     * removes that allocation). Default {@code true}.
     *
     * @return {@code false} if {@link #visit} ignores its {@code value}
     */
    default boolean readsValues() {
        return true;
    }
}
