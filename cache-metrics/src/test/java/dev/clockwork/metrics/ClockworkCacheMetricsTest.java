package dev.clockwork.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every meter of {@link ClockworkCacheMetrics}, read from a {@link SimpleMeterRegistry} after a
 * sequence of operations whose outcome is known: an LRU cache (exact eviction order), HyperClock
 * caches (the same figures, and their table meters), strict and admission refusals, eviction
 * runs that give up, a closed cache and a collected one.
 */
class ClockworkCacheMetricsTest {
    private static final byte[] VALUE = new byte[8];
    private static final long CHARGE = 1000;
    /** Room for exactly 10 entries of {@link #CHARGE} (metadata not charged). */
    private static final long CAPACITY = 10 * CHARGE;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double gauge(String cache, String name) {
        return registry.get(name).tag("cache", cache).gauge().value();
    }

    private double counter(String cache, String name, String... tags) {
        return registry.get(name).tag("cache", cache).tags(tags).functionCounter().count();
    }

    private static boolean insert(Cache cache, long key) {
        return cache.insert(key, 0, VALUE, 0, VALUE.length, CHARGE, Priority.LOW);
    }

    private static long pin(Cache cache, long key) {
        return cache.insertPinned(key, 0, VALUE, 0, VALUE.length, CHARGE, Priority.LOW);
    }

    /** The meters of one cache, as {@code name} or {@code name{tag=value}}. */
    private Set<String> meters(String cache) {
        Set<String> names = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            Meter.Id id = meter.getId();
            if (!cache.equals(id.getTag("cache"))) {
                continue;
            }
            String extra = "";
            for (String key : List.of("result", "cause")) {
                if (id.getTag(key) != null) {
                    extra = "{" + key + "=" + id.getTag(key) + "}";
                }
            }
            names.add(id.getName() + extra);
            assertNotNull(id.getDescription(), id.getName());
        }
        return names;
    }

    private static final Set<String> COMMON = Set.of("cache.size", "cache.gets{result=hit}",
            "cache.gets{result=miss}", "cache.puts", "cache.evictions", "cache.eviction.weight",
            "cache.usage", "cache.pinned.usage", "cache.capacity",
                    "cache.rejects{cause=memory_limit}",
            "cache.rejects{cause=admission}", "cache.eviction.effort.exceeded");

    private static Set<String> withTable() {
        Set<String> names = new TreeSet<>(COMMON);
        names.add("cache.table.slots");
        names.add("cache.table.occupancy");
        return names;
    }

    /**
     * Ten entries, then hits, misses, a pin, and an eleventh entry that evicts: in an LRU cache
     * exactly one, the oldest of the bottom pool (key 6: keys 1 to 5 were hit and moved to the
     * high pool, key 10 is pinned). Returns the pin.
     */
    private static long knownSequence(Cache cache) {
        for (long key = 1; key <= 10; key++) {
            assertTrue(insert(cache, key));
        }
        for (long key = 1; key <= 4; key++) {
            long handle = cache.lookup(key, 0);
            assertNotEquals(Cache.MISS, handle);
            cache.release(handle);
        }
        assertEquals(VALUE.length, cache.get(5, 0, new byte[8], 0));
        for (long key = 100; key < 103; key++) {
            assertEquals(Cache.MISS, cache.lookup(key, 0));
        }
        long pinned = cache.lookup(10, 0); // a sixth hit
        assertTrue(insert(cache, 11));
        return pinned;
    }

    @Test
    void everyMeterOfAnLruCacheAfterAKnownSequence() {
        try (LruCache cache = LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(CAPACITY).numShardBits(0)
                .chargeMetadata(false).build()) {
            assertSame(cache, ClockworkCacheMetrics.monitor(registry, cache, "lru", "db", "main"));
            long pinned = knownSequence(cache);

            assertEquals(COMMON, meters("lru"), "no table meters for an LRU cache");
            assertEquals(6, counter("lru", "cache.gets", "result", "hit"));
            assertEquals(3, counter("lru", "cache.gets", "result", "miss"));
            assertEquals(11, counter("lru", "cache.puts"));
            assertEquals(1, counter("lru", "cache.evictions"));
            assertEquals(CHARGE, counter("lru", "cache.eviction.weight"));
            assertEquals(10, gauge("lru", "cache.size"));
            assertEquals(CAPACITY, gauge("lru", "cache.usage"));
            assertEquals(CHARGE, gauge("lru", "cache.pinned.usage"));
            assertEquals(CAPACITY, gauge("lru", "cache.capacity"));
            assertEquals(0, counter("lru", "cache.rejects", "cause", "memory_limit"));
            assertEquals(0, counter("lru", "cache.rejects", "cause", "admission"));
            assertEquals(0, counter("lru", "cache.eviction.effort.exceeded"));
            assertEquals(Cache.MISS, cache.lookup(6, 0), "the bottom pool's oldest went");

            cache.setStrictCapacityLimit(true);
            List<Long> pins = new ArrayList<>(List.of(pinned));
            for (long key = 1; key <= 11; key++) {
                long handle = cache.lookup(key, 0);
                if (handle != Cache.MISS) {
                    pins.add(handle);
                }
            }
            assertEquals(Cache.MISS, pin(cache, 12), "everything pinned: refused");
            assertEquals(1, counter("lru", "cache.rejects", "cause", "memory_limit"));
            assertEquals(CAPACITY, gauge("lru", "cache.pinned.usage"),
                    "ten entries pinned, key 10 twice: counted once per entry");
            pins.forEach(cache::release);
            assertEquals(0, gauge("lru", "cache.pinned.usage"));

            Meter.Id id = registry.get("cache.usage").tag("cache", "lru").gauge().getId();
            assertTrue(id.getTags().contains(Tag.of("db", "main")), "the caller's tags");
            assertEquals("bytes", id.getBaseUnit());
        }
    }

    @Test
    void everyMeterOfTheHyperClockCaches() {
        // One shard, metadata not charged: 16 slots in the fixed table (10,000 / 700 rounded up
        // to a power of two), which takes at most 13 entries.
        try (FixedHyperClockCache fixed = HyperClockCache.builder()
                .admission(AdmissionPolicy.NONE).capacity(CAPACITY)
                .estimatedEntryCharge(CHARGE).numShardBits(0).chargeMetadata(false).build();
             AutoHyperClockCache auto = HyperClockCache.builder()
                     .admission(AdmissionPolicy.NONE).capacity(CAPACITY)
                     .numShardBits(0).chargeMetadata(false).build()) {
            for (HyperClockCache cache : List.of(fixed, auto)) {
                String name = cache.getClass().getSimpleName();
                ClockworkCacheMetrics.monitor(registry, cache, name);
                long pinned = knownSequence(cache);

                assertEquals(withTable(), meters(name));
                assertEquals(6, counter(name, "cache.gets", "result", "hit"));
                assertEquals(3, counter(name, "cache.gets", "result", "miss"));
                assertEquals(11, counter(name, "cache.puts"));
                // The clock frees whole sweep steps: at least one entry, perhaps a few.
                double evicted = counter(name, "cache.evictions");
                assertTrue(evicted >= 1, name + " evicted " + evicted);
                assertEquals(evicted, cache.stats().evictions());
                assertEquals(CHARGE * evicted, counter(name, "cache.eviction.weight"));
                assertEquals(11 - evicted, gauge(name, "cache.size"));
                assertEquals(CHARGE * (11 - evicted), gauge(name, "cache.usage"));
                assertEquals(CHARGE, gauge(name, "cache.pinned.usage"));
                assertEquals(CAPACITY, gauge(name, "cache.capacity"));
                assertEquals(cache.tableSlots(), gauge(name, "cache.table.slots"));
                assertEquals((11 - evicted) / cache.tableSlots(),
                        gauge(name, "cache.table.occupancy"), 1e-12);
                assertEquals(0, counter(name, "cache.eviction.effort.exceeded"));
                cache.release(pinned);
            }
            assertEquals(16, gauge("FixedHyperClockCache", "cache.table.slots"));
        }
    }

    @Test
    void refusalsAndGivenUpEvictionsAreCountedByCause() {
        Admission keepEveryVictim = new Admission() {
            @Override
            public void recordAccess(long keyHash, boolean hit) {
            }

            @Override
            public boolean admit(long candidateHash, long victimHash) {
                return false;
            }
        };
        try (Cache strict = HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(CAPACITY)
                .estimatedEntryCharge(CHARGE).numShardBits(0).chargeMetadata(false)
                .strictCapacityLimit(true).build();
             Cache admitting = HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                     .capacity(CAPACITY)
                     .estimatedEntryCharge(CHARGE).numShardBits(0).chargeMetadata(false)
                     .admission(keepEveryVictim).build();
             Cache capped = HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                     .capacity(CAPACITY)
                     .estimatedEntryCharge(CHARGE).numShardBits(0).chargeMetadata(false)
                     .evictionEffortCap(1).build()) {
            ClockworkCacheMetrics.monitor(registry, strict, "strict");
            ClockworkCacheMetrics.monitor(registry, admitting, "admitting");
            ClockworkCacheMetrics.monitor(registry, capped, "capped");
            List<Long> pins = new ArrayList<>();
            for (long key = 0; key < 10; key++) {
                pins.add(pin(strict, key));
                assertTrue(insert(admitting, key));
                pins.add(pin(capped, key));
            }
            assertEquals(Cache.MISS, pin(strict, 10));
            assertFalse(insert(strict, 11));
            assertFalse(insert(admitting, 10), "the policy keeps its victim");
            for (long key = 10; key < 13; key++) {
                pins.add(pin(capped, key)); // all pinned: each sweep gives up at once
            }
            assertEquals(2, counter("strict", "cache.rejects", "cause", "memory_limit"));
            assertEquals(0, counter("strict", "cache.rejects", "cause", "admission"));
            assertEquals(1, counter("admitting", "cache.rejects", "cause", "admission"));
            assertEquals(0, counter("admitting", "cache.rejects", "cause", "memory_limit"));
            assertEquals(3, counter("capped", "cache.eviction.effort.exceeded"));
            assertEquals(13 * CHARGE, gauge("capped", "cache.usage"), "over capacity, pinned");
            assertEquals(13 * CHARGE, gauge("capped", "cache.pinned.usage"));
            assertEquals(0, counter("capped", "cache.evictions"));
            for (int i = 0; i < pins.size(); i++) {
                (i % 2 == 0 && i < 20 ? strict : capped).release(pins.get(i));
            }
        }
    }

    @Test
    void aClosedCacheKeepsItsCountersAndHasNoPinnedUsage() {
        LruCache cache = LruCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(CAPACITY).numShardBits(0)
                .chargeMetadata(false).build();
        ClockworkCacheMetrics.monitor(registry, cache, "closed");
        assertTrue(insert(cache, 1));
        cache.close();
        assertTrue(Double.isNaN(gauge("closed", "cache.pinned.usage")));
        assertEquals(CHARGE, gauge("closed", "cache.usage"));
        assertEquals(1, gauge("closed", "cache.size"));
        assertEquals(1, counter("closed", "cache.puts"));
    }

    @Test
    void theMetersDoNotKeepTheCacheAlive() throws InterruptedException {
        WeakReference<Cache> ref = bindAndForget();
        for (int i = 0; i < 100 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertNull(ref.get(), "the registry holds the cache only weakly");
        assertTrue(Double.isNaN(gauge("forgotten", "cache.usage")));
        assertTrue(Double.isNaN(gauge("forgotten", "cache.table.slots")));
    }

    private WeakReference<Cache> bindAndForget() {
        Cache cache = HyperClockCache.builder().admission(AdmissionPolicy.NONE)
                .capacity(CAPACITY).numShardBits(0).build();
        ClockworkCacheMetrics.monitor(registry, cache, "forgotten");
        cache.close();
        return new WeakReference<>(cache);
    }
}
