package dev.clockwork.metrics;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CacheStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.util.function.ToLongFunction;

/**
 * Binds a Clockwork cache's figures to a Micrometer {@link MeterRegistry}: the meters every
 * Micrometer cache binder registers ({@code cache.size}, {@code cache.gets} by
 * {@code result=hit|miss}, {@code cache.puts}, {@code cache.evictions}), Caffeine's
 * {@code cache.eviction.weight}, and the off-heap figures: usage, pinned usage, capacity,
 * rejected inserts by cause, eviction runs that gave up on the effort cap and, for the HyperClock
 * caches, the table's slots and occupancy; per entry kind the cache was built to count, its
 * gets by result, usage and size, tagged {@code kind=<name>}. Every meter is tagged
 * {@code cache=<name>} plus the tags given. docs/metrics.md lists them with their meaning.
 *
 * <pre>{@code
 * ClockworkCacheMetrics.monitor(registry, cache, "blocks", "db", "main");
 * }</pre>
 *
 * <p>The meters hold the cache weakly, as Micrometer's own binders do: binding does not keep a
 * cache alive, and once it is collected its gauges read {@code NaN}. A closed cache's counters,
 * usage, capacity and size go on answering; its pinned usage reads {@code NaN}.
 *
 * <p>Each read of a counter takes a {@link Cache#stats()} snapshot, and {@code cache.pinned.usage}
 * scans the cache (every slot of a HyperClock table, each LRU shard under its lock): cheap at
 * scrape intervals, but a {@code MeterFilter} that denies {@code cache.pinned.usage} spares the
 * scan on very large caches.
 */
public final class ClockworkCacheMetrics extends CacheMeterBinder<Cache> {

    /**
     * Meters for {@code cache}, to be registered by {@link #bindTo}.
     *
     * @param cache the cache to observe: any {@link Cache}; the off-heap caches of
     *     {@code dev.clockwork.offheap} add eviction weight and (HyperClock) table meters
     * @param cacheName the value of each meter's {@code cache} tag
     * @param tags further tags for every meter
     */
    public ClockworkCacheMetrics(Cache cache, String cacheName, Iterable<Tag> tags) {
        super(cache, cacheName, tags);
    }

    /**
     * Registers the meters of {@code cache} in {@code registry}.
     *
     * @param registry where the meters go
     * @param cache the cache to observe
     * @param cacheName the value of each meter's {@code cache} tag
     * @param tags further tags as key, value, key, value, ...
     * @param <C> the cache's type
     * @return {@code cache}, unchanged
     */
    public static <C extends Cache> C monitor(MeterRegistry registry, C cache, String cacheName,
                                              String... tags) {
        return monitor(registry, cache, cacheName, Tags.of(tags));
    }

    /**
     * Registers the meters of {@code cache} in {@code registry}.
     *
     * @param registry where the meters go
     * @param cache the cache to observe
     * @param cacheName the value of each meter's {@code cache} tag
     * @param tags further tags for every meter
     * @param <C> the cache's type
     * @return {@code cache}, unchanged
     */
    public static <C extends Cache> C monitor(MeterRegistry registry, C cache, String cacheName,
                                              Iterable<Tag> tags) {
        new ClockworkCacheMetrics(cache, cacheName, tags).bindTo(registry);
        return cache;
    }

    /** A figure of the cache's stats, or {@code orElse} once the cache is collected. */
    private long stat(ToLongFunction<CacheStats> figure, long orElse) {
        Cache cache = getCache();
        return cache == null ? orElse : figure.applyAsLong(cache.stats());
    }

    /**
     * Entries in the cache's table (standalone entries, which lookups do not find, excluded).
     *
     * @return the entry count, or null once the cache is collected
     */
    @Override
    protected Long size() {
        Cache cache = getCache();
        return cache == null ? null : cache.entryCount();
    }

    /**
     * Lookups and gets that found their key (0 if the cache was built with
     * {@code recordStats(false)}).
     *
     * @return the hit count
     */
    @Override
    protected long hitCount() {
        return stat(CacheStats::hits, 0);
    }

    /**
     * Lookups and gets that did not find their key.
     *
     * @return the miss count, or null once the cache is collected
     */
    @Override
    protected Long missCount() {
        Cache cache = getCache();
        return cache == null ? null : cache.stats().misses();
    }

    /**
     * Entries evicted to make room.
     *
     * @return the eviction count, or null once the cache is collected
     */
    @Override
    protected Long evictionCount() {
        Cache cache = getCache();
        return cache == null ? null : cache.stats().evictions();
    }

    /**
     * Entries stored by inserts: in the table, and standalone ones (a pinned insert of a key
     * already present, or into a full table). Refused and dropped inserts are not counted.
     *
     * @return the put count
     */
    @Override
    protected long putCount() {
        return stat(s -> s.inserts() + s.standaloneInserts(), 0);
    }

    /**
     * Registers the meters beyond Micrometer's common set: see {@link OffHeapMeters}, and per
     * entry kind the cache counts, {@link KindMeters}.
     *
     * @param registry where the meters go
     */
    @Override
    protected void bindImplementationSpecificMetrics(MeterRegistry registry) {
        Cache cache = getCache();
        if (cache != null) {
            new OffHeapMeters(cache, getTagsWithCacheName()).bindTo(registry);
            new KindMeters(cache, getTagsWithCacheName()).bindTo(registry);
        }
    }
}
