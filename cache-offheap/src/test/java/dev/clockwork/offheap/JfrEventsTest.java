package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.events.CacheEvents;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The caches' JFR events: each is recorded once per occurrence of what it reports (as many as
 * the stats counter it sits beside; admission rejects within a rate limit, the rest counted in
 * the next event), with the cache's id and the figures of the moment, and nothing is recorded
 * while a recording does not enable them (the admission reject event is off unless enabled by
 * name). Each test records to a file and reads it back, as a user would.
 */
class JfrEventsTest {
    static final String EFFORT = "dev.clockwork.EvictionEffortExceeded";
    static final String MEMORY_LIMIT = "dev.clockwork.MemoryLimitReject";
    static final String ADMISSION = "dev.clockwork.AdmissionReject";
    static final String GROWTH = "dev.clockwork.TableGrowth";
    private static final List<String> ALL = List.of(EFFORT, MEMORY_LIMIT, ADMISSION, GROWTH);
    private static final byte[] VALUE = new byte[8];

    @TempDir
    Path dir;

    /** Runs {@code body} under a recording with the Clockwork events on or off; its events. */
    private List<RecordedEvent> record(boolean enabled, Runnable body) throws IOException {
        try (Recording recording = new Recording()) {
            for (String name : ALL) {
                if (enabled) {
                    recording.enable(name);
                } else {
                    recording.disable(name);
                }
            }
            return record(recording, body);
        }
    }

    /** Runs {@code body} under {@code recording} as it is set up; the Clockwork events. */
    private List<RecordedEvent> record(Recording recording, Runnable body) throws IOException {
        Path file = dir.resolve("rec-" + System.nanoTime() + ".jfr");
        recording.start();
        body.run();
        recording.stop();
        recording.dump(file);
        List<RecordedEvent> events = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (event.getEventType().getName().startsWith("dev.clockwork.")) {
                events.add(event);
            }
        }
        return events;
    }

    private static List<RecordedEvent> of(List<RecordedEvent> events, String name, Cache cache) {
        long id = ((ShardedCache) cache).cacheId();
        return events.stream().filter(e -> e.getEventType().getName().equals(name)
                && e.getLong("cacheId") == id).toList();
    }

    // ---------------------------------------------------------------- what provokes each

    /** A 1 MiB one-shard cache of {@code kind}, metadata not charged. */
    private static ShardedCache build(CacheKind kind, boolean strict) {
        return kind.builder(1 << 20, 1024).numShardBits(0).chargeMetadata(false)
                .strictCapacityLimit(strict).build();
    }

    /** The same with TinyLFU, as small as {@code AdmissionTest}'s (1000 entries of 1). */
    private static ShardedCache buildWithTinyLfu(CacheKind kind) {
        return kind.unitCharged(1000).admission(AdmissionPolicy.TINY_LFU).build();
    }

    /** Pins entries of 1000 until the strict cache refuses one; returns the refusals (2). */
    private static void overfillStrict(Cache cache, List<Long> pinned) {
        long key = 0;
        long handle;
        while ((handle = cache.insertPinned(key, 1, VALUE, 0, VALUE.length, 1000, Priority.LOW))
                != Cache.MISS) {
            pinned.add(handle);
            key++;
        }
        // One more, without a handle: a HyperClock cache refuses it as well, an LRU cache
        // drops it ("inserted and evicted at once", not a reject).
        cache.insert(key + 1, 1, VALUE, 0, VALUE.length, 1000, Priority.LOW);
    }

    /** Pins 1500 entries of 1000 in a 1 MiB cache without a strict limit: eviction gives up. */
    private static List<Long> pinPastCapacity(Cache cache) {
        List<Long> pinned = new ArrayList<>();
        for (long key = 0; key < 1500; key++) {
            long handle = cache.insertPinned(key, 2, VALUE, 0, VALUE.length, 1000, Priority.LOW);
            assertNotEquals(Cache.MISS, handle, "not strict: always stored");
            pinned.add(handle);
        }
        return pinned;
    }

    /** Hot keys read often, then 200 one-off keys inserted; returns the inserts refused. */
    private static int offerOneOffKeys(Cache cache) {
        return offerOneOffKeys(cache, 1_000_000, 200);
    }

    /**
     * Hot keys read often, then {@code count} one-off keys from {@code first} on inserted;
     * returns the inserts refused.
     */
    private static int offerOneOffKeys(Cache cache, long first, int count) {
        for (int round = 0; round < 5; round++) {
            for (long key = 0; key < 1000; key++) {
                long handle = cache.lookup(key, 3);
                if (handle != Cache.MISS) {
                    cache.release(handle);
                } else {
                    cache.insert(key, 3, VALUE, 0, VALUE.length, 1, Priority.LOW);
                }
            }
        }
        int refused = 0;
        for (long key = first; key < first + count; key++) {
            assertEquals(Cache.MISS, cache.lookup(key, 3));
            if (!cache.insert(key, 3, VALUE, 0, VALUE.length, 1, Priority.LOW)) {
                refused++;
            }
        }
        return refused;
    }

    // ---------------------------------------------------------------- the tests

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aStrictCacheOverfilledRecordsEachRefusal(CacheKind kind) throws IOException {
        try (ShardedCache cache = build(kind, true)) {
            List<Long> pinned = new ArrayList<>();
            List<RecordedEvent> events = of(record(true, () -> overfillStrict(cache, pinned)),
                    MEMORY_LIMIT, cache);
            long rejects = cache.stats().memoryLimitRejects();
            assertEquals(kind == CacheKind.LRU ? 1 : 2, rejects);
            assertEquals(rejects, events.size());
            RecordedEvent first = events.get(0);
            assertEquals(cache.getClass().getSimpleName(), first.getString("cacheType"));
            assertEquals(0, first.getInt("shard"));
            assertEquals(1000, first.getLong("charge"));
            assertEquals(1 << 20, first.getLong("shardCapacity"));
            assertTrue(first.getLong("shardUsage") > (1 << 20) - 1000, "full when refused");
            assertTrue(first.getBoolean("strict"));
            assertTrue(first.getBoolean("pinnedInsert"));
            assertNotNull(first.getStackTrace(), "a refusal's caller is worth a stack");
            if (kind != CacheKind.LRU) {
                assertFalse(events.get(1).getBoolean("pinnedInsert"));
            }
            pinned.forEach(cache::release);
        }
    }

    @ParameterizedTest
    @EnumSource(value = CacheKind.class, names = {"FIXED", "AUTO"})
    void anEvictionThatGivesUpRecordsItsEffort(CacheKind kind) throws IOException {
        try (ShardedCache cache = build(kind, false)) {
            List<Long> pinned = new ArrayList<>();
            List<RecordedEvent> events = of(record(true, () -> pinned.addAll(
                    pinPastCapacity(cache))), EFFORT, cache);
            long exceeded = cache.stats().evictionEffortExceeded();
            assertTrue(exceeded > 0, "everything pinned: sweeps give up");
            assertEquals(exceeded, events.size());
            for (RecordedEvent event : events) {
                assertEquals(30, event.getInt("effortCap"), "the default cap");
                assertTrue(event.getLong("requestedBytes") >= 1000);
                assertEquals(0, event.getLong("freedEntries"), "nothing unpinned to free");
                assertEquals(0, event.getLong("freedBytes"));
                assertTrue(event.getLong("pinnedSeen") >= 30);
                assertNull(event.getStackTrace(), "@StackTrace(false)");
            }
            pinned.forEach(cache::release);
        }
    }

    @Test
    void anAutoTableRecordsEachDoublingAndItsReservationsEnd() throws IOException {
        // 100,000 bytes at the default minAvgEntryCharge reserve 384 slots: not a power of two,
        // so the last batch (256 -> 384) ends at the reservation, not at a doubling.
        try (AutoHyperClockCache cache = HyperClockCache.builder().capacity(100_000)
                .numShardBits(0).chargeMetadata(false).build()) {
            long reserved = cache.reservedBytes() / 64;
            assertEquals(384, reserved);
            List<RecordedEvent> events = of(record(true, () -> {
                for (long key = 0; key < 231; key++) { // 0.6 of 384: every slot a home
                    assertTrue(cache.insert(key, 4, VALUE, 0, VALUE.length, 1, Priority.LOW));
                }
            }), GROWTH, cache);
            assertEquals(reserved, cache.tableSlots(), "grown to the reservation's end");
            List<String> batches = events.stream()
                    .map(e -> e.getLong("fromSlots") + "->" + e.getLong("toSlots")).toList();
            assertEquals(List.of("64->128", "128->256", "256->384"), batches);
            for (RecordedEvent event : events) {
                assertEquals(reserved, event.getLong("maxSlots"));
                assertEquals("AutoHyperClockCache", event.getString("cacheType"));
                // One thread: the insert that grew the last slot was the first past the
                // occupancy limit of one slot fewer (0.6 of it, rounded up), counted in flight.
                long toSlots = event.getLong("toSlots");
                assertEquals((long) Math.ceil(0.6 * (toSlots - 1)) + 1, event.getLong("entries"));
                assertNull(event.getStackTrace());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aTinyLfuCacheRefusingOneOffKeysRecordsEachRefusal(CacheKind kind) throws IOException {
        try (ShardedCache cache = buildWithTinyLfu(kind)) {
            int[] refused = new int[1];
            List<RecordedEvent> events = of(record(true, () -> refused[0] = offerOneOffKeys(cache)),
                    ADMISSION, cache);
            long rejects = cache.stats().admissionRejects();
            assertTrue(rejects > 0, "one-off keys lose to hot ones");
            long windowLosers = events.stream().filter(e -> e.getBoolean("windowLoser")).count();
            if (kind == CacheKind.LRU) {
                // New entries enter the admission window; its oldest lose their duels later.
                assertTrue(windowLosers > 0);
            } else {
                assertEquals(rejects, refused[0], "a HyperClock cache refuses the insert itself");
                assertEquals(0, windowLosers);
            }
            assertTrue(events.size() <= rejects);
            assertTrue(represented(events) <= rejects, "never more than were counted");
            RecordedEvent first = events.get(0);
            assertEquals(0, first.getLong("suppressed"), "the cache's first reject is recorded");
            assertEquals(1, first.getLong("charge"));
            assertEquals(1000, first.getLong("shardCapacity"));
            assertNull(first.getStackTrace(), "@StackTrace(false)");
        }
    }

    /** The rejects a cache's admission reject events stand for: each, and those before it. */
    private static long represented(List<RecordedEvent> events) {
        return events.stream().mapToLong(e -> 1 + e.getLong("suppressed")).sum();
    }

    /**
     * A burst of thousands of rejects records at most the limit in each second it spans; the
     * first reject a second after it is recorded with the count of those left out, so that the
     * events then stand for every reject.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aBurstOfRejectsIsRateLimitedAndItsEventsAddUp(CacheKind kind) throws IOException {
        try (ShardedCache cache = buildWithTinyLfu(kind)) {
            long[] burstNanos = new long[1];
            long[] burstRejects = new long[1];
            List<RecordedEvent> events = of(record(true, () -> {
                long start = System.nanoTime();
                offerOneOffKeys(cache, 1_000_000, 5000);
                burstNanos[0] = System.nanoTime() - start;
                burstRejects[0] = cache.stats().admissionRejects();
                sleepMillis(1100); // into a later second of the cache's limit
                for (long key = 2_000_000; cache.stats().admissionRejects() == burstRejects[0]
                        && key < 2_001_000; key++) {
                    cache.insert(key, 3, VALUE, 0, VALUE.length, 1, Priority.LOW);
                }
            }), ADMISSION, cache);
            long rejects = cache.stats().admissionRejects();
            int limit = CacheEvents.ADMISSION_REJECTS_PER_SECOND;
            assertTrue(burstRejects[0] > 10L * limit, "a burst: " + burstRejects[0]);
            long afterPause = rejects - burstRejects[0];
            assertTrue(afterPause > 0, "a reject after the pause");
            // fixed seconds: a burst of d seconds touches at most floor(d) + 2 of them
            long seconds = burstNanos[0] / 1_000_000_000L + 2;
            assertTrue(events.size() - afterPause <= seconds * limit,
                    events.size() + " events for a burst of " + burstNanos[0] + " ns");
            RecordedEvent last = events.get(events.size() - 1);
            assertTrue(last.getLong("suppressed") > 0, "carries the burst's suppressed count");
            assertEquals(rejects, represented(events), "the events add up to the count");
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Recordings with the JDK's own settings leave the admission reject event out. */
    @ParameterizedTest
    @ValueSource(strings = {"default", "profile"})
    void theJdksSettingsRecordNoAdmissionRejects(String settings) throws Exception {
        try (ShardedCache cache = buildWithTinyLfu(CacheKind.AUTO);
             Recording recording = new Recording(Configuration.getConfiguration(settings))) {
            List<RecordedEvent> events = of(record(recording, () -> offerOneOffKeys(cache)),
                    ADMISSION, cache);
            assertTrue(cache.stats().admissionRejects() > 0);
            assertEquals(List.of(), events);
        }
    }

    @Test
    void anEventThatNoSettingNamesIsOff() throws IOException {
        try (ShardedCache cache = buildWithTinyLfu(CacheKind.FIXED);
             Recording recording = new Recording()) {
            List<RecordedEvent> events = of(record(recording, () -> offerOneOffKeys(cache)),
                    ADMISSION, cache);
            assertTrue(cache.stats().admissionRejects() > 0);
            assertEquals(List.of(), events);
        }
    }

    @Test
    void nothingIsRecordedWhileTheEventsAreOff() throws IOException {
        try (ShardedCache strict = build(CacheKind.FIXED, true);
             ShardedCache lru = build(CacheKind.LRU, true);
             ShardedCache pinnedAuto = build(CacheKind.AUTO, false);
             ShardedCache admitting = buildWithTinyLfu(CacheKind.AUTO)) {
            List<Long> pinned = new ArrayList<>();
            List<Long> lruPinned = new ArrayList<>();
            List<Long> autoPinned = new ArrayList<>();
            List<RecordedEvent> events = record(false, () -> {
                overfillStrict(strict, pinned);
                overfillStrict(lru, lruPinned);
                autoPinned.addAll(pinPastCapacity(pinnedAuto));
                offerOneOffKeys(admitting);
            });
            assertTrue(strict.stats().memoryLimitRejects() > 0);
            assertTrue(lru.stats().memoryLimitRejects() > 0);
            assertTrue(pinnedAuto.stats().evictionEffortExceeded() > 0);
            assertTrue(((HyperClockCache) pinnedAuto).tableSlots() > 64, "grew");
            assertTrue(admitting.stats().admissionRejects() > 0);
            assertEquals(List.of(), events);
            pinned.forEach(strict::release);
            lruPinned.forEach(lru::release);
            autoPinned.forEach(pinnedAuto::release);
        }
    }
}
