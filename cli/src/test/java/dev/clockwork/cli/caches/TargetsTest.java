package dev.clockwork.cli.caches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.workload.ValueHash;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TargetsTest {

    @Test
    void compareEntriesNameATypeAndMaybeACollector() {
        assertEquals(new Targets.CompareEntry("caffeine", "zgc"),
                Targets.CompareEntry.parse("caffeine:ZGC"));
        assertEquals(new Targets.CompareEntry("lru_cache", null),
                Targets.CompareEntry.parse("lru_cache"));
        assertNull(Targets.CompareEntry.parse("ohc_linked:parallel").check());
        assertTrue(Targets.CompareEntry.parse("caffeine:cms").check()
                .startsWith("unknown collector 'cms' in caffeine:cms"));
        assertTrue(Targets.CompareEntry.parse("memcached").check()
                .contains("caffeine, ohc_linked, ohc_chunked"));
    }

    /** The heap rule: twice the capacity for Caffeine (1 GiB at least), 512 MiB off heap. */
    @Test
    void eachEntryGetsTheHeapItsUserWouldGiveIt() {
        assertEquals(List.of("-Xms8192m", "-Xmx8192m", "-XX:+UseZGC"),
                Targets.CompareEntry.parse("caffeine:zgc").jvmOptions(4L << 30));
        assertEquals(List.of("-Xms1024m", "-Xmx1024m"),
                Targets.CompareEntry.parse("caffeine").jvmOptions(16L << 20));
        assertEquals(List.of("-Xmx512m", "-XX:+UseG1GC"),
                Targets.CompareEntry.parse("fixed_hyper_clock_cache:g1").jvmOptions(8L << 30));
        List<String> ohc = Targets.CompareEntry.parse("ohc_chunked").jvmOptions(1L << 30);
        assertTrue(ohc.contains("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"), ohc.toString());
        for (String replaced : List.of("-Xmx4g", "-Xms1g", "-XX:+UseParallelGC", "-XX:-UseZGC",
                "-XX:MaxRAMPercentage=50", "-XX:MaxHeapSize=100m")) {
            assertTrue(Targets.CompareEntry.replaced(replaced), replaced);
        }
        for (String kept : List.of("-ea", "-Xss1m", "-XX:+AlwaysPreTouch",
                "--enable-native-access=ALL-UNNAMED")) {
            assertFalse(Targets.CompareEntry.replaced(kept), kept);
        }
    }

    /** Every target stores, finds, hashes, erases and refuses nothing of a small workload. */
    @ParameterizedTest
    @ValueSource(strings = {"caffeine", "ohc_linked", "ohc_chunked", "lru_cache",
        "fixed_hyper_clock_cache", "auto_hyper_clock_cache"})
    void everyTargetDoesTheSameOperations(String type) {
        var settings = new CacheFactory.Settings(type, 4 << 20, 1000, 0, -1, false, 30, 1, 0.5,
                0, "none");
        try (BenchTarget target = Targets.create(settings); Arena arena = Arena.ofConfined()) {
            BenchTarget.Session s = target.session();
            MemorySegment value = arena.allocate(1000);
            for (int i = 0; i < 1000; i++) {
                value.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            assertEquals(Cache.MISS, s.lookup(1, 2));
            long inserted = s.insertPinned(1, 2, value, 1000);
            assertTrue(inserted != Cache.MISS);
            if (target.pins()) {
                s.release(inserted);
            }
            assertTrue(s.insert(3, 4, value, 1000));
            long hit = s.lookup(1, 2);
            assertTrue(hit != Cache.MISS);
            assertEquals(ValueHash.hash(value), s.hashValue(hit), "the stored bytes");
            if (target.pins()) {
                s.release(hit);
            }
            s.erase(1, 2);
            assertEquals(Cache.MISS, s.lookup(1, 2));
            assertEquals(1, target.entryCount());
            assertTrue(target.usage() >= 1000, "usage " + target.usage());
            if (type.equals(Targets.OHC_CHUNKED)) {
                assertFalse(Targets.canSetCapacity(type));
            } else {
                assertTrue(Targets.canSetCapacity(type));
                target.setCapacity(2 << 20);
            }
        }
    }

    /** OHC's chunked segments stay within the 1 GiB it accepts, at any capacity. */
    @Test
    void chunkedOhcSegmentsStayWithinAGibibyte() {
        for (long gib : new long[] {1, 4, 8, 9, 64}) {
            int segments = OhcTarget.chunkedSegments(gib << 30);
            assertEquals(1, Integer.bitCount(segments), "a power of two: " + segments);
            assertTrue((gib << 30) / segments <= OhcTarget.MAX_CHUNKED_SEGMENT_BYTES,
                    gib + " GiB in " + segments + " segments");
            assertTrue(segments >= 2 * Runtime.getRuntime().availableProcessors(),
                    "at least OHC's default, " + segments);
        }
    }

    /** The peers' values (arrays) hash as the same bytes in native memory do. */
    @Test
    void arraysHashAsSegmentsOfTheSameBytes() {
        SplittableRandom rnd = new SplittableRandom(11);
        for (int n : new int[] {0, 1, 7, 8, 31, 32, 33, 100, 4096, 16385}) {
            byte[] bytes = new byte[n];
            for (int i = 0; i < n; i++) {
                bytes[i] = (byte) rnd.nextInt();
            }
            assertEquals(ValueHash.hash(MemorySegment.ofArray(bytes)), ValueHash.hash(bytes),
                    "length " + n);
        }
    }
}
