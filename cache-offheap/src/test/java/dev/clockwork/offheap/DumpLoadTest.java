package dev.clockwork.offheap;

import static dev.clockwork.offheap.DumpTestKit.contents;
import static dev.clockwork.offheap.DumpTestKit.dumpToBytes;
import static dev.clockwork.offheap.DumpTestKit.key0;
import static dev.clockwork.offheap.DumpTestKit.key1;
import static dev.clockwork.offheap.DumpTestKit.load;
import static dev.clockwork.offheap.DumpTestKit.records;
import static dev.clockwork.offheap.DumpTestKit.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Priority;
import dev.clockwork.cache.dump.DumpFormat;
import dev.clockwork.cache.dump.DumpReader;
import dev.clockwork.offheap.DumpTestKit.Entry;
import dev.clockwork.offheap.DumpTestKit.Key;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link EngineCache#dump} and {@link EngineCache#load} on every cache type: a round trip keeps
 * keys, bytes and charges (a value longer than a block too), into a cache of another hash seed;
 * the order is the hottest first where the type knows it (clock countdown, recency); a load into
 * a cache too small keeps the hottest and stops before the capacity. Refusals are
 * {@link DumpRefusalTest}'s, the race with writers {@link DumpRaceTest}'s.
 */
class DumpLoadTest {
    private final List<EngineCache> caches = new ArrayList<>();

    private EngineCache cache(CacheKind kind, long capacity, int shardBits, long seed) {
        EngineCache cache = (EngineCache) kind.builder(capacity, 8 << 10).numShardBits(shardBits)
                .hashSeed(seed).admission(AdmissionPolicy.NONE).build();
        caches.add(cache);
        return cache;
    }

    @AfterEach
    void closeAll() {
        caches.forEach(EngineCache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    /** Entries of 1 byte to 24 KiB, one of 3 MiB (longer than a block), mixed priorities. */
    private static void fill(EngineCache cache, int entries, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Priority[] priorities = Priority.values();
        for (int k = 0; k < entries; k++) {
            int length = k == entries / 2 ? 3 << 20 : random.nextInt(k % 7 == 0 ? 2 : 24 << 10);
            byte[] v = value(k, length);
            assertTrue(cache.insert(key0(k), key1(k), v, 0, v.length,
                    length + random.nextInt(100), priorities[k % 3]));
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void roundTripKeepsKeysBytesAndCharges(CacheKind kind) throws IOException {
        EngineCache source = cache(kind, 256 << 20, 3, 1);
        fill(source, 3000, kind.ordinal());
        Map<Key, Entry> before = contents(source);
        byte[] dump = dumpToBytes(source);
        List<Entry> dumped = records(dump);
        assertEquals(before.size(), dumped.size(), "one record per entry");
        assertEquals(before, toMap(dumped), "the dump holds the cache's entries");

        EngineCache target = cache(kind, 256 << 20, 2, 0xD1FFE7E47L); // other seed and shards
        LoadSummary summary = load(target, dump);
        assertEquals(before.size(), summary.records());
        assertEquals(before.size(), summary.inserted());
        assertEquals(0, summary.skipped() + summary.refused());
        assertEquals(dump.length, summary.fileBytes());
        assertEquals(before, contents(target), "same keys, same bytes, same charges");
        // And what the loaded cache dumps is the same again, priorities included.
        assertEquals(toMap(dumped), toMap(records(dumpToBytes(target))));
        assertEquals(prioritiesOf(dumped), prioritiesOf(records(dumpToBytes(target))),
                "a loaded entry dumps with the priority it was dumped with");
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void fileRoundTrip(CacheKind kind, @TempDir Path dir) throws IOException {
        EngineCache source = cache(kind, 64 << 20, 2, 7);
        fill(source, 500, 3);
        Path file = dir.resolve("cache.dump");
        DumpSummary written = source.dump(file);
        assertEquals(Files.size(file), written.fileBytes());
        assertEquals(500, written.entries());
        EngineCache target = cache(kind, 64 << 20, 2, 8);
        assertEquals(500, target.load(file).inserted());
        assertEquals(contents(source), contents(target));
    }

    /** HyperClock: countdown 3 (HIGH), then 2 (LOW), then 1 (BOTTOM), as inserted. */
    @ParameterizedTest
    @EnumSource(value = CacheKind.class, names = {"FIXED", "AUTO"})
    void clockDumpIsByCountdownHighestFirst(CacheKind kind) throws IOException {
        EngineCache cache = cache(kind, 64 << 20, 2, 3);
        fill(cache, 900, 5);
        List<Entry> dumped = records(dumpToBytes(cache));
        assertEquals(DumpFormat.ORDER_CLOCK, orderOf(dumpToBytes(cache)));
        for (int i = 1; i < dumped.size(); i++) {
            assertTrue(dumped.get(i - 1).priority().ordinal() <= dumped.get(i).priority().ordinal(),
                    "record " + i + " is hotter than the one before");
        }
        for (Entry e : dumped) {
            long k = DumpTestKit.idOf(e.key());
            assertEquals(Priority.values()[(int) (k % 3)], e.priority(), "key " + k);
        }
        // A hit raises a BOTTOM entry's countdown: it moves ahead of the never-hit BOTTOM ones.
        long hit = 2; // inserted as BOTTOM
        for (int i = 0; i < 3; i++) {
            cache.release(cache.lookup(key0(hit), key1(hit)));
        }
        List<Entry> after = records(dumpToBytes(cache));
        int at = 0;
        while (DumpTestKit.idOf(after.get(at).key()) != hit) {
            at++;
        }
        assertEquals(Priority.HIGH, after.get(at).priority(), "hit three times: countdown 3");
        assertEquals(Priority.HIGH, after.get(at + 1).priority(), "among the HIGH ones");
    }

    /** LRU, one shard, no pools: newest first, and a hit makes an entry the newest. */
    @Test
    void lruDumpIsMostRecentFirst() throws IOException {
        EngineCache cache = LruCache.builder().capacity(64 << 20).numShardBits(0)
                .highPriPoolRatio(0).admission(AdmissionPolicy.NONE).build();
        caches.add(cache);
        for (int k = 0; k < 1000; k++) {
            byte[] v = value(k, 100 + k);
            cache.insert(key0(k), key1(k), v, 0, v.length, v.length, Priority.LOW);
        }
        cache.release(cache.lookup(key0(10), key1(10)));
        byte[] dump = dumpToBytes(cache);
        assertEquals(DumpFormat.ORDER_RECENCY, orderOf(dump));
        List<Entry> dumped = records(dump);
        assertEquals(10, DumpTestKit.idOf(dumped.get(0).key()), "the entry just hit is first");
        assertEquals(Priority.HIGH, dumped.get(0).priority(), "hit: loads as HIGH");
        long expected = 999;
        for (Entry e : dumped.subList(1, dumped.size())) {
            if (expected == 10) {
                expected--;
            }
            assertEquals(expected--, DumpTestKit.idOf(e.key()), "newest to oldest");
            assertEquals(Priority.LOW, e.priority());
        }
        // A pinned entry is on no list: the slab-order phase writes it.
        long handle = cache.lookup(key0(500), key1(500));
        try {
            List<Entry> pinned = records(dumpToBytes(cache));
            assertEquals(1000, pinned.size());
            assertEquals(500, DumpTestKit.idOf(pinned.get(999).key()), "last, from the slab");
        } finally {
            cache.release(handle);
        }
    }

    /**
     * A cache too small: the load inserts the dump's first (hottest) records while they fit,
     * skips the rest, and never passes the capacity.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void loadIntoACacheTooSmallKeepsTheHottest(CacheKind kind) throws IOException {
        EngineCache source = cache(kind, 256 << 20, 2, 11);
        fill(source, 3000, 9);
        byte[] dump = dumpToBytes(source);
        List<Entry> dumped = records(dump);
        EngineCache small = cache(kind, 8 << 20, 0, 12); // one shard: see EngineCache.load
        LoadSummary summary = load(small, dump);
        assertTrue(summary.skipped() > 0, "a 8 MiB cache cannot take ~36 MiB");
        assertEquals(dumped.size(), summary.inserted() + summary.refused() + summary.skipped());
        assertTrue(small.usage() <= small.capacity(), "usage " + small.usage());
        Set<Key> hottest = new HashSet<>();
        for (Entry e : dumped.subList(0, (int) (summary.inserted() + summary.refused()))) {
            hottest.add(e.key());
        }
        Map<Key, Entry> held = contents(small);
        assertTrue(held.size() > 0);
        for (Key k : held.keySet()) {
            assertTrue(hottest.contains(k), "a cold record was loaded: " + k);
        }
    }

    private static Map<Key, Entry> toMap(List<Entry> entries) {
        Map<Key, Entry> out = new HashMap<>();
        for (Entry e : entries) {
            assertEquals(null, out.put(e.key(), e), "a key twice in the dump: " + e.key());
        }
        return out;
    }

    private static Map<Key, Priority> prioritiesOf(List<Entry> entries) {
        Map<Key, Priority> out = new HashMap<>();
        entries.forEach(e -> out.put(e.key(), e.priority()));
        return out;
    }

    private static int orderOf(byte[] dump) throws IOException {
        return new DumpReader(Channels.newChannel(new ByteArrayInputStream(dump))).order();
    }
}
