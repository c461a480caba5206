package dev.clockwork.offheap;

import static dev.clockwork.offheap.MisuseKit.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.clockwork.cache.Cache;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Misuse: one entry referenced past the width of its reference count. HyperClock
 * counts references in 30-bit counters, so 2^30 + 1 references wrapped the count to 1 and the
 * entry was freed while pinned. The documented limit is {@link #HYPER_CLOCK_MAX_REFS}
 * (2^24 - 1) references per HyperClock entry and {@link #LRU_MAX_REFS} (2^24 - 1) per LRU
 * entry: a lookup or ref beyond it throws {@link IllegalStateException} and changes nothing.
 *
 * <p>Each test takes the limit's worth of references through the public API in a tight loop
 * (2^24 calls: about 1.5 s per type), then checks that one
 * more ref and a lookup are refused, that the entry is still pinned and readable (also after an
 * erase, which must not free a pinned entry), and that exactly the limit is held: one release
 * makes room for exactly one more ref. Close frees the entry with all its references. The
 * standalone test covers the separate count of an entry outside the table.
 */
class RefLimitTest {
    /** References one HyperClock entry may hold at once (documented on the cache). */
    static final int HYPER_CLOCK_MAX_REFS = (1 << 24) - 1;
    /** References one LRU entry may hold at once (LruRecordLayout's 24-bit count). */
    static final int LRU_MAX_REFS = (1 << 24) - 1;

    private static final long CAPACITY = 1 << 20;
    private static final long ENTRY_CHARGE = 128;
    private static final int LENGTH = 64;
    private static final long A = 2;
    private static final long VERSION = 7;

    private final List<Cache> caches = new ArrayList<>();
    private long nativeBaseline;

    @BeforeEach
    void recordNativeBalance() {
        nativeBaseline = NativeMemory.outstandingBytes();
    }

    @AfterEach
    void closeAndCheckNativeBalance() {
        caches.forEach(Cache::close);
        assertEquals(nativeBaseline, NativeMemory.outstandingBytes(),
                "close returns every native byte of an entry held by the limit's references");
    }

    private Cache cache(CacheKind kind) {
        Cache cache = MisuseKit.build(kind, CAPACITY, ENTRY_CHARGE, 0);
        caches.add(cache);
        return cache;
    }

    private static int limitOf(CacheKind kind) {
        return kind.hyperClock() ? HYPER_CLOCK_MAX_REFS : LRU_MAX_REFS;
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void referencesBeyondTheLimitAreRefusedAndTheEntryStaysPinned(CacheKind kind) {
        Cache cache = cache(kind);
        long h = MisuseKit.insertPinned(cache, A, VERSION, LENGTH);
        assertNotEquals(Cache.MISS, h);
        int limit = limitOf(kind);
        refUpTo(cache, h, limit);
        assertThrows(IllegalStateException.class, () -> cache.ref(h),
                "reference " + (limit + 1L) + " of " + hex(h));
        assertThrows(IllegalStateException.class, () -> cache.lookup(A, ~A),
                "a lookup taking reference " + (limit + 1L));
        assertReadable(cache, h);
        assertTrue(cache.pinnedUsage() >= LENGTH, "the entry is still pinned");
        assertTrue(cache.erase(A, ~A));
        assertReadable(cache, h); // erased but pinned: not freed
        assertExactlyTheLimitIsHeld(cache, h, limit);
    }

    /**
     * The same for a standalone entry (a pinned insert of a key already present), whose count
     * is kept apart, under a lock.
     */
    @Test
    void aStandaloneEntryRefusesReferencesBeyondTheLimit() {
        HyperClockCache cache = (HyperClockCache) cache(CacheKind.FIXED);
        assertTrue(MisuseKit.insert(cache, A, VERSION - 1, LENGTH));
        long h = MisuseKit.insertPinned(cache, A, VERSION, LENGTH);
        assertNotEquals(Cache.MISS, h);
        assertTrue(cache.standaloneUsage() > 0, "a pinned insert of a present key is standalone");
        refUpTo(cache, h, HYPER_CLOCK_MAX_REFS);
        assertThrows(IllegalStateException.class, () -> cache.ref(h));
        assertReadable(cache, h);
        assertTrue(cache.standaloneUsage() > 0, "the standalone entry is still live");
        assertExactlyTheLimitIsHeld(cache, h, HYPER_CLOCK_MAX_REFS);
    }

    /** Takes references until {@code limit} are held (the handle holds one already). */
    private static void refUpTo(Cache cache, long h, int limit) {
        for (int held = 1; held < limit; held++) {
            try {
                cache.ref(h);
            } catch (RuntimeException e) {
                fail("ref number " + (held + 1) + " of at most " + limit + " refused", e);
            }
        }
    }

    private static void assertReadable(Cache cache, long h) {
        byte[] dst = new byte[LENGTH];
        assertEquals(LENGTH, cache.copyValue(h, dst, 0));
        assertEquals(VERSION, MisuseKit.versionOf(dst, A, LENGTH), "the pinned entry's bytes");
    }

    /** One release leaves room for exactly one ref: the count stood at the limit. */
    private static void assertExactlyTheLimitIsHeld(Cache cache, long h, int limit) {
        assertFalse(cache.release(h), "release 1 of " + limit + " freed the entry");
        cache.ref(h);
        assertThrows(IllegalStateException.class, () -> cache.ref(h),
                "the count was below the limit");
        assertReadable(cache, h);
    }
}
