package dev.clockwork.cli.caches;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Policy;

/**
 * Caffeine holding {@code byte[]}, as a Caffeine user writes a block cache: a
 * {@code Cache<BlockKey, byte[]>} bounded by weight, each entry weighing its value's bytes (the
 * charge Clockwork counts, so both hold the same blocks per byte of capacity), W-TinyLFU with
 * Caffeine's defaults (maintenance on the common pool). An insert copies the value into a new
 * array and {@code put}s it; a hit reads the stored array, no copy. Nothing pins.
 */
final class CaffeineTarget extends PeerTarget {
    private final String type;
    private final Cache<BlockKey, byte[]> cache;
    private final Policy.Eviction<BlockKey, byte[]> eviction;

    CaffeineTarget(String type, long capacity) {
        this.type = type;
        this.cache = Caffeine.newBuilder()
                .maximumWeight(capacity)
                .<BlockKey, byte[]>weigher((key, value) -> value.length)
                .build();
        this.eviction = cache.policy().eviction().orElseThrow();
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public String implName() {
        return "Caffeine (Cache<Key, byte[]>, weighed in bytes)";
    }

    @Override
    public boolean onHeap() {
        return true;
    }

    @Override
    byte[] get(BlockKey key) {
        return cache.getIfPresent(key);
    }

    @Override
    boolean put(BlockKey key, byte[] value) {
        cache.put(key, value);
        return true;
    }

    @Override
    void remove(BlockKey key) {
        cache.invalidate(key);
    }

    @Override
    public long entryCount() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    @Override
    public long usage() {
        cache.cleanUp();
        return eviction.weightedSize().orElse(-1);
    }

    @Override
    public void setCapacity(long capacity) {
        eviction.setMaximum(capacity);
    }

    @Override
    public void close() {
        cache.invalidateAll();
        cache.cleanUp();
    }
}
