package dev.clockwork.cache;

import java.lang.foreign.MemorySegment;

/**
 * Loads a value the cache does not hold, for {@link Cache#lookupOrLoad} and
 * {@link Cache#getOrLoad}: typically a block read from disk. The cache runs one loader per key
 * at a time, whoever asks: concurrent callers of a key that is being loaded wait for that load
 * and share its result.
 *
 * <p>The loader is the caller's code run inside a cache call, and follows {@link Cache}'s
 * "Callbacks" rules:
 * <ul>
 *   <li>What it throws (any {@link Throwable}, a checked exception too) reaches the caller and
 *       every caller waiting for the same load, and leaves nothing behind in the cache.</li>
 *   <li>It may call the cache, for other keys too; a load of the key it is loading (a
 *       {@code lookupOrLoad} or {@code getOrLoad} of the same key from inside) throws
 *       {@link IllegalStateException} instead of waiting for itself.</li>
 * </ul>
 *
 * <p>The value is copied into the cache before the call returns; the segment stays the
 * loader's, to reuse or free. Its size is the entry's charge.
 */
@FunctionalInterface
public interface ValueLoader {
    /**
     * Loads the value of a key.
     *
     * @param key0 the key's first 64 bits
     * @param key1 the key's second 64 bits
     * @return the value: all of the segment, at most {@code Integer.MAX_VALUE} bytes and at most
     *     the cache's capacity; never null
     * @throws Exception whatever loading failed with; it reaches every caller of this load
     */
    MemorySegment load(long key0, long key1) throws Exception;
}
