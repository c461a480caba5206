package dev.clockwork.offheap;

import static dev.clockwork.offheap.CallbackKit.eraseAllAndCheckEmpty;
import static dev.clockwork.offheap.CallbackKit.isCallbacksOwn;
import static dev.clockwork.offheap.CallbackKit.liveValueBytes;
import static dev.clockwork.offheap.CallbackKit.withinDeadline;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueReader;
import dev.clockwork.offheap.CallbackKit.ScriptedPolicy;
import dev.clockwork.offheap.memory.ValueSlabs;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract for untrusted callbacks (admission policies, readers), one mechanism per test,
 * each in a set-up where the old behaviour fails for certain: a policy or reader that throws
 * leaves the cache exact and its exception reaches the caller (or, for a reader on bytes that
 * changed under it, is dropped); a callback that calls back into the cache is served or refused
 * with {@link IllegalStateException}, never hangs or corrupts; an erased entry is freed by
 * whoever gives back its last reference; an out-of-range window share is clamped. Each test says
 * which old behaviour it catches. Values are {@link MisuseKit}'s (key and version in every
 * word), so a read of the wrong bytes shows.
 */
class CallbackContractTest {
    private static final int LEN = 256;
    private static final long CAPACITY = 16 << 10;
    /** Seconds a test that could hang (it did before) may take before it fails as a hang. */
    private static final long DEADLINE = 60;

    private long baseline;

    @BeforeEach
    void baseline() {
        baseline = NativeMemory.outstandingBytes();
    }

    @AfterEach
    void everyNativeByteReturned() {
        assertEquals(baseline, NativeMemory.outstandingBytes(), "native bytes after close");
    }

    private static boolean insert(Cache cache, long key, long version) {
        return MisuseKit.insert(cache, key, version, LEN);
    }

    // ---------------------------------------------------------------- erased entries

    /**
     * A lookup adds a reference to its key's home slot before comparing the key; an erase that
     * comes in between sees a reference and only makes the entry invisible; the lookup, finding
     * another key, gives its reference back. That give-back is the entry's last reference and
     * must free it. Old behaviour: a plain give-back, which left the entry invisible, unreferenced
     * and charged (entryCount 1, usage + 256, its value block out); under a policy that keeps its
     * victims (as TinyLFU keeps a frequent one) the sweep never took it either. The two halves of
     * the lookup are run apart (ClockSteps), so the erase lands between them every time.
     */
    @ParameterizedTest
    @EnumSource(value = CacheKind.class, names = {"FIXED", "AUTO"})
    void anEraseThatMeetsALookupsMomentaryReferenceIsFreedByItsGiveBack(CacheKind kind) {
        ScriptedPolicy keepsEveryVictim = new ScriptedPolicy();
        keepsEveryVictim.admit = (candidate, victim) -> false;
        try (ShardedCache cache = MisuseKit.build(kind, CAPACITY, LEN, 0, keepsEveryVictim)) {
            HyperClockCache hcc = (HyperClockCache) cache;
            assertTrue(insert(cache, 1, 1));
            long handle = cache.lookup(1, ~1L); // names the slot for the probe
            cache.release(handle);
            int stamp = ClockProbe.addMomentaryReference(hcc, handle);
            assertTrue(cache.erase(1, ~1L));
            assertEquals(1, cache.entryCount(), "the reference keeps the erased entry in its slot");
            ClockProbe.giveBackMomentaryReference(hcc, handle, stamp);
            assertEquals(0, cache.entryCount(), "the last give-back frees the erased entry");
            assertEquals(CallbackKit.emptyUsage(cache), cache.usage());
            assertEquals(0, liveValueBytes(cache));
            assertEquals(0, keepsEveryVictim.admitCalls.get());
        }
    }

    /**
     * An erased entry left unreferenced (how the old give-back left it) is taken by the sweep
     * without asking the policy: nobody can find it, and a policy that kept it would keep its
     * charge for good. One entry fills the cache, so the next insert's sweep meets only the
     * leftover. Old behaviour: the policy (here: keep every victim) was asked about it, kept it,
     * and the insert was refused; the leftover stayed charged.
     */
    @ParameterizedTest
    @EnumSource(value = CacheKind.class, names = {"FIXED", "AUTO"})
    void theSweepTakesAnUnreferencedErasedEntryWithoutAskingThePolicy(CacheKind kind) {
        ScriptedPolicy keepsEveryVictim = new ScriptedPolicy();
        keepsEveryVictim.admit = (candidate, victim) -> false;
        try (ShardedCache cache = MisuseKit.build(kind, CAPACITY, LEN, 0, keepsEveryVictim)) {
            HyperClockCache hcc = (HyperClockCache) cache;
            long room = cache.capacity() - cache.usage();
            long charge = room * 2 / 3; // one fits, two do not
            byte[] v1 = MisuseKit.value(1, 1, LEN);
            assertTrue(cache.insert(1, ~1L, v1, 0, LEN, charge, Priority.LOW));
            long handle = cache.lookup(1, ~1L);
            cache.release(handle);
            ClockProbe.addMomentaryReference(hcc, handle);
            assertTrue(cache.erase(1, ~1L)); // invisible: the reference holds it
            long word = ClockProbe.meta(hcc, handle);
            assertTrue(ClockProbe.dropReferenceOnly(hcc, handle, word)); // unreferenced, not freed
            assertEquals(1, cache.entryCount());
            long empty = CallbackKit.emptyUsage(cache);
            assertEquals(empty + charge, cache.usage(), "the leftover is still charged");

            byte[] v2 = MisuseKit.value(2, 2, LEN);
            assertTrue(cache.insert(2, ~2L, v2, 0, LEN, charge, Priority.LOW),
                    "the insert's sweep must take the leftover");
            assertEquals(0, keepsEveryVictim.admitCalls.get(),
                    "the policy was asked about an entry nobody can find");
            assertTrue(CallbackKit.holdsOwnBytes(cache, 2, LEN));
            assertEquals(1, cache.entryCount());
            assertEquals(empty + charge, cache.usage());
            assertEquals(ValueSlabs.footprint(LEN), liveValueBytes(cache));
        }
    }

    // ---------------------------------------------------------------- admit throwing

    /**
     * A policy that throws from {@code admit} once in 50 calls, cycling through an unchecked
     * exception, an error and a checked one thrown sneakily, while 2,000 keys are inserted into a
     * cache of about 60 (every insert evicts). Each of its exceptions must reach the inserting
     * caller as it was thrown, and the cache must stay exact: entries counted are the entries
     * findable, usage is their charges plus the table, no value block is out beyond theirs;
     * then 100 fresh keys are all stored, and erasing everything empties the cache. Old
     * behaviour: the exception escaped from the middle of the sweep with the insert's occupancy,
     * its partial charge and the slots the sweep had taken left behind, and its value block
     * leaked; occupancy crept up until the table refused every insert (0 of 100 fresh keys
     * stored).
     */
    @ParameterizedTest
    @CsvSource({"FIXED, false", "FIXED, true", "AUTO, false", "AUTO, true"})
    void anAdmitThatThrowsLeavesTheCacheExactAndLaterInsertsSucceed(CacheKind kind,
                                                                    boolean strict) {
        ScriptedPolicy policy = new ScriptedPolicy();
        AtomicInteger calls = new AtomicInteger();
        AtomicReference<Throwable> lastThrown = new AtomicReference<>();
        policy.admit = (candidate, victim) -> {
            int n = calls.incrementAndGet();
            if (n % 50 == 0) {
                Throwable t = CallbackKit.ownFailure(n / 50, "admit");
                lastThrown.set(t);
                throw CallbackKit.sneaky(t);
            }
            return true;
        };
        int keys = 2_000;
        try (ShardedCache cache = MisuseKit.build(kind, CAPACITY, LEN, 0, policy)) {
            cache.setStrictCapacityLimit(strict);
            int thrown = 0;
            for (long key = 1; key <= keys; key++) {
                try {
                    insert(cache, key, key);
                } catch (Throwable t) {
                    assertSame(lastThrown.get(), t, "key " + key + ": not the policy's exception");
                    thrown++;
                }
            }
            assertTrue(thrown >= 20, "the policy threw " + thrown + " times");
            checkExact(cache, keys, kind + " after " + thrown + " policy exceptions");

            policy.admit = (candidate, victim) -> true;
            int stored = 0;
            for (long key = keys + 1; key <= keys + 100; key++) {
                if (insert(cache, key, key) && CallbackKit.holdsOwnBytes(cache, key, LEN)) {
                    stored++;
                }
            }
            assertEquals(100, stored, "fresh keys stored and found after the policy's exceptions");
            eraseAllAndCheckEmpty(cache, keys + 100, kind.toString());
        }
    }

    /**
     * With no thread calling: entries counted are exactly the keys found (each with its own
     * bytes), usage their charges plus the empty cache's, value blocks exactly theirs.
     */
    private static void checkExact(Cache cache, int keys, String where) {
        int found = 0;
        for (long key = 1; key <= keys; key++) {
            if (CallbackKit.holdsOwnBytes(cache, key, LEN)) {
                found++;
            }
        }
        long perEntry = cache instanceof HyperClockCache ? LEN : LEN + 64; // LRU: its record
        assertEquals(0, cache.pinnedUsage(), where + ": pinned");
        assertEquals(found, cache.entryCount(), where + ": entries counted vs entries found");
        assertEquals(CallbackKit.emptyUsage(cache) + found * perEntry, cache.usage(),
                where + ": usage");
        assertEquals(found * ValueSlabs.footprint(LEN), liveValueBytes(cache),
                where + ": value blocks out");
    }

    // ---------------------------------------------------------------- recordAccess, recordInsert

    /**
     * {@code recordAccess} throwing on every hit: lookup, get and read each throw the policy's
     * exception and leave nothing pinned; {@code recordInsert} throwing: insertPinned throws it,
     * the entry stays stored (and findable) and nothing is pinned, also for a HyperClock
     * standalone entry (a pinned insert of a present key). Old behaviour: the lookup's reference,
     * and the pinned insert's handle, were never released (pinnedUsage 256 per call, a
     * standalone entry never freed).
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void recordAccessOrRecordInsertThrowingLeaksNoPin(CacheKind kind) {
        ScriptedPolicy policy = new ScriptedPolicy();
        try (ShardedCache cache = MisuseKit.build(kind, CAPACITY, LEN, 0, policy)) {
            assertTrue(insert(cache, 1, 1));
            policy.onAccess = hash -> {
                throw CallbackKit.sneaky(CallbackKit.ownFailure(hash, "recordAccess"));
            };
            byte[] dst = new byte[LEN];
            List<Supplier<Object>> calls = List.of(
                    () -> cache.lookup(1, ~1L),
                    () -> cache.get(1, ~1L, dst, 0),
                    () -> cache.get(1, ~1L, MemorySegment.ofArray(dst), 0),
                    () -> cache.read(1, ~1L, MemorySegment::byteSize, -1));
            for (Supplier<Object> call : calls) {
                Throwable t = assertThrows(Throwable.class, call::get);
                assertTrue(isCallbacksOwn(t), "not the policy's: " + t);
                assertEquals(0, cache.pinnedUsage(), "pinned after " + t);
            }
            policy.onAccess = hash -> { };

            policy.onInsert = charge -> {
                throw new CallbackKit.CallbackException("recordInsert");
            };
            assertThrows(CallbackKit.CallbackException.class,
                    () -> MisuseKit.insertPinned(cache, 2, 2, LEN));
            assertThrows(CallbackKit.CallbackException.class,
                    () -> MisuseKit.insertPinned(cache, 2, 3, LEN)); // HyperClock: standalone
            assertEquals(0, cache.pinnedUsage());
            if (cache instanceof HyperClockCache hcc) {
                assertEquals(0, hcc.standaloneUsage());
            }
            policy.onInsert = charge -> { };
            assertTrue(CallbackKit.holdsOwnBytes(cache, 2, LEN), "the entry stays stored");
            eraseAllAndCheckEmpty(cache, 2, kind.toString());
        }
    }

    // ---------------------------------------------------------------- calling back

    /**
     * An LRU cache asks a user's policy with the evicting shard's lock held. Every call the
     * policy makes back into the cache, on that shard, on the other shards (4 here) or on the
     * cache as a whole, must be refused with IllegalStateException, and the cache must be intact
     * afterwards. Old behaviour: the lock is re-entrant, so a call on the same shard went through
     * and changed the list under the eviction walking it (a lookup took the victim off the list,
     * an erase freed it), a call on another shard took a second shard lock (a lock-order cycle
     * with another thread doing the same), and close() from the policy freed the shards under
     * the insert.
     */
    @Test
    void anLruPolicyCallingBackIsRefusedAndLeavesTheCacheIntact() throws Throwable {
        int keys = 200;
        long[] hashes = CallbackKit.hashes(keys);
        ScriptedPolicy policy = new ScriptedPolicy();
        Map<String, String> outcomes = new TreeMap<>();
        AtomicReference<Cache> target = new AtomicReference<>();
        policy.admit = (candidate, victim) -> {
            callBackEverything(target.get(), hashes, victim, "admit", outcomes);
            return true;
        };
        withinDeadline("LRU policy calling back", DEADLINE, () -> {
            try (ShardedCache cache = MisuseKit.build(CacheKind.LRU, CAPACITY, LEN, 2, policy)) {
                target.set(cache);
                for (long key = 1; key <= keys; key++) {
                    insert(cache, key, key);
                }
                assertTrue(policy.admitCalls.get() > 0, "the policy was never asked");
                for (Map.Entry<String, String> e : outcomes.entrySet()) {
                    assertEquals("IllegalStateException", e.getValue(),
                            "LRU " + e.getKey() + " from inside the policy");
                }
                policy.admit = (candidate, victim) -> true;
                // Intact: every key found reads its own bytes, and the accounting is exact.
                checkExact(cache, keys, "LRU after the policy called back");
                eraseAllAndCheckEmpty(cache, keys, "LRU");
            }
        });
        assertTrue(outcomes.keySet().containsAll(List.of("admit: close", "admit: erase(victim)",
                "admit: lookup(other shard)", "admit: lookup(victim)")), outcomes::toString);
    }

    /**
     * A HyperClock cache asks a user's policy outside any lock, inside the insert: calls back
     * work (lookup and release of the victim, erase of it, get, read, usage, entryCount), except
     * an insert into the cache, which would overwrite the running insert's eviction state, and
     * close(), which would wait for the very insert that asked: both throw
     * IllegalStateException. Old behaviour: the nested insert reset the thread's eviction data
     * under the sweep, and close() waited forever for its own thread to leave the close gate (a
     * hang, caught here by the deadline).
     */
    @ParameterizedTest
    @EnumSource(value = CacheKind.class, names = {"FIXED", "AUTO"})
    void aHyperClockPolicyIsServedExceptInsertAndClose(CacheKind kind) throws Throwable {
        int keys = 200;
        long[] hashes = CallbackKit.hashes(keys);
        ScriptedPolicy policy = new ScriptedPolicy();
        Map<String, String> outcomes = new TreeMap<>();
        AtomicReference<Cache> target = new AtomicReference<>();
        policy.admit = (candidate, victim) -> {
            callBackEverything(target.get(), hashes, victim, "admit", outcomes);
            return true;
        };
        withinDeadline(kind + " policy calling back", DEADLINE, () -> {
            try (ShardedCache cache = MisuseKit.build(kind, CAPACITY, LEN, 0, policy)) {
                target.set(cache);
                for (long key = 1; key <= keys; key++) {
                    insert(cache, key, key);
                }
                policy.admit = (candidate, victim) -> true;
                checkExact(cache, keys, kind + " after the policy called back");
                eraseAllAndCheckEmpty(cache, keys, kind.toString());
            }
        });
        assertTrue(outcomes.size() >= 8, outcomes::toString);
        for (Map.Entry<String, String> e : outcomes.entrySet()) {
            String call = e.getKey();
            String expected = call.endsWith("insert") || call.endsWith("close")
                    ? "IllegalStateException" : "served";
            assertEquals(expected, e.getValue(), kind + " " + call + " from inside the policy");
        }
    }

    /**
     * Calls back into {@code cache} from a policy's {@code admit}, every way, and notes each
     * outcome by call: "served", or the simple name of what it threw (its last outcome wins).
     * Reads must return the victim's own bytes.
     */
    private static void callBackEverything(Cache cache, long[] hashes, long victimHash,
                                           String from, Map<String, String> outcomes) {
        long victim = CallbackKit.keyOf(victimHash, hashes);
        long other = victim == 0 ? 1 : victim % (hashes.length - 1) + 1;
        if (cache instanceof LruCache lru) {
            other = keyInAnotherShard(lru, hashes, victimHash);
        }
        long otherKey = other;
        byte[] dst = new byte[LEN + 8];
        note(outcomes, from + ": lookup(victim)", () -> {
            long h = cache.lookup(victim, ~victim);
            if (h != Cache.MISS) {
                readsOwn(cache.value(h), victim);
                cache.release(h);
            }
        });
        note(outcomes, from + ": lookup(other shard)", () -> {
            long h = cache.lookup(otherKey, ~otherKey);
            if (h != Cache.MISS) {
                cache.release(h);
            }
        });
        note(outcomes, from + ": get", () -> {
            int n = cache.get(victim, ~victim, dst, 0);
            if (n != Cache.ABSENT) {
                readsOwn(MemorySegment.ofArray(dst).asSlice(0, n), victim);
            }
        });
        note(outcomes, from + ": read", () -> cache.read(victim, ~victim, value -> {
            readsOwn(value, victim);
            return 0;
        }, -1));
        note(outcomes, from + ": usage", cache::usage);
        note(outcomes, from + ": entryCount", cache::entryCount);
        note(outcomes, from + ": insert", () -> insert(cache, otherKey, 1_000_000 + otherKey));
        note(outcomes, from + ": erase(victim)", () -> cache.erase(victim, ~victim));
        note(outcomes, from + ": close", cache::close);
    }

    private static void readsOwn(MemorySegment value, long key) {
        if (MisuseKit.versionOf(value, key, LEN) == MisuseKit.NOT_THIS_KEY) {
            throw new AssertionError("OTHER BYTES for key " + key + ": "
                    + MisuseKit.describe(value));
        }
    }

    /** A test key whose entry lives in another shard than the victim's. */
    private static long keyInAnotherShard(LruCache lru, long[] hashes, long victimHash) {
        int mask = lru.numShards() - 1;
        int victimShard = (int) (victimHash >>> 32) & mask;
        for (int k = 1; k < hashes.length; k++) {
            if (((int) (hashes[k] >>> 32) & mask) != victimShard) {
                return k;
            }
        }
        throw new AssertionError("no key of another shard");
    }

    private static void note(Map<String, String> outcomes, String call, Runnable body) {
        String outcome;
        try {
            body.run();
            outcome = "served";
        } catch (AssertionError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            outcome = e.getClass().getSimpleName();
        }
        synchronized (outcomes) {
            outcomes.put(call, outcome);
        }
    }

    // ---------------------------------------------------------------- windowShare

    /**
     * A policy's window share outside [0, 1] (NaN, infinities, huge, 1.5, -1) is clamped: the
     * cache builds, evicts, keeps each pool's usage non-negative and its usage within capacity,
     * reads right, and empties exactly. Old behaviour: a share above 1 (1.5, 1e300, +infinity)
     * made the main region's capacity negative, and the infinities and -1e300 overflowed the
     * window's capacity, so the high pool's usage went negative (to about -7.4e18 for the
     * infinities); NaN and -1 happened to do no visible harm.
     */
    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        1e300, 1.5, -1, -1e300})
    void anOutOfRangeWindowShareIsClamped(double share) {
        ScriptedPolicy policy = new ScriptedPolicy();
        policy.windowShare = () -> share;
        try (LruCache cache = (LruCache) MisuseKit.build(CacheKind.LRU, CAPACITY, LEN, 0, policy)) {
            int keys = 300;
            for (long key = 1; key <= keys; key++) {
                insert(cache, key, key);
                LruCache.PoolUsage pools = cache.poolUsage();
                assertTrue(pools.high() >= 0 && pools.low() >= 0 && pools.bottom() >= 0
                        && pools.pinned() >= 0, "share " + share + ": " + pools);
                assertTrue(cache.usage() <= cache.capacity(), "share " + share + ": usage "
                        + cache.usage());
            }
            checkExact(cache, keys, "share " + share);
            cache.setCapacity(CAPACITY / 2);
            assertTrue(cache.usage() <= CAPACITY / 2, "share " + share + ": usage after shrinking");
            eraseAllAndCheckEmpty(cache, keys, "share " + share);
        }
    }

    /**
     * A policy whose {@code windowShare} throws: an LRU build fails with its exception and holds
     * no native memory; setCapacity on a built cache applies the new capacity to every shard
     * (usage shrinks in all 4) and then throws it. Old behaviour: the build threw after the
     * first shards had allocated (leaked), and setCapacity stopped at the first shard, leaving
     * the others at the old capacity.
     */
    @Test
    void aWindowShareThatThrowsFailsTheBuildCleanlyAndSetCapacityReachesEveryShard() {
        ScriptedPolicy throwing = new ScriptedPolicy();
        throwing.windowShare = () -> {
            throw new CallbackKit.CallbackException("windowShare");
        };
        assertThrows(CallbackKit.CallbackException.class,
                () -> MisuseKit.build(CacheKind.LRU, CAPACITY, LEN, 2, throwing));
        assertEquals(baseline, NativeMemory.outstandingBytes(), "a failed build holds nothing");

        ScriptedPolicy policy = new ScriptedPolicy();
        try (ShardedCache cache = MisuseKit.build(CacheKind.LRU, 4 * CAPACITY, LEN, 2, policy)) {
            for (long key = 1; key <= 300; key++) {
                insert(cache, key, key);
            }
            long before = cache.usage();
            policy.windowShare = throwing.windowShare;
            assertThrows(CallbackKit.CallbackException.class, () -> cache.setCapacity(CAPACITY));
            assertEquals(CAPACITY, cache.capacity());
            assertTrue(cache.usage() <= CAPACITY, "usage " + cache.usage() + " (before "
                    + before + ") above the new capacity: a shard kept the old one");
            policy.windowShare = () -> 0;
            checkExact(cache, 300, "after setCapacity");
            eraseAllAndCheckEmpty(cache, 300, "LRU");
        }
    }

    // ---------------------------------------------------------------- readers

    /**
     * A reader that throws an Error on bytes that changed under it (here it changes them itself:
     * on its first run it replaces the entry, then throws AssertionError as a checking reader
     * would on torn bytes). A HyperClock read runs the reader without a reference and judges
     * what it threw against the entry's stamp: the entry changed, so the Error is dropped and the
     * reader runs again, on the new entry. Old behaviour: only a RuntimeException was judged, and
     * the AssertionError reached the caller.
     */
    @ParameterizedTest
    @EnumSource(value = CacheKind.class, names = {"FIXED", "AUTO"})
    void aReadersErrorOnBytesThatChangedUnderItNeverReachesTheCaller(CacheKind kind) {
        try (ShardedCache cache = MisuseKit.build(kind, CAPACITY, LEN, 0, new ScriptedPolicy())) {
            assertTrue(insert(cache, 1, 1));
            AtomicInteger runs = new AtomicInteger();
            ValueReader replacingThenThrowing = value -> {
                if (runs.incrementAndGet() == 1) {
                    cache.erase(1, ~1L);
                    insert(cache, 1, 2);
                    throw new AssertionError("torn");
                }
                return MisuseKit.versionOf(value, 1, LEN);
            };
            assertEquals(2, cache.read(1, ~1L, replacingThenThrowing, -1));
            assertEquals(2, runs.get());
            assertEquals(0, cache.pinnedUsage());
            eraseAllAndCheckEmpty(cache, 1, kind.toString());
        }
    }

    /**
     * {@link ReadTest}'s race (readers in place against writers replacing and erasing the same
     * keys) on a fixed cache, with readers that throw AssertionError instead of a
     * RuntimeException on bytes that are not one whole value of their key: none may reach the
     * caller. Old behaviour: the optimistic read let any Error through, torn bytes or not.
     */
    @Test
    void readersThrowingErrorsOnTornBytesNeverReachTheCaller() throws Exception {
        ReadTest.raceReaders(CacheKind.FIXED, key -> value -> {
            try {
                return ReadTest.versionOf(value, key);
            } catch (IllegalStateException torn) {
                throw new AssertionError(torn.getMessage());
            }
        });
    }

    /** A reader's own exception on a whole value still reaches the caller, Error or checked. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aReadersOwnFailureOnAWholeValueReachesTheCaller(CacheKind kind) {
        try (ShardedCache cache = MisuseKit.build(kind, CAPACITY, LEN, 0, new ScriptedPolicy())) {
            assertTrue(insert(cache, 1, 1));
            for (int n = 0; n < 3; n++) {
                Throwable own = CallbackKit.ownFailure(n, "reader");
                Throwable t = assertThrows(Throwable.class, () -> cache.read(1, ~1L, value -> {
                    throw CallbackKit.sneaky(own);
                }, -1));
                assertSame(own, t);
            }
            assertEquals(0, cache.pinnedUsage());
            assertNotEquals(-1, cache.read(1, ~1L, MemorySegment::byteSize, -1));
            assertFalse(cache.read(2, ~2L, MemorySegment::byteSize, -1) != -1);
            eraseAllAndCheckEmpty(cache, 1, kind.toString());
        }
    }
}
