package dev.clockwork.offheap;

import static dev.clockwork.offheap.MisuseKit.hex;
import static dev.clockwork.offheap.MisuseKit.isRefusal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.clockwork.cache.Cache;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The misuse races, one focused test each (the reference limit is {@link RefLimitTest}, a view
 * read after release {@link ReleasedLargeValueViewTest}), on every cache type they apply to.
 * Each runs thousands of rounds in well under a few seconds.
 *
 * <p>The contract checked: a refused call throws {@link IllegalStateException} and changes
 * nothing; of two releases of a handle holding one
 * reference exactly one succeeds; a stale or made-up handle never reads, references or releases
 * another entry; a read either returns the bytes of the handle's own entry or is refused; the
 * accounting (usage, pinned usage, standalone usage) comes back exactly; and close returns every
 * native byte ({@link #closeAndCheckNativeBalance}: a double free shows as a balance below the
 * start, or as glibc aborting the process).
 *
 * <p>One limit of the contract is not tested as a refusal: a second release of a handle whose
 * entry another caller also holds is indistinguishable from that caller's release (the count is
 * shared), so it is accepted, and that caller's own release is refused later. The tests that race
 * a double release against correct callers therefore count accepted double releases and excuse
 * exactly as many refusals ({@link #aDoubleReleaseAmongCorrectUsersTakesExactlyOneReference}), or
 * refusals of exactly those entries
 * ({@link #aDoubleReleaseRacingEraseAndReinsertNeverCrashesOrCorrupts}:
 * each insert has its own version, so a version names one entry instance).
 */
class MisuseRaceTest {
    private static final long CAPACITY = 1 << 20;
    /** Room for {@value #LIVE_HANDLES} pinned table entries in every type. */
    private static final long FORGERY_CAPACITY = 4 << 20;
    private static final long ENTRY_CHARGE = 128;
    private static final int VALUE_BASE = 64;
    /** Key A of every race; B a filler of the same length, so it reuses A's freed block. */
    private static final long A = 2;
    private static final long B = 4;

    private static final int STANDALONE_ROUNDS = 3_000;
    /** Round i delays actor 1 by i mod this many spin waits: sweeps the actors' offset. */
    private static final int STAGGER_STEPS = 16;
    private static final int COUNTED_ITERATIONS = 30_000;
    private static final int REINSERT_ITERATIONS = 40_000;
    private static final int STALE_READ_ROUNDS = 3_000;
    private static final int STALE_READS_PER_ROUND = 4;
    private static final int LIVE_HANDLES = 4_096;
    private static final int RANDOM_HANDLES = 32_768;
    /** One in this many made-up handles is also tried with ref and release. */
    private static final int MUTATING_SHARE = 16;

    private final List<Cache> caches = new ArrayList<>();
    private long nativeBaseline;
    private final AtomicLong versions = new AtomicLong();

    @BeforeEach
    void recordNativeBalance() {
        nativeBaseline = NativeMemory.outstandingBytes();
    }

    /** Close returns every native byte, also after the misuse: none leaked, none freed twice. */
    @AfterEach
    void closeAndCheckNativeBalance() {
        caches.forEach(Cache::close);
        assertEquals(nativeBaseline, NativeMemory.outstandingBytes(),
                "native balance after close (below: a double free; above: a leak)");
    }

    private Cache cache(CacheKind kind) {
        return cache(kind, CAPACITY);
    }

    private Cache cache(CacheKind kind, long capacity) {
        Cache cache = MisuseKit.build(kind, capacity, ENTRY_CHARGE, 0);
        caches.add(cache);
        return cache;
    }

    private static int lengthOf(long key) {
        return MisuseKit.lengthOf(key, VALUE_BASE);
    }

    /** What a release did: freed the entry, kept it, or was refused. */
    enum Released { FREED, KEPT, REFUSED }

    private static Released release(Cache cache, long handle, boolean eraseIfLastRef) {
        try {
            return cache.release(handle, eraseIfLastRef) ? Released.FREED : Released.KEPT;
        } catch (RuntimeException e) {
            if (isRefusal(e)) {
                return Released.REFUSED;
            }
            throw e;
        }
    }

    /** The version a pinned handle of {@code key} reads; fails on any other bytes. */
    private static long readVersion(Cache cache, long handle, long key) {
        int length = lengthOf(key);
        byte[] dst = new byte[length];
        assertEquals(length, cache.copyValue(handle, dst, 0), "length of key " + key);
        long version = MisuseKit.versionOf(dst, key, length);
        if (version == MisuseKit.NOT_THIS_KEY) {
            fail("handle " + hex(handle) + " of key " + key + " read "
                    + MisuseKit.describe(MemorySegment.ofArray(dst)));
        }
        return version;
    }

    private void insertFresh(Cache cache, long key, long version) {
        assertTrue(MisuseKit.insert(cache, key, version, lengthOf(key)), "insert of key " + key);
    }

    // ---------------------------------------------------------------- scenario 1

    /**
     * Scenario 1: an entry inserted pinned while its key is present is standalone on HyperClock,
     * freed by its last release. Two threads release its one reference at once: exactly one
     * frees it, the other is refused, and the standalone charge goes away exactly once: the
     * hazard is a loser that writes into the freed record (a crash, a double free) or a winner
     * that steps back (a leaked entry whose standalone usage stays).
     */
    @ParameterizedTest
    @EnumSource(value = CacheKind.class, names = {"FIXED", "AUTO"})
    @Timeout(60)
    void twoReleasesOfOneStandaloneHandleFreeItExactlyOnce(CacheKind kind) {
        HyperClockCache cache = (HyperClockCache) cache(kind);
        insertFresh(cache, A, 0);
        long usage = cache.usage();
        Released[] r = new Released[2];
        try (LockstepRace race = new LockstepRace(2)) {
            for (int round = 1; round <= STANDALONE_ROUNDS; round++) {
                long h = MisuseKit.insertPinned(cache, A, round, lengthOf(A));
                assertNotEquals(Cache.MISS, h);
                assertEquals(round, readVersion(cache, h, A));
                assertTrue(cache.standaloneUsage() > 0, "a pinned insert of a present key is"
                        + " standalone");
                int delay = round % STAGGER_STEPS;
                race.run(() -> r[0] = release(cache, h, false), () -> {
                    LockstepRace.stagger(delay);
                    r[1] = release(cache, h, false);
                });
                List<Released> both = new ArrayList<>(List.of(r));
                Collections.sort(both);
                assertEquals(List.of(Released.FREED, Released.REFUSED), both,
                        "round " + round + ": the two releases of standalone " + hex(h));
                assertEquals(0, cache.standaloneUsage(), "round " + round);
                assertEquals(usage, cache.usage(), "round " + round);
                assertEquals(Released.REFUSED, release(cache, h, false), "a third release");
            }
        }
        long h = cache.lookup(A, ~A);
        assertEquals(0, readVersion(cache, h, A), "the table entry is untouched");
        cache.release(h);
        assertEquals(0, cache.pinnedUsage());
    }

    // ---------------------------------------------------------------- scenario 2

    /**
     * Scenario 2, counted exactly: two misusers look A up, release their handle, and release it
     * again; two correct callers look A up, read and release, all the time. Nothing is erased and
     * nothing evicted, so A's entry is never freed and the reference count alone decides: a
     * second release either is refused (nobody else held A: nothing changes) or takes a
     * reference a correct caller holds (the documented limit), whose own release is then refused.
     * So the correct callers' refused releases must equal the accepted second releases exactly,
     * no pin may be left, and every read returns A's bytes (the refusals count every refused
     * release, the misusers' first ones too). A refused release must change nothing: a release
     * that added to the count and then undid it would let the other misuser's second release in
     * that window find a reference, leave the count below zero after the undo, and from then on
     * accept double releases by the thousand, or refuse a correct caller and leak its pin.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    @Timeout(60)
    void aDoubleReleaseAmongCorrectUsersTakesExactlyOneReference(CacheKind kind)
            throws InterruptedException {
        Cache cache = cache(kind);
        insertFresh(cache, A, 0);
        long usage = cache.usage();
        LongAdder accepted = new LongAdder();
        LongAdder refused = new LongAdder();
        LongAdder refusedReads = new LongAdder();
        Runnable misuser = () -> {
            for (int i = 0; i < COUNTED_ITERATIONS; i++) {
                long h = cache.lookup(A, ~A);
                assertNotEquals(Cache.MISS, h, "A is never erased or evicted");
                readOrCount(cache, h, refusedReads);
                countRelease(release(cache, h, false), refused);
                Released second = release(cache, h, false);
                assertNotEquals(Released.FREED, second, "a plain release freed a cached entry");
                if (second == Released.KEPT) {
                    accepted.increment();
                }
            }
        };
        Runnable correct = () -> {
            for (int i = 0; i < COUNTED_ITERATIONS; i++) {
                long h = cache.lookup(A, ~A);
                assertNotEquals(Cache.MISS, h, "A is never erased or evicted");
                readOrCount(cache, h, refusedReads);
                countRelease(release(cache, h, false), refused);
            }
        };
        // Two of each on (typically) two cores: a thread preempted inside another's release
        // widens its window.
        LockstepRace.together(LockstepRace.HANG_SECONDS, misuser, correct, misuser, correct);
        assertEquals(accepted.sum(), refused.sum(), "correct releases refused (" + refused.sum()
                + ") must match the double releases accepted (" + accepted.sum() + "): each"
                + " accepted one takes exactly one reference");
        assertEquals(0, cache.pinnedUsage(), "a pin leaked");
        assertEquals(usage, cache.usage());
        assertTrue(refusedReads.sum() == 0 || accepted.sum() > 0,
                refusedReads.sum() + " reads through held handles refused without any double"
                        + " release accepted");
        long h = cache.lookup(A, ~A);
        assertEquals(0, readVersion(cache, h, A));
        assertEquals(Released.KEPT, release(cache, h, false));
    }

    private static void readOrCount(Cache cache, long handle, LongAdder refusedReads) {
        try {
            assertEquals(0, readVersion(cache, handle, A), "A's only version");
        } catch (RuntimeException e) {
            if (!isRefusal(e)) {
                throw e;
            }
            refusedReads.increment();
        }
    }

    private static void countRelease(Released released, LongAdder refused) {
        assertNotEquals(Released.FREED, released, "a plain release freed a cached entry");
        if (released == Released.REFUSED) {
            refused.increment();
        }
    }

    /**
     * Scenario 2 with frees: as above, but a third caller erases A and inserts a new version all
     * the time, and the fillers it inserts reuse freed blocks. Entries are now freed while
     * others may still hold them (after an accepted double release), so refusals are excused per
     * entry instance: a correct caller's refused call on an entry whose version it read is
     * allowed only if a double release of that very version was accepted (checked after the
     * run, when every acceptance is known). Never allowed: other bytes through any handle, a
     * second release accepted after the first freed the entry (a double free), a pin left over,
     * a hang (a cyclic chain on Auto made a later erase loop forever), a crash.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    @Timeout(60)
    void aDoubleReleaseRacingEraseAndReinsertNeverCrashesOrCorrupts(CacheKind kind)
            throws InterruptedException {
        Cache cache = cache(kind);
        insertFresh(cache, A, versions.incrementAndGet());
        Set<Long> stolen = ConcurrentHashMap.newKeySet();
        Set<Long> refusedHeld = ConcurrentHashMap.newKeySet();
        LongAdder refusedFirstReads = new LongAdder();
        Runnable misuser = () -> {
            for (int i = 0; i < REINSERT_ITERATIONS; i++) {
                long h = cache.lookup(A, ~A);
                if (h == Cache.MISS) {
                    continue;
                }
                long v = readHeld(cache, h, -1, refusedHeld, refusedFirstReads);
                Released first = release(cache, h, i % 4 == 0);
                if (first == Released.REFUSED) {
                    if (v >= 0) {
                        refusedHeld.add(v);
                    }
                    continue;
                }
                Released second = release(cache, h, i % 8 == 0);
                if (second != Released.REFUSED) {
                    assertNotEquals(Released.FREED, first, "DOUBLE FREE: a second release of "
                            + hex(h) + " (version " + v + ") accepted after the first freed it");
                    stolen.add(v);
                }
            }
        };
        Runnable reader = () -> {
            for (int i = 0; i < REINSERT_ITERATIONS; i++) {
                long h = cache.lookup(A, ~A);
                if (h == Cache.MISS) {
                    continue;
                }
                long v = readHeld(cache, h, -1, refusedHeld, refusedFirstReads);
                if (v >= 0) {
                    readHeld(cache, h, v, refusedHeld, refusedFirstReads);
                }
                if (release(cache, h, false) == Released.REFUSED && v >= 0) {
                    refusedHeld.add(v);
                }
            }
        };
        Runnable replacer = () -> {
            for (int i = 0; i < REINSERT_ITERATIONS; i++) {
                cache.erase(A, ~A);
                cache.erase(B, ~B);
                insertFresh(cache, B, versions.incrementAndGet());
                insertFresh(cache, A, versions.incrementAndGet());
            }
        };
        LockstepRace.together(LockstepRace.HANG_SECONDS, misuser, reader, replacer);
        Set<Long> unexcused = new TreeSet<>(refusedHeld);
        unexcused.removeAll(stolen);
        assertTrue(unexcused.isEmpty(), "calls through held handles refused on versions "
                + unexcused + " of which no double release was accepted");
        assertTrue(refusedFirstReads.sum() == 0 || !stolen.isEmpty(), refusedFirstReads.sum()
                + " first reads of freshly looked-up handles refused without any double release"
                + " accepted");
        assertEquals(0, cache.pinnedUsage(), "a pin leaked");
    }

    /**
     * Reads a held handle of A: its version, after checking the bytes are A's (and, with
     * {@code expected >= 0}, that version). A refusal is recorded for the after-run check (by
     * version, or as a first read when the version is not known yet) and returns -1.
     */
    private static long readHeld(Cache cache, long handle, long expected, Set<Long> refusedHeld,
                                 LongAdder refusedFirstReads) {
        try {
            long v = readVersion(cache, handle, A);
            if (expected >= 0) {
                assertEquals(expected, v, "a pinned entry's version changed under its handle");
            }
            return v;
        } catch (RuntimeException e) {
            if (!isRefusal(e)) {
                throw e;
            }
            if (expected >= 0) {
                refusedHeld.add(expected);
            } else {
                refusedFirstReads.increment();
            }
            return -1;
        }
    }

    // ---------------------------------------------------------------- scenario 3

    /**
     * Scenario 3: the reader reads through a handle it has already released while another thread
     * erases that entry and inserts a filler of the same length (which tends to get the freed
     * block). Every read must return the released entry's own bytes (it may still be cached) or
     * be refused; value() may hand out a view (its contents are not read here: a view read
     * after release is scenario 8) but of the entry's length. The hazard: a read that checks
     * the handle and then reads the value's address, which a racing free has meanwhile zeroed
     * (a copy from address 0, SIGSEGV) or whose block another insert now holds (the filler's
     * bytes, returned as A's); reads take the address first and check the stamp after it.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    @Timeout(60)
    void readsThroughAReleasedHandleRacingEraseReturnItsBytesOrAreRefused(CacheKind kind) {
        Cache cache = cache(kind);
        long[] handle = new long[1];
        long[] version = new long[1];
        try (LockstepRace race = new LockstepRace(2)) {
            for (int round = 0; round < STALE_READ_ROUNDS; round++) {
                cache.erase(A, ~A);
                version[0] = versions.incrementAndGet();
                insertFresh(cache, A, version[0]);
                handle[0] = cache.lookup(A, ~A);
                assertEquals(version[0], readVersion(cache, handle[0], A));
                assertEquals(Released.KEPT, release(cache, handle[0], false));
                race.run(() -> readReleased(cache, handle[0], version[0]), () -> {
                    cache.erase(A, ~A);
                    cache.erase(B, ~B);
                    insertFresh(cache, B, versions.incrementAndGet());
                });
            }
        }
        assertEquals(0, cache.pinnedUsage());
    }

    /** Reads a released handle of A in each way until refused; fails on other bytes. */
    private static void readReleased(Cache cache, long handle, long version) {
        int length = lengthOf(A);
        byte[] dst = new byte[length];
        MemorySegment segment = MemorySegment.ofArray(new byte[length]);
        for (int i = 0; i < STALE_READS_PER_ROUND; i++) {
            try {
                switch (i % 4) {
                    case 0 -> {
                        cache.copyValue(handle, dst, 0);
                        checkReleasedRead(MemorySegment.ofArray(dst), version, handle,
                                "copyValue[]");
                    }
                    case 1 -> {
                        cache.copyValue(handle, segment, 0);
                        checkReleasedRead(segment, version, handle, "copyValue(segment)");
                    }
                    case 2 -> assertEquals(length, cache.valueSize(handle), "valueSize");
                    default -> assertEquals(length, cache.value(handle).byteSize(), "value view");
                }
            } catch (RuntimeException e) {
                if (!isRefusal(e)) {
                    throw e;
                }
                return;
            }
        }
    }

    private static void checkReleasedRead(MemorySegment read, long version, long handle,
                                          String how) {
        long v = MisuseKit.versionOf(read, A, lengthOf(A));
        if (v != version) {
            fail(how + " through released handle " + hex(handle) + " of A version " + version
                    + " returned other bytes: " + MisuseKit.describe(read));
        }
    }

    // ---------------------------------------------------------------- scenario 4

    /**
     * Scenario 4: {@value #LIVE_HANDLES} entries are pinned, and each of their handles is used
     * with every one of its 64 bits flipped, round-robin through value, valueSize, charge and both
     * copyValues (262,144 trials), then through ref and release on the first 1/16 of them. A
     * handle is 64 bits of which a fixed part locates the entry and a check drawn per slot
     * (31 bits) confirms it: a flipped check bit is always refused, a flipped location bit lands
     * on another slot whose check matches with probability about 2^-31. So at most a handful of
     * acceptances are allowed ({@link MisuseKit#allowedForgeries}: 9 here); an accepted read
     * counts as one whatever it returned. The hazard: slots whose checks are related (fresh
     * slots written once sharing a generation, say), so that a flipped slot-index bit names the
     * neighbour's entry and reads another key's bytes; stamps are seeded per slot.
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    @Timeout(60)
    void singleBitFlipsOfLiveHandlesAreRefused(CacheKind kind) throws InterruptedException {
        Cache cache = cache(kind, FORGERY_CAPACITY);
        long[] live = pinDistinctKeys(cache, LIVE_HANDLES);
        Forgeries forgeries = new Forgeries(cache);
        onShallowStack(() -> {
            for (long h : live) {
                for (int bit = 0; bit < Long.SIZE; bit++) {
                    forgeries.tryRead(h ^ (1L << bit));
                }
            }
            for (int i = 0; i < live.length / MUTATING_SHARE; i++) {
                for (int bit = 0; bit < Long.SIZE; bit++) {
                    forgeries.tryRefAndRelease(live[i] ^ (1L << bit));
                }
            }
        });
        forgeries.assertBound(kind + " single-bit flips");
        releaseAllAllowingStolen(cache, live, forgeries.stolen);
    }

    /** Random 64-bit numbers as handles, among {@value #LIVE_HANDLES} live entries. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    @Timeout(60)
    void randomHandlesAreRefused(CacheKind kind) throws InterruptedException {
        Cache cache = cache(kind, FORGERY_CAPACITY);
        long[] live = pinDistinctKeys(cache, LIVE_HANDLES);
        Forgeries forgeries = new Forgeries(cache);
        SplittableRandom random = new SplittableRandom(0x5EED_0000L + kind.ordinal());
        onShallowStack(() -> {
            for (int i = 0; i < RANDOM_HANDLES; i++) {
                long h = random.nextLong();
                if (h != Cache.MISS) {
                    forgeries.tryRead(h);
                    if (i % MUTATING_SHARE == 0) {
                        forgeries.tryRefAndRelease(h);
                    }
                }
            }
        });
        forgeries.assertBound(kind + " random handles");
        releaseAllAllowingStolen(cache, live, forgeries.stolen);
    }

    /**
     * Runs the trials on a fresh thread: a refusal's exception records its stack, and under
     * JUnit that stack is ten times deeper (and the trial ten times slower).
     */
    private static void onShallowStack(Runnable trials) throws InterruptedException {
        LockstepRace.together(LockstepRace.HANG_SECONDS, trials);
    }

    private long[] pinDistinctKeys(Cache cache, int count) {
        long[] handles = new long[count];
        for (int i = 0; i < count; i++) {
            long key = 1_000 + 2L * i; // all of one length
            handles[i] = MisuseKit.insertPinned(cache, key, versions.incrementAndGet(),
                    lengthOf(key));
            assertNotEquals(Cache.MISS, handles[i], "pinned insert " + i);
        }
        return handles;
    }

    /**
     * Releases the live handles of a forgery test: each must be accepted, except as many as the
     * forged releases that were accepted (each took one of these references).
     */
    private static void releaseAllAllowingStolen(Cache cache, long[] live, long stolen) {
        int refused = 0;
        for (long h : live) {
            if (release(cache, h, false) == Released.REFUSED) {
                refused++;
            }
        }
        assertTrue(refused <= stolen, refused + " releases of live handles refused, but only "
                + stolen + " forged releases were accepted");
        assertEquals(0, cache.pinnedUsage());
    }

    /** Tries made-up handles and counts the ones the cache accepts. */
    private static final class Forgeries {
        private final Cache cache;
        private final byte[] dst = new byte[1 << 12];
        private final MemorySegment segment = MemorySegment.ofArray(new byte[1 << 12]);
        long trials;
        long accepted;
        long stolen;
        private final List<String> examples = new ArrayList<>();

        Forgeries(Cache cache) {
            this.cache = cache;
        }

        void tryRead(long forged) {
            trials++;
            try {
                switch ((int) (trials % 5)) {
                    case 0 -> cache.value(forged);
                    case 1 -> cache.valueSize(forged);
                    case 2 -> cache.charge(forged);
                    case 3 -> cache.copyValue(forged, dst, 0);
                    default -> cache.copyValue(forged, segment, 0);
                }
                accept(forged, "read");
            } catch (RuntimeException e) {
                refusedOrRethrow(e);
            }
        }

        /**
         * ref, then (whatever ref did) release: an accepted ref is taken back by the release;
         * an accepted release after a refused ref took someone else's reference.
         */
        void tryRefAndRelease(long forged) {
            trials++;
            boolean referenced = false;
            try {
                cache.ref(forged);
                referenced = true;
                accept(forged, "ref");
            } catch (RuntimeException e) {
                refusedOrRethrow(e);
            }
            try {
                cache.release(forged);
                if (!referenced) {
                    stolen++;
                    accept(forged, "release");
                }
            } catch (RuntimeException e) {
                refusedOrRethrow(e);
                if (referenced) {
                    fail("forged handle " + hex(forged) + " was accepted by ref, then its"
                            + " release was refused");
                }
            }
        }

        private void accept(long forged, String how) {
            accepted++;
            if (examples.size() < 5) {
                examples.add(how + " " + hex(forged));
            }
        }

        private static void refusedOrRethrow(RuntimeException e) {
            if (!isRefusal(e)) {
                throw e;
            }
        }

        void assertBound(String what) {
            long allowed = MisuseKit.allowedForgeries(trials);
            assertTrue(accepted <= allowed, what + ": " + accepted + " of " + trials
                    + " made-up handles accepted (at most " + allowed + " allowed), e.g. "
                    + examples);
        }
    }
}
