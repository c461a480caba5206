/**
 * Stable 16-byte cache keys, RocksDB's scheme: a file's base key from its database, session and
 * file number ({@link dev.clockwork.cache.key.FileCacheKey}), a block's key from the base and its
 * offset with no allocation, and keys unique for a cache's or the process's lifetime
 * ({@link dev.clockwork.cache.key.CacheKeys}). The value space is partitioned: {@code key0 != 0}
 * for file keys, {@code key0 == 0} with {@code key1} in [1, 2^63) for cache-lifetime ids and in
 * [2^63, 2^64) for process-lifetime ids; {@code (0, 0)} is no key.
 */
package dev.clockwork.cache.key;
