package dev.clockwork.metrics;

import dev.clockwork.cache.Cache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.ShardedCache;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.util.function.ToDoubleFunction;

/**
 * The meters {@link ClockworkCacheMetrics} adds to Micrometer's common cache set. Each is built
 * on the cache object itself with a function that captures nothing, so the meter holds the cache
 * only weakly (Micrometer's default for function-based meters).
 */
final class OffHeapMeters {
    private final Cache cache;
    private final Iterable<Tag> tags;

    OffHeapMeters(Cache cache, Iterable<Tag> tags) {
        this.cache = cache;
        this.tags = tags;
    }

    void bindTo(MeterRegistry registry) {
        bytes(registry, "cache.usage", Cache::usage,
                "Bytes charged to the cache: entries, pinned ones included, and their metadata"
                        + " unless built with chargeMetadata(false)");
        bytes(registry, "cache.pinned.usage", OffHeapMeters::pinnedUsage,
                "Bytes charged by entries pinned by a handle (a scan of the cache)");
        bytes(registry, "cache.capacity", Cache::capacity, "The capacity in bytes, as last set");
        rejects(registry, "memory_limit", c -> c.stats().memoryLimitRejects());
        rejects(registry, "admission", c -> c.stats().admissionRejects());
        FunctionCounter.builder("cache.eviction.effort.exceeded", cache,
                        c -> c.stats().evictionEffortExceeded())
                .tags(tags)
                .description("Eviction runs that gave up because they passed too many pinned"
                        + " entries per entry freed (HyperClock's eviction effort cap)")
                .register(registry);
        if (cache instanceof ShardedCache sharded) {
            FunctionCounter.builder("cache.eviction.weight", sharded, ShardedCache::evictedCharge)
                    .tags(tags)
                    .baseUnit(BaseUnits.BYTES)
                    .description("The sum of the charges of evicted entries (metadata not"
                            + " included). This total does not include erased entries.")
                    .register(registry);
        }
        if (cache instanceof HyperClockCache hyperClock) {
            Gauge.builder("cache.table.slots", hyperClock, HyperClockCache::tableSlots)
                    .tags(tags)
                    .description("Slots of the tables in use: all of a fixed table, an Auto"
                            + " table's slots up to where it has grown")
                    .register(registry);
            Gauge.builder("cache.table.occupancy", hyperClock, OffHeapMeters::occupancy)
                    .tags(tags)
                    .description("Entries per slot in use, 0..1: a fixed table takes at most"
                            + " 0.84, an Auto table grows to stay at or below 0.6")
                    .register(registry);
        }
    }

    private void bytes(MeterRegistry registry, String name, ToDoubleFunction<Cache> figure,
                       String description) {
        Gauge.builder(name, cache, figure)
                .tags(tags)
                .baseUnit(BaseUnits.BYTES)
                .description(description)
                .register(registry);
    }

    private void rejects(MeterRegistry registry, String cause, ToDoubleFunction<Cache> count) {
        FunctionCounter.builder("cache.rejects", cache, count)
                .tags(tags)
                .tag("cause", cause)
                .description("Entries refused: inserts that found no room under the strict"
                        + " capacity limit or a size limit (memory_limit); inserts the admission"
                        + " policy refused, and in a W-TinyLFU LRU cache window entries that lost"
                        + " their duel (admission)")
                .register(registry);
    }

    /** Pinned usage, or NaN once the cache is closed (the scan needs its memory). */
    private static double pinnedUsage(Cache cache) {
        try {
            return cache.pinnedUsage();
        } catch (IllegalStateException closed) {
            return Double.NaN;
        }
    }

    private static double occupancy(HyperClockCache cache) {
        long slots = cache.tableSlots();
        return slots == 0 ? 0.0 : (double) cache.entryCount() / slots;
    }
}
