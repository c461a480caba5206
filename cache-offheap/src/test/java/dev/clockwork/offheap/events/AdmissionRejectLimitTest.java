package dev.clockwork.offheap.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admission reject event's rate limit, on a clock the test moves: a burst records the
 * limit's worth of events, the rest are counted, and the first event of a later second carries
 * that count, so that the events add up to the rejects. {@code JfrEventsTest} checks the same
 * through real caches on the real clock, and that the event is off by default.
 */
class AdmissionRejectLimitTest {
    private static final String ADMISSION = "dev.clockwork.AdmissionReject";
    private static final long SECOND = 1_000_000_000L;
    private static final ShardGauges GAUGES = new ShardGauges() {
        @Override
        public long usage() {
            return 900;
        }

        @Override
        public long capacity() {
            return 1000;
        }

        @Override
        public boolean strict() {
            return false;
        }
    };

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(123 * SECOND);

    private List<RecordedEvent> record(Runnable body) throws IOException {
        Path file = dir.resolve("rec-" + System.nanoTime() + ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable(ADMISSION);
            recording.start();
            body.run();
            recording.stop();
            recording.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals(ADMISSION)).toList();
    }

    private static long suppressed(RecordedEvent event) {
        return event.getLong("suppressed");
    }

    @Test
    void aBurstRecordsTheLimitAndTheNextSecondsFirstEventCarriesTheRest() throws IOException {
        CacheEvents events = new CacheEvents("LruCache", new EventRateLimit(100, now::get));
        List<RecordedEvent> recorded = record(() -> {
            for (int i = 0; i < 1000; i++) {
                events.admissionReject(GAUGES, 0, 7, false);
            }
            now.addAndGet(SECOND - 1); // still the same second
            events.admissionReject(GAUGES, 0, 7, false);
            now.addAndGet(1);
            for (int i = 0; i < 3; i++) {
                events.admissionReject(GAUGES, 0, 7, true);
            }
        });
        assertEquals(103, recorded.size(), "100 in the first second, 3 in the next");
        for (int i = 0; i < 100; i++) {
            assertEquals(0, suppressed(recorded.get(i)));
            assertFalse(recorded.get(i).getBoolean("windowLoser"));
        }
        assertEquals(901, suppressed(recorded.get(100)), "900 of the burst, 1 at its end");
        assertEquals(0, suppressed(recorded.get(101)));
        assertTrue(recorded.get(100).getBoolean("windowLoser"));
        assertEquals(1004, recorded.stream().mapToLong(e -> 1 + suppressed(e)).sum(),
                "each event stands for itself and the rejects suppressed before it");
        RecordedEvent first = recorded.get(0);
        assertEquals(7, first.getLong("charge"));
        assertEquals(900, first.getLong("shardUsage"));
        assertEquals(1000, first.getLong("shardCapacity"));
        assertEquals(events.cacheId, first.getLong("cacheId"));
    }

    @Test
    void eachCacheHasALimitOfItsOwn() throws IOException {
        CacheEvents a = new CacheEvents("LruCache", new EventRateLimit(10, now::get));
        CacheEvents b = new CacheEvents("LruCache", new EventRateLimit(10, now::get));
        List<RecordedEvent> recorded = record(() -> {
            for (int i = 0; i < 50; i++) {
                a.admissionReject(GAUGES, 0, 1, false);
                b.admissionReject(GAUGES, 1, 1, false);
            }
        });
        assertEquals(10, recorded.stream().filter(e -> e.getLong("cacheId") == a.cacheId).count());
        assertEquals(10, recorded.stream().filter(e -> e.getLong("cacheId") == b.cacheId).count());
    }

    @Test
    void aThreadBehindTheClockTakesItsPermitFromTheNewerSecond() {
        EventRateLimit limit = new EventRateLimit(2, now::get);
        now.addAndGet(5 * SECOND);
        assertTrue(limit.tryAcquire());
        assertTrue(limit.tryAcquire());
        now.addAndGet(-SECOND); // a clock reading from before the second began
        assertFalse(limit.tryAcquire(), "second 5's permits are spent");
        assertEquals(1, limit.takeSuppressed());
        assertEquals(0, limit.takeSuppressed(), "taking resets the count");
    }

    @Test
    void aLimitOutsideItsRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new EventRateLimit(0, now::get));
        assertThrows(IllegalArgumentException.class,
                () -> new EventRateLimit(1 << EventRateLimit.COUNT_BITS, now::get));
    }
}
