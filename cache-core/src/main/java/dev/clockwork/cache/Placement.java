package dev.clockwork.cache;

/**
 * Where an insert puts its entry: how hard the cache tries to keep it ({@link #priority()}) and,
 * for an {@link EntryKind}, which kind of block it is, so that the cache can count hits, misses,
 * usage and entries per kind (RocksDB's {@code CacheEntryRole} statistics).
 *
 * <p>The last parameter of every insert. A {@link Priority} places an untagged entry (kind 0,
 * {@link EntryKind#DEFAULT}), exactly as before kinds existed; an {@link EntryKind} declared on
 * the cache's builder tags the entry with its kind and gives it the kind's priority. Sealed: the
 * caches read {@link #kindIndex()} on their insert path and trust it to be one of these two.
 */
public sealed interface Placement permits Priority, EntryKind {

    /**
     * The priority the entry gets.
     *
     * @return the priority itself for a {@link Priority}, the kind's for an {@link EntryKind}
     */
    Priority priority();

    /**
     * The kind's number, which the cache stores with the entry.
     *
     * @return 0 for a {@link Priority} and {@link EntryKind#DEFAULT} (untagged), else the kind's
     *     index, 1 to {@link EntryKind#MAX_INDEX}
     */
    int kindIndex();
}
