package dev.clockwork.cache;

/**
 * Picks keys for {@link Cache#eraseIf}: a test of the two words of a key, as given to
 * {@link Cache#insert}. {@link dev.clockwork.cache.key.FileCacheKey#blocksBelow} gives the one
 * that picks every block of a file.
 *
 * <p>It is the caller's code, run inside the cache call, under the same rules as an
 * {@link EntryVisitor} (see "Callbacks" on {@link Cache}): what it throws ends the call and
 * reaches the caller; in an LRU cache it runs with a shard's lock held, and a call back into the
 * cache throws {@link IllegalStateException}. A predicate that only compares its arguments with
 * its own fields allocates nothing and never calls back.
 */
@FunctionalInterface
public interface KeyPredicate {

    /**
     * Whether the entry under this key is to be erased.
     *
     * @param key0 the key's first 64 bits
     * @param key1 the key's second 64 bits
     * @return {@code true} to erase the entry
     */
    boolean test(long key0, long key1);
}
