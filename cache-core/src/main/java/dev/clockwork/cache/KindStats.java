package dev.clockwork.cache;

/**
 * One declared {@link EntryKind}'s figures in a {@link CacheStats} snapshot.
 *
 * @param kind the kind
 * @param hits lookups naming the kind ({@link Cache#lookup(long, long, EntryKind)}) that found
 *     their key; approximate under contention as {@link CacheStats#hits()} is
 * @param misses lookups naming the kind that did not
 * @param usage the charges of the kind's entries the cache holds (stored and not yet freed:
 *     in the table, standalone, or erased or replaced but still pinned), without metadata
 * @param entries how many such entries there are
 */
public record KindStats(EntryKind kind, long hits, long misses, long usage, long entries) {
}
