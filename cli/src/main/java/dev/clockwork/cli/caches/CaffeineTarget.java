package dev.clockwork.cli.caches;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Policy;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.workload.ValueHash;

/**
 * Caffeine holding {@code byte[]}, as a Caffeine user writes a block cache: a
 * {@code Cache<BlockKey, byte[]>} bounded by weight, each entry weighing its value's bytes (the
 * charge Clockwork counts, so both hold the same blocks per byte of capacity), W-TinyLFU with
 * Caffeine's defaults (maintenance on the common pool). An insert copies the value into a new
 * array and {@code put}s it; a hit reads the stored array, no copy. Nothing pins.
 */
final class CaffeineTarget extends BenchTarget {
    private final String type;
    private final com.github.benmanes.caffeine.cache.Cache<BlockKey, byte[]> cache;
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
    public boolean pins() {
        return false;
    }

    @Override
    public boolean onHeap() {
        return true;
    }

    @Override
    public Session session() {
        return new Session() {
            private byte[] hit; // the array the last hit returned

            @Override
            public long lookup(long k0, long k1) {
                hit = cache.getIfPresent(new BlockKey(k0, k1));
                return hit == null ? Cache.MISS : UNPINNED_HIT;
            }

            @Override
            public long hashValue(long handle) {
                return ValueHash.hash(hit);
            }

            @Override
            public long insertPinned(long k0, long k1, MemorySegment value, long charge) {
                return insert(k0, k1, value, charge) ? UNPINNED_HIT : Cache.MISS;
            }

            @Override
            public boolean insert(long k0, long k1, MemorySegment value, long charge) {
                cache.put(new BlockKey(k0, k1), value.toArray(ValueLayout.JAVA_BYTE));
                return true;
            }

            @Override
            public void erase(long k0, long k1) {
                cache.invalidate(new BlockKey(k0, k1));
            }

            @Override
            public void release(long handle) {
                throw new UnsupportedOperationException("Caffeine holds no handles");
            }
        };
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
