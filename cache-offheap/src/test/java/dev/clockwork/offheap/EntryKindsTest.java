package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CacheStats;
import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.KindStats;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueLoader;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Entry kinds on every cache type: the kind an insert gives is the one a visit reports, and
 * {@code stats().kinds()} holds, at every quiet moment, exactly the charges and counts of the
 * tagged entries the cache holds, as a visit (which reads each record) and the cache's own
 * {@code usage()} find them: after inserts, evictions, erases, replacement, pinned and standalone
 * entries, racing threads and close. The tag never shows in a charge, even beside a charge of
 * 2^56, the largest a shard stores.
 */
class EntryKindsTest {
    /** Index 15: its tag sets the charge word's sign bit. */
    private static final EntryKind TOP = EntryKind.of("top", 15, Priority.BOTTOM);
    private static final EntryKind[] KINDS = {EntryKind.DATA, EntryKind.INDEX, EntryKind.FILTER,
        TOP};
    private static final byte[] VALUE = new byte[16];

    /** One shard, metadata not charged: usage is the sum of the entries' charges. */
    private static ShardedCache build(CacheKind type, long capacity, EntryKind... kinds) {
        return type.builder(capacity, 100).numShardBits(0).chargeMetadata(false)
                .admission(AdmissionPolicy.NONE).kinds(kinds).build();
    }

    /** What a visit finds, per kind index (0: untagged): charges and entries. */
    private static final class Census implements EntryVisitor {
        final long[] usage = new long[EntryKind.MAX_INDEX + 1];
        final long[] entries = new long[EntryKind.MAX_INDEX + 1];
        final Map<Long, EntryKind> kindOfKey = new HashMap<>();

        @Override
        public void visit(long key0, long key1, MemorySegment value, long charge) {
            throw new AssertionError("a kind-counting cache calls the five-argument visit");
        }

        @Override
        public void visit(long key0, long key1, MemorySegment value, long charge,
                          EntryKind kind) {
            usage[kind.kindIndex()] += charge;
            entries[kind.kindIndex()]++;
            kindOfKey.put(key0, kind);
        }

        @Override
        public boolean readsValues() {
            return false;
        }

        static Census of(Cache cache) {
            Census census = new Census();
            cache.forEachEntry(census, 64);
            return census;
        }
    }

    /** The per-kind figures match a visit's, and with the untagged charges make up usage. */
    private static void assertExact(ShardedCache cache) {
        Census census = Census.of(cache);
        CacheStats stats = cache.stats();
        assertEquals(KINDS.length, stats.kinds().size());
        long sum = census.usage[0];
        for (EntryKind kind : KINDS) {
            KindStats k = stats.kind(kind);
            assertEquals(census.usage[kind.kindIndex()], k.usage(), kind + " usage");
            assertEquals(census.entries[kind.kindIndex()], k.entries(), kind + " entries");
            sum += k.usage();
        }
        assertEquals(cache.usage(), sum, "kinds and untagged entries make up usage");
    }

    private static Placement placementOf(long key) {
        int i = (int) (key % (KINDS.length + 1));
        return i == KINDS.length ? Priority.values()[(int) (key % 3)] : KINDS[i];
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void kindsRoundTripThroughInsertLookupAndVisit(CacheKind type) {
        try (ShardedCache cache = build(type, 1 << 20, KINDS)) {
            for (long key = 0; key < 100; key++) {
                assertTrue(cache.insert(key, 1, VALUE, 0, VALUE.length, 10 + key,
                        placementOf(key)));
            }
            Census census = Census.of(cache);
            assertEquals(100, census.kindOfKey.size());
            for (long key = 0; key < 100; key++) {
                Placement p = placementOf(key);
                EntryKind expected = p instanceof EntryKind k ? k : EntryKind.DEFAULT;
                assertEquals(expected, census.kindOfKey.get(key), "key " + key);
                long handle = cache.lookup(key, 1, expected);
                assertNotEquals(Cache.MISS, handle);
                assertEquals(10 + key, cache.charge(handle), "the tag never shows in a charge");
                cache.release(handle);
            }
            assertExact(cache);
            // A visitor written before kinds (four arguments only) still sees every entry.
            long[] seen = new long[2];
            cache.forEachEntry((k0, k1, v, charge) -> {
                seen[0]++;
                seen[1] += charge;
            }, 16);
            assertEquals(100, seen[0]);
            assertEquals(cache.usage(), seen[1]);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void exactAfterEvictionsErasesReplacementsAndPins(CacheKind type) {
        SplittableRandom random = new SplittableRandom(type.ordinal());
        try (ShardedCache cache = build(type, 64 * 1024, KINDS)) {
            List<Long> pins = new ArrayList<>();
            for (int op = 0; op < 20_000; op++) {
                long key = random.nextLong(600);
                int action = random.nextInt(10);
                long charge = 50 + random.nextLong(400);
                if (action < 6) {
                    cache.insert(key, 2, VALUE, 0, VALUE.length, charge, placementOf(key + op));
                } else if (action == 6) {
                    cache.erase(key, 2);
                } else if (action == 7 && pins.size() < 20) {
                    // Standalone in a HyperClock cache when the key is present: counted too.
                    long h = cache.insertPinned(key, 2, VALUE, 0, VALUE.length, charge,
                            placementOf(op));
                    if (h != Cache.MISS) {
                        pins.add(h);
                    }
                } else if (action == 8 && !pins.isEmpty()) {
                    cache.release(pins.remove(random.nextInt(pins.size())), random.nextBoolean());
                } else {
                    long h = cache.lookup(key, 2, KINDS[(int) (key % KINDS.length)]);
                    if (h != Cache.MISS) {
                        cache.release(h);
                    }
                }
                if (op % 2_000 == 0 && pins.isEmpty()) {
                    assertExact(cache);
                }
            }
            assertTrue(cache.stats().evictions() > 1_000, "evictions happened");
            pins.forEach(cache::release);
            assertExact(cache);
            for (long key = 0; key < 600; key++) {
                cache.erase(key, 2);
            }
            assertEquals(0, cache.usage());
            for (KindStats k : cache.stats().kinds()) {
                assertEquals(0, k.usage(), k.kind() + " usage after erasing all");
                assertEquals(0, k.entries(), k.kind() + " entries after erasing all");
            }
        }
    }

    /** A pinned entry that is erased or replaced stays counted, as in usage, until released. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void pinnedErasedEntryCountsUntilItsLastRelease(CacheKind type) {
        try (ShardedCache cache = build(type, 1 << 20, KINDS)) {
            long h = cache.insertPinned(7, 7, VALUE, 0, VALUE.length, 300, EntryKind.FILTER);
            assertTrue(cache.erase(7, 7));
            assertEquals(300, cache.stats().kind(EntryKind.FILTER).usage());
            assertEquals(1, cache.stats().kind(EntryKind.FILTER).entries());
            assertEquals(300, cache.usage());
            cache.release(h);
            assertEquals(0, cache.stats().kind(EntryKind.FILTER).usage());
            assertEquals(0, cache.stats().kind(EntryKind.FILTER).entries());
            assertEquals(0, cache.usage());
        }
    }

    /** Two threads insert, erase and look up over one key range; then every figure is exact. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void exactAfterRacingThreads(CacheKind type) throws InterruptedException {
        try (ShardedCache cache = type.builder(256 * 1024, 200).numShardBits(2)
                .chargeMetadata(false).kinds(KINDS).build()) {
            Thread[] threads = new Thread[2];
            for (int t = 0; t < threads.length; t++) {
                SplittableRandom random = new SplittableRandom(t);
                threads[t] = new Thread(() -> {
                    for (int op = 0; op < 100_000; op++) {
                        long key = random.nextLong(3_000);
                        int action = random.nextInt(8);
                        if (action < 5) {
                            cache.insert(key, 3, VALUE, 0, VALUE.length, 100 + key % 200,
                                    placementOf(key + op));
                        } else if (action == 5) {
                            cache.erase(key, 3);
                        } else {
                            long h = cache.lookup(key, 3, KINDS[op % KINDS.length]);
                            if (h != Cache.MISS) {
                                cache.release(h);
                            }
                        }
                    }
                });
                threads[t].start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertExact(cache);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void chargeNear2To56KeepsItsKindApart(CacheKind type) {
        long big = CacheOptions.MAX_USAGE; // 2^56: sets bit 56, the top byte's lowest
        try (ShardedCache cache = type.builder(Long.MAX_VALUE, big >> 6).numShardBits(0)
                .chargeMetadata(false).admission(AdmissionPolicy.NONE).kinds(KINDS).build()) {
            long h = cache.insertPinned(1, 1, VALUE, 0, VALUE.length, big - 1, TOP);
            assertNotEquals(Cache.MISS, h);
            assertEquals(big - 1, cache.charge(h));
            assertEquals(big - 1, cache.usage());
            assertEquals(big - 1, cache.stats().kind(TOP).usage());
            assertEquals(TOP, Census.of(cache).kindOfKey.get(1L));
            cache.release(h, true);
            assertEquals(0, cache.usage());
            h = cache.insertPinned(2, 2, VALUE, 0, VALUE.length, big, EntryKind.INDEX);
            assertNotEquals(Cache.MISS, h, "a charge of 2^56 fits one shard");
            assertEquals(big, cache.charge(h));
            assertEquals(big, cache.usage());
            assertEquals(big, cache.stats().kind(EntryKind.INDEX).usage());
            assertEquals(0, cache.stats().kind(TOP).usage());
            cache.release(h, true);
            assertEquals(0, cache.stats().kind(EntryKind.INDEX).usage());
            // Above the limit: refused before any record is written, so never mistagged.
            assertEquals(Cache.MISS, cache.insertPinned(3, 3, VALUE, 0, VALUE.length,
                    Long.MAX_VALUE >>> 1, EntryKind.DATA));
            assertEquals(0, cache.usage());
            assertEquals(0, cache.stats().kind(EntryKind.DATA).entries());
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void lookupsNamingAKindCountItsHitsAndMisses(CacheKind type) {
        try (ShardedCache cache = build(type, 1 << 20, KINDS)) {
            cache.insert(1, 1, VALUE, 0, VALUE.length, 10, EntryKind.DATA);
            for (int i = 0; i < 3; i++) {
                cache.release(cache.lookup(1, 1, EntryKind.DATA));
            }
            assertEquals(Cache.MISS, cache.lookup(2, 1, EntryKind.DATA));
            assertEquals(Cache.MISS, cache.lookup(2, 1, EntryKind.INDEX));
            // The named kind is counted, whatever the entry's own kind.
            cache.release(cache.lookup(1, 1, EntryKind.FILTER));
            cache.release(cache.lookup(1, 1)); // no kind named: totals only
            assertEquals(Cache.MISS, cache.lookup(3, 1, EntryKind.DEFAULT)); // totals only
            CacheStats stats = cache.stats();
            assertEquals(new KindStats(EntryKind.DATA, 3, 1, 10, 1), stats.kind(EntryKind.DATA));
            assertEquals(new KindStats(EntryKind.INDEX, 0, 1, 0, 0), stats.kind(EntryKind.INDEX));
            assertEquals(new KindStats(EntryKind.FILTER, 1, 0, 0, 0),
                    stats.kind(EntryKind.FILTER));
            assertEquals(5, stats.hits());
            assertEquals(3, stats.misses());
        }
        try (ShardedCache cache = type.builder(1 << 20, 100).recordStats(false).kinds(KINDS)
                .build()) {
            cache.insert(1, 1, VALUE, 0, VALUE.length, 10, EntryKind.DATA);
            cache.release(cache.lookup(1, 1, EntryKind.DATA));
            assertEquals(0, cache.stats().kind(EntryKind.DATA).hits(), "not recording lookups");
            assertEquals(10, cache.stats().kind(EntryKind.DATA).usage());
        }
    }

    /**
     * A get-or-load naming a kind counts its lookup under the kind (a hit, or a miss and its
     * load), stores the loaded value under it, and refuses an undeclared kind before it loads.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void getOrLoadNamingAKindCountsAndTagsUnderIt(CacheKind type) throws Exception {
        try (ShardedCache cache = build(type, 1 << 20, KINDS)) {
            AtomicInteger loads = new AtomicInteger();
            ValueLoader loader = (k0, k1) -> {
                loads.incrementAndGet();
                return MemorySegment.ofArray(VALUE);
            };
            byte[] dst = new byte[VALUE.length];
            assertEquals(VALUE.length, cache.getOrLoad(1, 1, dst, 0, loader, EntryKind.DATA));
            assertEquals(VALUE.length, cache.getOrLoad(1, 1, dst, 0, loader, EntryKind.DATA));
            cache.release(cache.lookupOrLoad(2, 1, loader, EntryKind.INDEX));
            assertArrayEquals(VALUE,
                    cache.getOrLoadAsync(2, 1, (k0, k1) -> CompletableFuture.completedFuture(
                            MemorySegment.ofArray(VALUE)), EntryKind.INDEX).get());
            cache.release(cache.lookupOrLoad(3, 1, loader, Priority.LOW)); // totals only
            assertEquals(3, loads.get());
            CacheStats stats = cache.stats();
            assertEquals(new KindStats(EntryKind.DATA, 1, 1, VALUE.length, 1),
                    stats.kind(EntryKind.DATA));
            assertEquals(new KindStats(EntryKind.INDEX, 1, 1, VALUE.length, 1),
                    stats.kind(EntryKind.INDEX));
            EntryKind stranger = EntryKind.of("stranger", 9, Priority.LOW);
            assertThrows(IllegalArgumentException.class,
                    () -> cache.getOrLoad(4, 1, dst, 0, loader, stranger));
            assertThrows(IllegalArgumentException.class,
                    () -> cache.getOrLoadAsync(4, 1, (k0, k1) -> null, stranger));
            assertEquals(3, loads.get(), "refused before loading");
            assertExact(cache);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void undeclaredKindsAreRefusedAndChangeNothing(CacheKind type) {
        EntryKind stranger = EntryKind.of("stranger", 9, Priority.LOW);
        EntryKind twin = EntryKind.of("data", 1, Priority.HIGH); // DATA's index, other priority
        try (ShardedCache cache = build(type, 1 << 20, EntryKind.DATA)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> cache.insert(1, 1, VALUE, 0, VALUE.length, 10, stranger));
            assertTrue(e.getMessage().contains("stranger"), e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> cache.insertPinned(1, 1, MemorySegment.ofArray(VALUE), 10, twin));
            assertThrows(IllegalArgumentException.class, () -> cache.lookup(1, 1, stranger));
            NullPointerException npe = assertThrows(NullPointerException.class,
                    () -> cache.insert(1, 1, VALUE, 0, VALUE.length, 10, null));
            assertTrue(npe.getMessage().contains("placement"), npe.getMessage());
            assertThrows(NullPointerException.class, () -> cache.lookup(1, 1, null));
            assertEquals(0, cache.usage());
            assertEquals(0, cache.entryCount());
            assertEquals(0, cache.stats().inserts());
            assertTrue(cache.put(5, 1, VALUE, 0, VALUE.length, 10, EntryKind.DATA));
            assertThrows(IllegalArgumentException.class,
                    () -> cache.put(5, 1, VALUE, 0, VALUE.length, 10, stranger));
            assertThrows(IllegalArgumentException.class,
                    () -> cache.putIfAbsent(6, 1, VALUE, 0, VALUE.length, 10, stranger));
            assertTrue(cache.erase(5, 1), "a put of an undeclared kind leaves the key as it was");
        }
        try (ShardedCache plain = type.builder(1 << 20, 100).build()) {
            assertThrows(IllegalArgumentException.class,
                    () -> plain.insert(1, 1, VALUE, 0, VALUE.length, 10, EntryKind.DATA));
            assertTrue(plain.insert(1, 1, VALUE, 0, VALUE.length, 10, EntryKind.DEFAULT));
            assertEquals(List.of(), plain.stats().kinds());
            assertNull(plain.stats().kind(EntryKind.DATA));
        }
        assertThrows(IllegalArgumentException.class,
                () -> type.builder(1 << 20, 100).kinds(EntryKind.DATA, twin));
        assertThrows(IllegalArgumentException.class,
                () -> type.builder(1 << 20, 100).kinds(EntryKind.DEFAULT));
        assertThrows(NullPointerException.class,
                () -> type.builder(1 << 20, 100).kinds(EntryKind.DATA, null));
    }

    /** Each cache built from one builder counts its own entries. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void cachesOfOneBuilderCountApart(CacheKind type) {
        CacheOptions<?> builder = type.builder(1 << 20, 100).kinds(KINDS);
        try (ShardedCache a = builder.build(); ShardedCache b = builder.build()) {
            a.insert(1, 1, VALUE, 0, VALUE.length, 10, EntryKind.DATA);
            assertEquals(1, a.stats().kind(EntryKind.DATA).entries());
            assertEquals(0, b.stats().kind(EntryKind.DATA).entries());
        }
    }

    /** After close the figures still answer, as usage does: what the cache held at close. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void figuresStillAnswerAfterClose(CacheKind type) {
        ShardedCache cache = build(type, 1 << 20, KINDS);
        cache.insert(1, 1, VALUE, 0, VALUE.length, 10, EntryKind.DATA);
        long pinned = cache.insertPinned(2, 1, VALUE, 0, VALUE.length, 20, EntryKind.INDEX);
        assertNotEquals(Cache.MISS, pinned);
        CacheStats before = cache.stats();
        long usage = cache.usage();
        cache.close();
        assertEquals(before.kinds(), cache.stats().kinds());
        assertEquals(usage, cache.usage());
        assertEquals(30, usage);
        assertThrows(IllegalStateException.class, () -> cache.lookup(1, 1, EntryKind.DATA));
    }
}
