package dev.clockwork.metrics;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.KindStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.util.function.ToLongFunction;

/**
 * The per-kind meters {@link ClockworkCacheMetrics} adds for each {@link EntryKind} the cache
 * counts ({@code stats().kinds()}, fixed when the cache is built), tagged {@code kind=<name>}:
 * {@code cache.kind.gets} by {@code result=hit|miss}, {@code cache.kind.usage} and
 * {@code cache.kind.size}.
 *
 * <p>Names of their own rather than a {@code kind} tag on {@code cache.gets} and
 * {@code cache.size}: registries such as Prometheus require every meter of one name to have the
 * same tag keys, and the totals (which also count untagged entries and lookups that name no
 * kind) keep theirs. Each meter holds the cache weakly, as the others do; its function captures
 * only the kind.
 */
final class KindMeters {
    private final Cache cache;
    private final Iterable<Tag> tags;

    KindMeters(Cache cache, Iterable<Tag> tags) {
        this.cache = cache;
        this.tags = tags;
    }

    void bindTo(MeterRegistry registry) {
        for (KindStats stats : cache.stats().kinds()) {
            EntryKind kind = stats.kind();
            gets(registry, kind, "hit", KindStats::hits);
            gets(registry, kind, "miss", KindStats::misses);
            Gauge.builder("cache.kind.usage", cache, c -> figure(c, kind, KindStats::usage))
                    .tags(tags)
                    .tag("kind", kind.name())
                    .baseUnit(BaseUnits.BYTES)
                    .description("The charges of the kind's entries held by the cache (pinned,"
                            + " erased-but-pinned and standalone ones included; metadata not)")
                    .register(registry);
            Gauge.builder("cache.kind.size", cache, c -> figure(c, kind, KindStats::entries))
                    .tags(tags)
                    .tag("kind", kind.name())
                    .description("Entries of the kind held by the cache, counted as for"
                            + " cache.kind.usage")
                    .register(registry);
        }
    }

    private void gets(MeterRegistry registry, EntryKind kind, String result,
                      ToLongFunction<KindStats> count) {
        FunctionCounter.builder("cache.kind.gets", cache, c -> figure(c, kind, count))
                .tags(tags)
                .tag("kind", kind.name())
                .tag("result", result)
                .description("Lookups that named the kind (lookup(key0, key1, kind)), by"
                        + " whether they found their key")
                .register(registry);
    }

    /** One figure of one kind from a fresh snapshot. */
    private static double figure(Cache cache, EntryKind kind, ToLongFunction<KindStats> figure) {
        KindStats stats = cache.stats().kind(kind);
        return stats == null ? Double.NaN : figure.applyAsLong(stats);
    }
}
