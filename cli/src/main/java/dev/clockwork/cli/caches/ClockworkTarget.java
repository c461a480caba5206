package dev.clockwork.cli.caches;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.workload.ValueHash;
import java.lang.foreign.MemorySegment;

/**
 * A Clockwork cache as a bench target: every operation is the {@link Cache} call of the same
 * name; hits read the value in place through {@link Cache#value}, between lookup and release.
 * Inserts use {@link Priority#LOW}, cache_bench's default priority.
 */
public final class ClockworkTarget extends BenchTarget implements BenchTarget.Session {
    private final String type;
    private final Cache cache;

    public ClockworkTarget(String type, Cache cache) {
        this.type = type;
        this.cache = cache;
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public String implName() {
        return CacheFactory.implName(cache);
    }

    @Override
    public Cache clockwork() {
        return cache;
    }

    @Override
    public boolean pins() {
        return true;
    }

    /** The cache is thread-safe and the session keeps no state: the target is its own session. */
    @Override
    public Session session() {
        return this;
    }

    @Override
    public long lookup(long k0, long k1) {
        return cache.lookup(k0, k1);
    }

    @Override
    public long hashValue(long handle) {
        return ValueHash.hash(cache.value(handle));
    }

    @Override
    public long insertPinned(long k0, long k1, MemorySegment value, long charge) {
        return cache.insertPinned(k0, k1, value, charge, Priority.LOW);
    }

    @Override
    public boolean insert(long k0, long k1, MemorySegment value, long charge) {
        return cache.insert(k0, k1, value, charge, Priority.LOW);
    }

    @Override
    public void erase(long k0, long k1) {
        cache.erase(k0, k1);
    }

    @Override
    public void release(long handle) {
        cache.release(handle);
    }

    @Override
    public long entryCount() {
        return cache.entryCount();
    }

    @Override
    public long usage() {
        return cache.usage();
    }

    @Override
    public void setCapacity(long capacity) {
        cache.setCapacity(capacity);
    }

    @Override
    public void close() {
        cache.close();
    }
}
