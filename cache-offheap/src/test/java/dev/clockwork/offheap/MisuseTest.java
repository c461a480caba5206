package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.pattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.clock.ClockHandle;
import dev.clockwork.offheap.lru.LruHandle;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every misuse a caller can make, on every cache type: each gives a clear exception (naming the
 * argument where there is one) and leaves the cache usable, with its other entries intact and its
 * accounting exact; none crashes the JVM or touches another entry. Native allocation failure is
 * {@link NativeAllocationFailureTest}'s, and close racing other threads {@link CloseRaceTest}'s.
 *
 * <p>Keys are two {@code long}s, so there is no null key; the reference arguments (value,
 * priority, destination) are checked for null instead.
 */
class MisuseTest {
    private static final long CAPACITY = 64 << 10;

    /** A one-shard cache of {@code kind}, a fixed table sized for entries of 64 bytes. */
    private static Cache build(CacheKind kind, long capacity) {
        return kind.build(capacity, 64, 0);
    }

    /** Which slot or record a handle of a one-shard cache names, whatever its generation. */
    private static long slotOf(CacheKind kind, long handle) {
        return kind.hyperClock() ? ClockHandle.slotIndex(handle, 0) : LruHandle.index(handle, 0);
    }

    /** Methods beyond {@link Cache} that must also refuse a closed cache. */
    private static List<Executable> ownMethods(CacheKind kind, Cache cache) {
        return switch (kind) {
            case FIXED -> List.of(((HyperClockCache) cache)::tableReport);
            case AUTO -> List.of(((AutoHyperClockCache) cache)::tableReport,
                    ((AutoHyperClockCache) cache)::chainReport);
            case LRU -> List.of(((LruCache) cache)::poolUsage, ((LruCache) cache)::metadataBytes);
        };
    }

    private final List<Cache> caches = new ArrayList<>();

    @AfterEach
    void closeAllAndCheckNativeMemory() {
        caches.forEach(Cache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    private Cache cache(CacheKind kind) {
        Cache cache = build(kind, CAPACITY);
        caches.add(cache);
        return cache;
    }

    private static long pin(Cache cache, long key, int length) {
        long h = cache.insertPinned(key, ~key, pattern(key, length), 0, length, length,
                Priority.LOW);
        assertNotEquals(Cache.MISS, h);
        return h;
    }

    private static void assertHolds(Cache cache, long handle, long key, int length) {
        byte[] read = new byte[length];
        assertEquals(length, cache.copyValue(handle, read, 0));
        assertEquals(MemorySegment.ofArray(pattern(key, length)).mismatch(
                MemorySegment.ofArray(read)), -1, "value of key " + key);
    }

    /** Looks the key up, checks its value and releases it. */
    private static void assertCached(Cache cache, long key, int length) {
        long h = cache.lookup(key, ~key);
        assertNotEquals(Cache.MISS, h, "key " + key + " is gone");
        assertHolds(cache, h, key, length);
        cache.release(h);
    }

    /**
     * Every use of a handle the cache must refuse, each with {@link IllegalStateException}: the
     * one type of every handle misuse on every cache type (Cache's "Misuse"), whether the
     * handle's bits point outside the tables or at a slot of another generation.
     */
    private static void assertRefused(Cache cache, long handle) {
        List<Executable> uses = List.of(
                () -> cache.value(handle),
                () -> cache.valueSize(handle),
                () -> cache.charge(handle),
                () -> cache.copyValue(handle, new byte[1024], 0),
                () -> cache.copyValue(handle, MemorySegment.ofArray(new byte[1024]), 0),
                () -> cache.ref(handle),
                () -> cache.release(handle),
                () -> cache.release(handle, true));
        for (Executable use : uses) {
            RuntimeException e = assertThrows(RuntimeException.class, use,
                    "handle " + Long.toHexString(handle) + " was accepted");
            assertEquals(IllegalStateException.class, e.getClass(),
                    "handle " + Long.toHexString(handle) + ": " + e);
            assertTrue(e.getMessage().contains("handle"), e.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void everyMethodRefusesAClosedCacheAndCloseReturnsEveryByte(CacheKind kind) {
        Cache cache = cache(kind);
        long h = pin(cache, 1, 100);
        MemorySegment view = cache.value(h);
        cache.close();
        cache.close(); // idempotent
        assertEquals(0, NativeMemory.outstandingBytes(), "a pinned entry outlived close");
        assertEquals(0, NativeMemory.reservedBytes());
        byte[] v = pattern(2, 100);
        List<Executable> uses = new ArrayList<>(List.of(
                () -> cache.lookup(1, ~1L),
                () -> cache.insert(2, ~2L, v, 0, v.length, v.length, Priority.LOW),
                () -> cache.insert(2, ~2L, MemorySegment.ofArray(v), v.length, Priority.LOW),
                () -> cache.insertPinned(2, ~2L, v, 0, v.length, v.length, Priority.LOW),
                () -> cache.insertPinned(2, ~2L, MemorySegment.ofArray(v), v.length, Priority.LOW),
                () -> cache.erase(1, ~1L),
                () -> cache.release(h),
                () -> cache.release(h, true),
                () -> cache.ref(h),
                () -> cache.value(h),
                () -> cache.valueSize(h),
                () -> cache.charge(h),
                () -> cache.copyValue(h, new byte[128], 0),
                () -> cache.copyValue(h, MemorySegment.ofArray(new byte[128]), 0),
                () -> cache.setCapacity(2 * CAPACITY),
                () -> cache.setStrictCapacityLimit(true),
                cache::pinnedUsage,
                () -> cache.forEachEntry((k0, k1, value, charge) -> { }, 1),
                () -> view.get(ValueLayout.JAVA_BYTE, 0))); // a value view taken before close
        uses.addAll(ownMethods(kind, cache));
        for (int i = 0; i < uses.size(); i++) {
            var e = assertThrows(IllegalStateException.class, uses.get(i), "use " + i);
            assertTrue(e.getMessage().contains("closed") || e.getMessage().contains("alive"),
                    e.getMessage());
        }
        assertEquals(0, NativeMemory.outstandingBytes(), "an insert after close leaked its value");
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aDoubleReleaseIsRefusedAndTouchesNoOtherReference(CacheKind kind) {
        Cache cache = cache(kind);
        long h1 = pin(cache, 1, 100);
        long h2 = pin(cache, 2, 100);
        long usage = cache.usage();
        long bothPinned = cache.pinnedUsage();
        cache.release(h1);
        long onePinned = cache.pinnedUsage();
        assertEquals(bothPinned, 2 * onePinned);
        var e = assertThrows(IllegalStateException.class, () -> cache.release(h1));
        assertTrue(e.getMessage().contains("handle"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> cache.release(h1, true));
        assertThrows(IllegalStateException.class, () -> cache.ref(h1));
        assertEquals(usage, cache.usage());
        assertEquals(onePinned, cache.pinnedUsage(), "key 2 stays pinned, key 1 is not");
        assertHolds(cache, h2, 2, 100);
        assertCached(cache, 1, 100);
        cache.release(h2);
        assertEquals(0, cache.pinnedUsage());
        assertCached(cache, 2, 100);
    }

    /**
     * The entry of a released handle is freed and its slot (record) reused by a new entry, which
     * is pinned: the old handle must not read, reference or release the new entry.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aStaleHandleIsRefusedAfterItsSlotIsReused(CacheKind kind) {
        Cache cache = cache(kind);
        long old = pin(cache, 7, 100);
        assertTrue(cache.release(old, true), "the last release with erase frees the entry");
        assertRefused(cache, old); // freed, not yet reused
        long fresh = cache.insertPinned(7, ~7L, pattern(8, 200), 0, 200, 200, Priority.LOW);
        assertEquals(slotOf(kind, old), slotOf(kind, fresh), "the same slot is reused");
        assertNotEquals(old, fresh);
        long pinned = cache.pinnedUsage();
        assertTrue(pinned >= 200, "pinned " + pinned);
        assertRefused(cache, old);
        assertHolds(cache, fresh, 8, 200);
        assertEquals(pinned, cache.pinnedUsage(), "a stale release unpinned the new entry");
        cache.release(fresh);
        assertEquals(0, cache.pinnedUsage());
        assertRefused(cache, old);
    }

    /**
     * Two caches of one type put the same key in the same slot, so their handles differ only by
     * the checks each cache's salt draws; one's handle must not work on the other. (Checks
     * coincide for about one pair of caches in 2^31: then another is built.)
     * Handles of another cache type must not work either.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aHandleOfAnotherCacheIsRefused(CacheKind kind) {
        Cache cache = cache(kind);
        long mine = pin(cache, 5, 100);
        Cache other = cache(kind);
        long theirs = pin(other, 5, 100);
        if (theirs == mine) {
            other = cache(kind);
            theirs = pin(other, 5, 100);
        }
        assertEquals(slotOf(kind, mine), slotOf(kind, theirs), "same key, same slot");
        assertRefused(cache, theirs);
        for (CacheKind otherKind : CacheKind.values()) {
            if (otherKind != kind) {
                Cache stranger = cache(otherKind);
                assertRefused(cache, pin(stranger, 5, 100));
            }
        }
        assertHolds(cache, mine, 5, 100);
        cache.release(mine);
        assertEquals(0, cache.pinnedUsage());
        assertHolds(other, theirs, 5, 100);
        other.release(theirs);
    }

    /**
     * Made-up handles: random numbers, and every one-bit change of a live handle: of a table entry
     * and of a second pin of its key (a standalone entry in a HyperClock cache, the key's new
     * entry in an LRU one), so that changed bits point both into and outside the tables.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void madeUpHandlesAreRefused(CacheKind kind) {
        Cache cache = cache(kind);
        long live = pin(cache, 3, 100);
        long second = pin(cache, 3, 100);
        SplittableRandom random = new SplittableRandom(kind.ordinal());
        for (int i = 0; i < 2_000; i++) {
            long madeUp = random.nextLong();
            if (madeUp != live && madeUp != second && madeUp != Cache.MISS) {
                assertRefused(cache, madeUp);
            }
        }
        for (int bit = 0; bit < 64; bit++) {
            for (long flipped : new long[] {live ^ (1L << bit), second ^ (1L << bit)}) {
                if (flipped != live && flipped != second) {
                    assertRefused(cache, flipped);
                }
            }
        }
        assertRefused(cache, Cache.MISS);
        assertHolds(cache, second, 3, 100);
        cache.release(second);
        assertHolds(cache, live, 3, 100);
        cache.release(live);
        assertEquals(0, cache.pinnedUsage());
        assertCached(cache, 3, 100);
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aChargeLargerThanTheCapacityIsRefusedAndNothingLeaks(CacheKind kind) {
        Cache cache = cache(kind);
        byte[] v = pattern(1, 100);
        long outstanding = NativeMemory.outstandingBytes();
        long tooMuch = CAPACITY + 1;
        List<Executable> inserts = List.of(
                () -> cache.insert(1, ~1L, v, 0, v.length, tooMuch, Priority.LOW),
                () -> cache.insert(1, ~1L, MemorySegment.ofArray(v), tooMuch, Priority.LOW),
                () -> cache.insertPinned(1, ~1L, v, 0, v.length, tooMuch, Priority.HIGH),
                () -> cache.insertPinned(1, ~1L, MemorySegment.ofArray(v), tooMuch, Priority.HIGH));
        for (Executable insert : inserts) {
            var e = assertThrows(IllegalArgumentException.class, insert);
            assertTrue(e.getMessage().contains("charge") && e.getMessage().contains("capacity"),
                    e.getMessage());
        }
        assertEquals(outstanding, NativeMemory.outstandingBytes());
        assertEquals(Cache.MISS, cache.lookup(1, ~1L));
        cache.setCapacity(CAPACITY / 2);
        assertThrows(IllegalArgumentException.class,
                () -> cache.insert(1, ~1L, v, 0, v.length, CAPACITY / 2 + 1, Priority.LOW),
                "the limit follows setCapacity");
        // Leaves room for the metadata the LRU charges beside the entry's own charge.
        assertTrue(cache.insert(1, ~1L, v, 0, v.length, CAPACITY / 2 - 1024, Priority.LOW));
        assertCached(cache, 1, 100);
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void zeroAndNegativeSizesAreRefusedOrWorkAsDocumented(CacheKind kind) {
        for (long bad : new long[] {0, -1, Long.MIN_VALUE}) {
            var e = assertThrows(IllegalArgumentException.class, () -> build(kind, bad));
            assertTrue(e.getMessage().contains("capacity"), e.getMessage());
        }
        Cache cache = cache(kind);
        for (long bad : new long[] {0, -1}) {
            var e = assertThrows(IllegalArgumentException.class, () -> cache.setCapacity(bad));
            assertTrue(e.getMessage().contains("capacity"), e.getMessage());
        }
        assertEquals(CAPACITY, cache.capacity());
        long usage = cache.usage(); // metadata, if charged
        byte[] v = pattern(1, 100);
        var e = assertThrows(IllegalArgumentException.class,
                () -> cache.insert(1, ~1L, v, 0, v.length, -1, Priority.LOW));
        assertTrue(e.getMessage().contains("charge"), e.getMessage());
        assertThrows(IndexOutOfBoundsException.class,
                () -> cache.insert(1, ~1L, v, -1, 10, 10, Priority.LOW));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cache.insert(1, ~1L, v, 0, -1, 10, Priority.LOW));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cache.insert(1, ~1L, v, 50, 51, 10, Priority.LOW));
        assertEquals(usage, cache.usage());
        // An empty value with no charge is a value like any other.
        long h = cache.insertPinned(9, ~9L, v, 0, 0, 0, Priority.LOW);
        assertNotEquals(Cache.MISS, h);
        assertEquals(0, cache.valueSize(h));
        assertEquals(0, cache.value(h).byteSize());
        assertEquals(0, cache.copyValue(h, new byte[0], 0));
        var dst = assertThrows(IllegalArgumentException.class,
                () -> cache.copyValue(h, new byte[4], -1));
        assertTrue(dst.getMessage().contains("dst"), dst.getMessage());
        cache.release(h);
        assertCached(cache, 9, 0);
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void nullArgumentsAreNamed(CacheKind kind) {
        Cache cache = cache(kind);
        byte[] v = pattern(1, 10);
        assertNull("value", () -> cache.insert(1, ~1L, (byte[]) null, 0, 10, 10, Priority.LOW));
        assertNull("value", () -> cache.insert(1, ~1L, (MemorySegment) null, 10, Priority.LOW));
        assertNull("value",
                () -> cache.insertPinned(1, ~1L, (byte[]) null, 0, 10, 10, Priority.LOW));
        assertNull("value",
                () -> cache.insertPinned(1, ~1L, (MemorySegment) null, 10, Priority.LOW));
        assertNull("placement", () -> cache.insert(1, ~1L, v, 0, 10, 10, null));
        assertNull("placement", () -> cache.insertPinned(1, ~1L, v, 0, 10, 10, null));
        long h = pin(cache, 2, 10);
        assertNull("dst", () -> cache.copyValue(h, (byte[]) null, 0));
        assertNull("dst", () -> cache.copyValue(h, (MemorySegment) null, 0));
        assertHolds(cache, h, 2, 10);
        cache.release(h);
        assertEquals(Cache.MISS, cache.lookup(1, ~1L));
    }

    private static void assertNull(String name, Executable call) {
        var e = assertThrows(NullPointerException.class, call);
        assertTrue(e.getMessage().contains(name), e.getMessage());
    }
}
