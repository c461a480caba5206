package dev.clockwork.cache.key;

import dev.clockwork.cache.Cache;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keys for entries that belong to no file: unique for the life of one cache (a reservation, a
 * dummy entry) or of the process (an entry many databases share). Both have {@code key0 == 0},
 * which no {@link FileCacheKey} has; cache-lifetime ids take {@code key1} ∈ [1, 2^63) and count
 * up, process-lifetime ids take {@code key1} ∈ [2^63, 2^64) and count down from 2^64 − 1, so the
 * two kinds never meet (each would need 2^63 ids first, and both check it).
 */
public final class CacheKeys {
    private static final AtomicLong PROCESS_COUNTER = new AtomicLong(-1L); // 2^64 - 1, unsigned

    private CacheKeys() {
    }

    /** {@code key0} of every key this class makes. */
    public static final long KEY0 = 0;

    /**
     * A {@code key1} (with {@link #KEY0}) no other call for {@code cache} returns.
     *
     * @param cache the cache the key is for; one of its ids ({@link Cache#newId}) is used
     * @return {@code cache.newId() + 1}, in {@code [1, 2^63)}
     * @throws IllegalStateException if the cache has handed out {@code 2^63 - 1} ids
     */
    public static long uniqueForCacheLifetime(Cache cache) {
        long id = cache.newId() + 1; // ids from 0; (0, 0) is no key
        if (id <= 0) {
            throw new IllegalStateException("the cache has handed out 2^63 - 1 ids");
        }
        return id;
    }

    /**
     * A {@code key1} (with {@link #KEY0}) no other call in this process returns.
     *
     * @return the next id counting down from {@code 2^64 - 1} (-1 as a {@code long}): negative,
     *     so in {@code [2^63, 2^64)} as an unsigned value
     * @throws IllegalStateException if the process has handed out {@code 2^63} ids
     */
    public static long uniqueForProcessLifetime() {
        long id = PROCESS_COUNTER.getAndDecrement();
        if (id >= 0) {
            throw new IllegalStateException("the process has handed out 2^63 ids");
        }
        return id;
    }
}
