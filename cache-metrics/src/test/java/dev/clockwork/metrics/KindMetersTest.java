package dev.clockwork.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.ShardedCache;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The {@code kind}-tagged meters ({@link KindMeters}) of every cache type, read after a known
 * sequence: two kinds declared, entries of both and untagged ones, lookups naming a kind.
 */
class KindMetersTest {
    private static final byte[] VALUE = new byte[8];
    private static final EntryKind[] KINDS = {EntryKind.DATA, EntryKind.INDEX};

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static List<ShardedCache> caches() {
        return List.of(
                HyperClockCache.builder().capacity(1 << 20).estimatedEntryCharge(100)
                        .chargeMetadata(false).admission(AdmissionPolicy.NONE).kinds(KINDS)
                        .build(),
                HyperClockCache.builder().capacity(1 << 20).chargeMetadata(false)
                        .admission(AdmissionPolicy.NONE).kinds(KINDS).build(),
                LruCache.builder().capacity(1 << 20).chargeMetadata(false)
                        .admission(AdmissionPolicy.NONE).kinds(KINDS).build());
    }

    private double value(String cache, String name, String kind, String... tags) {
        Meter meter = registry.get(name).tag("cache", cache).tag("kind", kind).tags(tags).meter();
        return meter.measure().iterator().next().getValue();
    }

    @Test
    void eachDeclaredKindHasItsGetsUsageAndSize() {
        int n = 0;
        for (ShardedCache cache : caches()) {
            try (cache) {
                String name = "c" + n++;
                ClockworkCacheMetrics.monitor(registry, cache, name);
                cache.insert(1, 0, VALUE, 0, VALUE.length, 100, EntryKind.DATA);
                cache.insert(2, 0, VALUE, 0, VALUE.length, 200, EntryKind.DATA);
                cache.insert(3, 0, VALUE, 0, VALUE.length, 50, EntryKind.INDEX);
                cache.insert(4, 0, VALUE, 0, VALUE.length, 7, Priority.HIGH); // untagged
                cache.release(cache.lookup(1, 0, EntryKind.DATA));
                cache.release(cache.lookup(2, 0, EntryKind.DATA));
                assertEquals(Cache.MISS, cache.lookup(9, 0, EntryKind.DATA));
                assertEquals(Cache.MISS, cache.lookup(9, 0, EntryKind.INDEX));
                cache.release(cache.lookup(4, 0)); // names no kind

                assertEquals(2, value(name, "cache.kind.gets", "data", "result", "hit"));
                assertEquals(1, value(name, "cache.kind.gets", "data", "result", "miss"));
                assertEquals(0, value(name, "cache.kind.gets", "index", "result", "hit"));
                assertEquals(1, value(name, "cache.kind.gets", "index", "result", "miss"));
                assertEquals(300, value(name, "cache.kind.usage", "data"));
                assertEquals(2, value(name, "cache.kind.size", "data"));
                assertEquals(50, value(name, "cache.kind.usage", "index"));
                assertEquals(1, value(name, "cache.kind.size", "index"));
                cache.erase(2, 0);
                assertEquals(100, value(name, "cache.kind.usage", "data"));
                assertEquals(1, value(name, "cache.kind.size", "data"));

                Set<String> kindMeters = new TreeSet<>();
                for (Meter meter : registry.getMeters()) {
                    Meter.Id id = meter.getId();
                    if (name.equals(id.getTag("cache")) && id.getTag("kind") != null) {
                        kindMeters.add(id.getName() + "{" + id.getTag("kind") + "}");
                        assertTrue(id.getDescription() != null, id.getName());
                    }
                }
                assertEquals(Set.of("cache.kind.gets{data}", "cache.kind.gets{index}",
                        "cache.kind.usage{data}", "cache.kind.usage{index}",
                        "cache.kind.size{data}", "cache.kind.size{index}"), kindMeters);
            }
        }
    }

    @Test
    void aCacheWithoutKindsHasNoKindMeters() {
        try (LruCache cache = LruCache.builder().capacity(1 << 20).build()) {
            ClockworkCacheMetrics.monitor(registry, cache, "plain");
            for (Meter meter : registry.getMeters()) {
                assertEquals(null, meter.getId().getTag("kind"), meter.getId().getName());
            }
        }
    }
}
