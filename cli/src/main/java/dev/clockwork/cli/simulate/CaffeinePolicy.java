package dev.clockwork.cli.simulate;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Caffeine (W-TinyLFU) bounded by {@code maximumSize}, or for byte capacities by
 * {@code maximumWeight} with the access's size as the weight. Maintenance runs on the calling
 * thread ({@code executor(Runnable::run)}) and {@code cleanUp()} follows every insert, so each
 * eviction happens before the next access, as in the other policies.
 *
 * <p>Caffeine is concurrent, and so is this ({@link #FACTORY}): {@code -threads} replays through
 * it from several threads, each running maintenance after its own inserts.
 *
 * <p>Caffeine's admission breaks some frequency ties at random (a defence against hash
 * flooding), through a random source this class cannot seed: a rerun can differ slightly.
 */
final class CaffeinePolicy implements SimPolicy {
    /** Makes one for each replay, and says it may be replayed concurrently. */
    static final PolicyFactory FACTORY = new PolicyFactory() {
        @Override
        public SimPolicy create(Trace trace, long capacity, boolean bytes) {
            return new CaffeinePolicy(capacity, bytes);
        }

        @Override
        public boolean concurrent() {
            return true;
        }
    };

    private final Cache<Long, Integer> cache;

    CaffeinePolicy(long capacity, boolean bytes) {
        Caffeine<Object, Object> builder = Caffeine.newBuilder().executor(Runnable::run);
        this.cache = bytes
                ? builder.maximumWeight(capacity)
                        .<Long, Integer>weigher((key, size) -> size)
                        .build()
                : builder.maximumSize(capacity).build();
    }

    @Override
    public boolean access(long key, long size) {
        if (cache.getIfPresent(key) != null) {
            return true;
        }
        // sizes come from int trace sizes (bytes) or are 1 (entries)
        cache.put(key, (int) size);
        cache.cleanUp();
        return false;
    }
}
