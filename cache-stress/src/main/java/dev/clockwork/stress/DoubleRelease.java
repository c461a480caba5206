package dev.clockwork.stress;

import static dev.clockwork.stress.AutoFixture.A0;
import static dev.clockwork.stress.AutoFixture.A1;
import static dev.clockwork.stress.AutoFixture.B0;
import static dev.clockwork.stress.AutoFixture.B1;
import static dev.clockwork.stress.AutoFixture.C0;
import static dev.clockwork.stress.AutoFixture.D0;
import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.LruCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * Misuse: double releases, raced against a correct release, an erase, an eviction (which in an
 * Auto table also grows it and unlinks chains) and a correct holder of the slot's next entry,
 * in every cache type the case applies to. The contract: a release of a handle whose references
 * are all gone is refused with {@link IllegalStateException} and changes nothing, whatever runs
 * beside it; of two releases of one reference exactly one succeeds; no entry is freed twice; no
 * correct caller loses its pin; no chain is corrupted; the accounting comes back exactly.
 *
 * <p>Each case is an abstract class holding what its actors do; its subclasses, one per cache
 * type ({@code <Case>Fixed}, {@code <Case>Auto}, {@code <Case>Lru}), build the state and judge
 * it: the keys, the arbiter and so the outcomes are the type's own. jcstress 0.16 reads
 * {@code @Actor} methods only from the test class itself, so each subclass names the base's
 * actors again, each a call of the base's. The LRU cache decides every
 * release under its shard's lock, so its cases have no window; the tests keep it that way.
 *
 * <p>Every state holds handles only of entries nobody else references, so every double release
 * here is detectable (the documented limit, a double release of an entry others also hold, is
 * MisuseRaceTest's business). Result fields: r1, r2 the actors; r3 what the arbiter finds (see
 * each state); r4 accounting with no handle held (a double free shows as usage too low, a lost
 * release as a pin left), the drain check (the fillers' inserts must evict anything left
 * unreferenced; an Auto drain erases every key and must find the cache empty, and a chain cycle
 * would hang it, which jcstress reports as a timeout) and close.
 */
public class DoubleRelease {

    private static final String REFUSED = "EX_IllegalStateException";

    private DoubleRelease() {
    }

    /** What a lookup of an Auto key finds now: its name, GONE, or the failure's name. */
    static String seen(AutoHyperClockCache cache, int key) {
        try {
            String label = AutoFixture.peek(cache, key);
            return label == null ? "GONE" : label;
        } catch (RuntimeException | Error e) {
            return Outcomes.failure(e);
        }
    }

    /** A cached entry's only handle, released by both actors. */
    public abstract static class Cached {
        long handle;

        /** The state's cache, built by the subclass. */
        abstract Cache cache();

        public void releaser1(LLLL_Result r) {
            r.r1 = Outcomes.release(cache(), handle, false);
        }

        public void releaser2(LLLL_Result r) {
            r.r2 = Outcomes.release(cache(), handle, false);
        }
    }

    @JCStressTest
    @Description("A is cached and the state holds its only handle (from a lookup). Both actors "
            + "release it. The first drops the reference (KEPT: A stays cached); the second "
            + "finds A unreferenced and must be refused without touching the count: a release "
            + "is a CAS from the word it checked, so a refusal leaves no add to undo that a "
            + "lookup in between could be counted away by.")
    @Outcome(id = "KEPT, " + REFUSED + ", PRESENT_A_V0;E1, OK", expect = ACCEPTABLE,
            desc = "Actor 1 released; actor 2's second release was refused.")
    @Outcome(id = REFUSED + ", KEPT, PRESENT_A_V0;E1, OK", expect = ACCEPTABLE,
            desc = "Actor 2 released; actor 1's second release was refused.")
    @Outcome(id = "KEPT, KEPT, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: both releases succeeded on one reference.")
    @Outcome(id = "EX_.*, EX_.*, .*, .*", expect = FORBIDDEN,
            desc = "Both refused: the held reference was never dropped.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a plain release freeing a cached entry (FREED), another "
                    + "exception, A gone or reading other bytes, accounting off (ACCT_*), "
                    + "STUCK_*.")
    @State
    public static class CachedFixed extends Cached {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        public CachedFixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser1(LLLL_Result r) {
            super.releaser1(r);
        }

        @Actor
        @Override
        public void releaser2(LLLL_Result r) {
            super.releaser2(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = FixedFixture.presenceAndCount(cache, A);
            r.r4 = FixedFixture.checkDrainClose(cache, A);
        }
    }

    @JCStressTest
    @Description("A0 is cached and the state holds its only handle. Both actors release it: "
            + "exactly one succeeds (KEPT), the other is refused without touching the count.")
    @Outcome(id = "KEPT, " + REFUSED + ", A0, OK", expect = ACCEPTABLE,
            desc = "Actor 1 released; actor 2's second release was refused.")
    @Outcome(id = REFUSED + ", KEPT, A0, OK", expect = ACCEPTABLE,
            desc = "Actor 2 released; actor 1's second release was refused.")
    @Outcome(id = "KEPT, KEPT, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: both releases succeeded on one reference.")
    @Outcome(id = "EX_.*, EX_.*, .*, .*", expect = FORBIDDEN,
            desc = "Both refused: the held reference was never dropped.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: FREED (a plain release of a cached entry), A0 gone or "
                    + "reading other bytes, accounting off (ACCT_*), STUCK_*, an exception.")
    @State
    public static class CachedAuto extends Cached {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        public CachedAuto() {
            AutoFixture.fill(cache, Priority.LOW, A0);
            handle = AutoFixture.lookup(cache, A0);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser1(LLLL_Result r) {
            super.releaser1(r);
        }

        @Actor
        @Override
        public void releaser2(LLLL_Result r) {
            super.releaser2(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = seen(cache, A0);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> AutoFixture.accounting(cache, 1), A0);
        }
    }

    @JCStressTest
    @Description("A is cached and the state holds its only handle (from a lookup). Both actors "
            + "call release(h). The first, under the lock, drops the last reference and puts A "
            + "back on the list (KEPT: A is still in the cache); the second finds A unreferenced "
            + "and is refused with IllegalStateException. A stays cached, in the high pool (it "
            + "was hit), charged once.")
    @Outcome(id = "KEPT, EX_IllegalStateException, PRESENT;H1L0B0, OK", expect = ACCEPTABLE,
            desc = "Actor 1's release came first; actor 2's second release was refused.")
    @Outcome(id = "EX_IllegalStateException, KEPT, PRESENT;H1L0B0, OK", expect = ACCEPTABLE,
            desc = "Actor 2's release came first; actor 1's was refused.")
    @Outcome(id = "KEPT, KEPT, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: both releases succeeded on a single reference (the "
                    + "reference count went below zero, or the entry was listed twice).")
    @Outcome(id = "EX_.*, EX_.*, .*, .*", expect = FORBIDDEN,
            desc = "Both releases refused: the held reference was never dropped.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a release that freed A (FREED: A was not erased and the cache "
                    + "is not over capacity), another exception, A gone or in the wrong pool, "
                    + "accounting off (ACCT_*), STUCK_*.")
    @State
    public static class CachedLru extends Cached {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

        public CachedLru() {
            LruFixture.fill(cache, Priority.LOW, A);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser1(LLLL_Result r) {
            super.releaser1(r);
        }

        @Actor
        @Override
        public void releaser2(LLLL_Result r) {
            super.releaser2(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                String pools = LruFixture.pools(cache);
                r.r3 = LruFixture.presence(cache, A) + ";" + pools;
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> LruFixture.accounting(cache, 1));
        }
    }

    /**
     * A standalone entry's only handle (a pinned insert of a key already in the table), released
     * by both actors.
     */
    public abstract static class Standalone extends Cached {
        boolean standalone;

    }

    @JCStressTest
    @Description("A_V0 is in the table; the state inserted A_V1 pinned, which is standalone (the "
            + "key was present), and holds its only handle. Both actors release it. Exactly one "
            + "release frees the standalone entry (FREED); the other is refused, and must not "
            + "touch the freed record: references change under one lock, so the second finds "
            + "the stamp retired, never a leaked entry (both KEPT), a write into freed memory or "
            + "a crash.")
    @Outcome(id = "FREED, " + REFUSED + ", S0;PRESENT_A_V0;E1, OK", expect = ACCEPTABLE,
            desc = "Actor 1's release freed the standalone entry; actor 2's was refused.")
    @Outcome(id = REFUSED + ", FREED, S0;PRESENT_A_V0;E1, OK", expect = ACCEPTABLE,
            desc = "Actor 2's release freed it; actor 1's was refused.")
    @Outcome(id = "FREED, FREED, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE FREE: both releases freed the standalone entry.")
    @Outcome(id = "(KEPT, .*|.*, KEPT), .*, .*", expect = FORBIDDEN,
            desc = "LEAK: a release of the only reference did not free the standalone entry "
                    + "(the other release's change to the count made its free step back).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: both refused, standalone usage left (S<n>), the insert not "
                    + "standalone (NOT_STANDALONE), the table entry changed, accounting off, "
                    + "STUCK_*.")
    @State
    public static class StandaloneFixed extends Standalone {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        public StandaloneFixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            handle = VersionedKeys.insertPinned(cache, A, 1, Priority.LOW);
            standalone = cache.standaloneUsage() == VersionedKeys.CHARGE;
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser1(LLLL_Result r) {
            super.releaser1(r);
        }

        @Actor
        @Override
        public void releaser2(LLLL_Result r) {
            super.releaser2(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = (standalone ? "" : "NOT_STANDALONE;") + "S"
                    + cache.standaloneUsage() / VersionedKeys.CHARGE + ";"
                    + FixedFixture.presenceAndCount(cache, A);
            r.r4 = FixedFixture.checkDrainClose(cache, A);
        }
    }

    @JCStressTest
    @Description("A0 is in the table; the state inserted A0 again pinned, which is standalone "
            + "(the key was present), and holds its only handle. Both actors release it: "
            + "exactly one frees the standalone entry, the other is refused and must not touch "
            + "the freed record. Standalone references change under one lock, and the last "
            + "release retires the record's stamp in the same step, so the loser finds nothing "
            + "to release: no leak (both KEPT), no write into freed memory.")
    @Outcome(id = "FREED, " + REFUSED + ", S0;A0, OK", expect = ACCEPTABLE,
            desc = "Actor 1's release freed the standalone entry; actor 2's was refused.")
    @Outcome(id = REFUSED + ", FREED, S0;A0, OK", expect = ACCEPTABLE,
            desc = "Actor 2's release freed it; actor 1's was refused.")
    @Outcome(id = "FREED, FREED, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE FREE: both releases freed the standalone entry.")
    @Outcome(id = "(KEPT, .*|.*, KEPT), .*, .*", expect = FORBIDDEN,
            desc = "LEAK: a release of the only reference did not free the standalone entry.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: both refused, standalone usage left (S<n>), the insert not "
                    + "standalone, the table entry gone, accounting off, STUCK_*.")
    @State
    public static class StandaloneAuto extends Standalone {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        public StandaloneAuto() {
            AutoFixture.fill(cache, Priority.LOW, A0);
            handle = AutoFixture.insertPinned(cache, A0, Priority.LOW);
            standalone = cache.standaloneUsage() == AutoFixture.CHARGE;
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser1(LLLL_Result r) {
            super.releaser1(r);
        }

        @Actor
        @Override
        public void releaser2(LLLL_Result r) {
            super.releaser2(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = (standalone ? "" : "NOT_STANDALONE;") + "S"
                    + cache.standaloneUsage() / AutoFixture.CHARGE + ";" + seen(cache, A0);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> AutoFixture.accounting(cache, 1), A0);
        }
    }

    /** A cached entry's only handle, released twice by one actor while the other erases it. */
    public abstract static class VsErase {
        long handle;

        /** The state's cache, built by the subclass. */
        abstract Cache cache();

        /** Erases the held key: ERASED, NOT_FOUND or the failure's name. */
        abstract String erase();

        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.releaseTwice(cache(), handle);
        }

        public void eraser(LLLL_Result r) {
            r.r2 = erase();
        }
    }

    @JCStressTest
    @Description("A is cached and the state holds its only handle. Actor 1 releases it, then "
            + "releases it again (the misuse); actor 2 erases A. The second release must be "
            + "refused in every interleaving: before the erase A is unreferenced; after it A "
            + "is freed (by the erase, or by actor 1's first release if the erase made A "
            + "invisible while it was held) and the handle is stale. A must be freed exactly "
            + "once.")
    @Outcome(id = "KEPT;" + REFUSED + ", ERASED, GONE;E0, OK", expect = ACCEPTABLE,
            desc = "The first release left A cached and unreferenced, the erase freed it; or "
                    + "the erase made A invisible and freed it once the release dropped the "
                    + "last reference to its own. The second release was refused.")
    @Outcome(id = "FREED;" + REFUSED + ", ERASED, GONE;E0, OK", expect = ACCEPTABLE,
            desc = "The erase made the referenced A invisible; the first release was its last "
                    + "reference and freed it; the second release was refused.")
    @Outcome(id = "KEPT;" + REFUSED + ", ERASED, GONE;E1, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "RocksDB's Unref wart: the erase saw two references (its own and actor 1's), "
                    + "made A invisible; the release dropped actor 1's (not the last), the "
                    + "erase's own unref dropped the last without freeing. A stays charged "
                    + "until a sweep: the drain check proves one frees it.")
    @Outcome(id = ".*;(KEPT|FREED), .*, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: the second release of one reference succeeded "
                    + "(it took a reference nobody held, or freed A again).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the first release refused, the erase missing A, A still "
                    + "findable, accounting off (a pin left, or usage too low after a double "
                    + "free), STUCK_*, an exception.")
    @State
    public static class VsEraseFixed extends VsErase {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        public VsEraseFixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser(LLLL_Result r) {
            super.releaser(r);
        }

        @Actor
        @Override
        public void eraser(LLLL_Result r) {
            super.eraser(r);
        }

        @Override
        String erase() {
            return VersionedKeys.eraseOutcome(cache, A);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = FixedFixture.presenceAndCount(cache, A);
            r.r4 = FixedFixture.checkDrainClose(cache, A);
        }
    }

    @JCStressTest
    @Description("A0 is cached and the state holds its only handle. Actor 1 releases it, then "
            + "releases it again (the misuse); actor 2 erases A0, unlinking it from its chain. "
            + "The second release must be refused in every interleaving, and A0 freed exactly "
            + "once. The cache has room for 3 entries, so the drain's three fillers evict an "
            + "entry the erase left unreferenced (RocksDB's Unref wart).")
    @Outcome(id = "KEPT;" + REFUSED + ", ERASED, GONE;E0, OK", expect = ACCEPTABLE,
            desc = "The first release left A0 unreferenced and the erase freed it (or the "
                    + "erase made it invisible and freed it once the release dropped the last "
                    + "reference but its own); the second release was refused.")
    @Outcome(id = "FREED;" + REFUSED + ", ERASED, GONE;E0, OK", expect = ACCEPTABLE,
            desc = "The erase made the referenced A0 invisible; the first release was its last "
                    + "reference and freed it; the second was refused.")
    @Outcome(id = "KEPT;" + REFUSED + ", ERASED, GONE;E1, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "RocksDB's Unref wart: the erase saw two references, made A0 invisible, and "
                    + "its own unref dropped the last without freeing; the drain's sweep frees "
                    + "it.")
    @Outcome(id = ".*;(KEPT|FREED), .*, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: the second release of one reference succeeded "
                    + "(it took a reference nobody held, or freed A0 again).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the erase missing A0, A0 findable, accounting off, "
                    + "STUCK_*, an exception.")
    @State
    public static class VsEraseAuto extends VsErase {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_3);

        public VsEraseAuto() {
            AutoFixture.fill(cache, Priority.LOW, A0);
            handle = AutoFixture.lookup(cache, A0);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser(LLLL_Result r) {
            super.releaser(r);
        }

        @Actor
        @Override
        public void eraser(LLLL_Result r) {
            super.eraser(r);
        }

        @Override
        String erase() {
            return AutoFixture.eraseOutcome(cache, A0);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = seen(cache, A0) + ";E" + cache.entryCount();
            String evicted;
            try {
                // The fillers make the leftover of the wart (if any) the first thing evicted.
                AutoFixture.fill(cache, Priority.LOW, B0, C0, D0);
                evicted = "OK";
            } catch (RuntimeException | Error e) {
                evicted = Outcomes.failure(e);
            }
            r.r4 = Outcomes.problems(evicted, AutoFixture.drainAndClose(cache, A0, B0, C0, D0));
        }
    }

    @JCStressTest
    @Description("A is cached and the state holds its only handle. Actor 1 releases it, then "
            + "releases it again; actor 2 erases A. The second release must be refused: before "
            + "the erase A is unreferenced; after it A is freed and the handle stale.")
    @Outcome(id = "KEPT;" + REFUSED + ", ERASED, GONE, OK", expect = ACCEPTABLE,
            desc = "The release put A back on the list, then the erase freed it.")
    @Outcome(id = "FREED;" + REFUSED + ", ERASED, GONE, OK", expect = ACCEPTABLE,
            desc = "The erase took the referenced A out of the index; the release was its last "
                    + "reference and freed it.")
    @Outcome(id = ".*;(KEPT|FREED), .*, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: the second release succeeded.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the erase missing A, A findable, accounting off, STUCK_*, "
                    + "an exception.")
    @State
    public static class VsEraseLru extends VsErase {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

        public VsEraseLru() {
            LruFixture.fill(cache, Priority.LOW, A);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser(LLLL_Result r) {
            super.releaser(r);
        }

        @Actor
        @Override
        public void eraser(LLLL_Result r) {
            super.eraser(r);
        }

        @Override
        String erase() {
            return VersionedKeys.eraseOutcome(cache, A);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                r.r3 = LruFixture.presence(cache, A);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> LruFixture.accounting(cache, 0));
        }
    }

    /**
     * A cached entry's only handle, released twice by one actor while the other inserts a key
     * whose eviction run must free an entry.
     */
    public abstract static class VsEviction {
        long handle;

        /** The state's cache, built by the subclass. */
        abstract Cache cache();

        /** Inserts the evicting key: INSERTED, REFUSED or the failure's name. */
        abstract String insert();

        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.releaseTwice(cache(), handle);
        }

        public void inserter(LLLL_Result r) {
            r.r2 = insert();
        }
    }

    @JCStressTest
    @Description("A and P are cached (LOW) in a cache with room for two entries; the state holds "
            + "A's only handle. Actor 1 releases it, then releases it again (the misuse); actor "
            + "2 inserts K1, whose eviction run must free one entry: P, or A once it is "
            + "unreferenced (A was hit, so P's countdown runs out first). The second release "
            + "must be refused whether A is still cached, taken by the sweep, freed, or its "
            + "slot reused by K1; a sweep must never free A while it is held.")
    @Outcome(id = "KEPT;" + REFUSED + ", INSERTED, A_V0;GONE;K1_V0;E2, OK", expect = ACCEPTABLE,
            desc = "The sweep skipped A (held, or hit and so with a higher countdown) and "
                    + "evicted P; the second release was refused.")
    @Outcome(id = "KEPT;" + REFUSED + ", INSERTED, GONE;P_V0;K1_V0;E2, OK", expect = ACCEPTABLE,
            desc = "A was released before the sweep reached it and evicted; the second "
                    + "release of its handle was refused.")
    @Outcome(id = ".*;(KEPT|FREED), .*, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: the second release succeeded (on A, or on K1 in "
                    + "A's reused slot).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a plain release freeing A (FREED;...), K1 missing or "
                    + "refused, a key reading other bytes, both A and P kept or both evicted, "
                    + "accounting off, STUCK_*, an exception.")
    @State
    public static class VsEvictionFixed extends VsEviction {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_2);

        public VsEvictionFixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            VersionedKeys.insert(cache, P, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser(LLLL_Result r) {
            super.releaser(r);
        }

        @Actor
        @Override
        public void inserter(LLLL_Result r) {
            super.inserter(r);
        }

        @Override
        String insert() {
            try {
                return VersionedKeys.insert(cache, K1, 0, Priority.LOW) ? "INSERTED" : "REFUSED";
            } catch (RuntimeException | Error e) {
                return Outcomes.failure(e);
            }
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                r.r3 = seen(A) + ";" + seen(P) + ";" + seen(K1) + ";E"
                        + cache.entryCount();
                VersionedKeys.erase(cache, P);
                VersionedKeys.erase(cache, K1);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = FixedFixture.checkDrainClose(cache, A);
        }

        private String seen(int key) {
            String label = VersionedKeys.peek(cache, key);
            return label == null ? "GONE" : label;
        }
    }

    @JCStressTest
    @Description("A cache with room for 3 entries holds A0, B0, C0 (BOTTOM, all on home 0's "
            + "chain); the state holds A0's only handle. Actor 1 releases it, then releases it "
            + "again (the misuse); actor 2 inserts D0, which grows the table and whose eviction "
            + "run frees what it needs (B0 and C0, which a sweep finds with countdown 1; A0 was "
            + "hit, so it outlives them, and may only go once released). The second release "
            + "must be refused whether A0 is cached, taken by the sweep, freed or its slot "
            + "reused; no sweep may free A0 while it is held.")
    @Outcome(id = "KEPT;" + REFUSED + ", INSERTED, A0_KEPT;D0, OK", expect = ACCEPTABLE,
            desc = "The sweep skipped A0 (held, or hit) and evicted the others it needed; D0 "
                    + "went in; the second release was refused.")
    @Outcome(id = "KEPT;" + REFUSED + ", INSERTED, A0_EVICTED;D0, OK", expect = ACCEPTABLE,
            desc = "A0 was released before the sweep reached it and evicted too; the second "
                    + "release of its handle was refused.")
    @Outcome(id = ".*;(KEPT|FREED), .*, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: the second release succeeded (on A0 or on the "
                    + "entry now in its slot).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a plain release freeing A0 (or refused: A0 evicted while "
                    + "held), D0 missing or refused, other bytes, usage over capacity (OVER_*), "
                    + "accounting off, STUCK_*, an exception.")
    @State
    public static class VsEvictionAuto extends VsEviction {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_3);

        static final int[] KEYS = {A0, B0, C0, D0};

        public VsEvictionAuto() {
            AutoFixture.fill(cache, Priority.BOTTOM, A0, B0, C0);
            handle = AutoFixture.lookup(cache, A0);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser(LLLL_Result r) {
            super.releaser(r);
        }

        @Actor
        @Override
        public void inserter(LLLL_Result r) {
            super.inserter(r);
        }

        @Override
        String insert() {
            return AutoFixture.insertOutcome(cache, D0, Priority.BOTTOM);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            String a0 = seen(cache, A0);
            String d0 = seen(cache, D0);
            r.r3 = (a0.equals("A0") ? "A0_KEPT" : a0.equals("GONE") ? "A0_EVICTED" : "A0_" + a0)
                    + ";" + (d0.equals("D0") ? "D0" : "D0_" + d0);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> {
                long usage = cache.usage();
                return Outcomes.problems(AutoFixture.accounting(cache, -1),
                        usage <= AutoFixture.ROOM_3 ? "OK" : "OVER_U" + usage);
            }, KEYS);
        }
    }

    @JCStressTest
    @Description("A and P are cached (LOW) with room for two entries; the state holds A's only "
            + "handle. Actor 1 releases it (A, hit, goes to the high pool), then releases it "
            + "again; actor 2 inserts K1, which evicts the oldest unreferenced low entry: P "
            + "(A is held, or in the high pool). The second release must be refused.")
    @Outcome(id = "KEPT;" + REFUSED + ", INSERTED, PRESENT;GONE;PRESENT, OK", expect = ACCEPTABLE,
            desc = "P was evicted for K1; A stayed (pinned, then in the high pool); the second "
                    + "release was refused.")
    @Outcome(id = ".*;(KEPT|FREED), .*, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: the second release succeeded.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: A evicted or freed, P kept, K1 missing, other bytes, "
                    + "accounting off, STUCK_*, an exception.")
    @State
    public static class VsEvictionLru extends VsEviction {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_2);

        public VsEvictionLru() {
            LruFixture.fill(cache, Priority.LOW, A, P);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void releaser(LLLL_Result r) {
            super.releaser(r);
        }

        @Actor
        @Override
        public void inserter(LLLL_Result r) {
            super.inserter(r);
        }

        @Override
        String insert() {
            try {
                return VersionedKeys.insert(cache, K1, 0, Priority.LOW) ? "INSERTED" : "REFUSED";
            } catch (RuntimeException | Error e) {
                return Outcomes.failure(e);
            }
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                r.r3 = LruFixture.presence(cache, A) + ";" + LruFixture.presence(cache, P)
                        + ";" + LruFixture.presence(cache, K1);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> LruFixture.accounting(cache, 2));
        }
    }

    /**
     * A released handle of an unreferenced entry, released again by one actor while the other,
     * a correct caller, erases the entry and pins a new one into the same slot.
     */
    public abstract static class StaleVsHolder {
        long stale;
        long holder = Cache.MISS;

        /** The state's cache, built by the subclass. */
        abstract Cache cache();

        /** Erases the stale handle's key: ERASED, NOT_FOUND or the failure's name. */
        abstract String eraseOld();

        /** Inserts the holder's entry pinned; its handle or {@link Cache#MISS}. */
        abstract long insertNew();

        /** The label of the holder's own bytes. */
        abstract String newLabel();

        /** The label of the bytes behind a handle. */
        abstract String read(long handle);

        public void holder(LLLL_Result r) {
            String erased = eraseOld();
            try {
                holder = insertNew();
                String seen = holder == Cache.MISS ? "MISS" : read(holder);
                r.r1 = erased + ";" + (seen.equals(newLabel()) ? "OWN" : seen);
            } catch (RuntimeException | Error e) {
                r.r1 = erased + ";" + Outcomes.failure(e);
            }
        }

        public void staleReleaser(LLLL_Result r) {
            r.r2 = Outcomes.release(cache(), stale, false);
        }
    }

    @JCStressTest
    @Description("A_V0 is cached; the state looked it up and released the handle, so it holds "
            + "a released handle of an unreferenced entry. Actor 1, a correct caller, erases A "
            + "and inserts A_V1 pinned, which takes A_V0's slot (the same key probes the same "
            + "slots first) under a new generation, and reads it. Actor 2 releases the old "
            + "handle. That release must be refused in every interleaving: before the erase "
            + "nobody references A_V0; after it the handle is stale, its slot empty or holding "
            + "A_V1. The check and the change are one CAS from the checked word (its tag part of "
            + "the entry's stamp), so a release checked against A_V0 cannot land on A_V1 and "
            + "take actor 1's pin.")
    @Outcome(id = "ERASED;OWN, " + REFUSED + ", A_V1;KEPT;PRESENT_A_V1;E1, OK",
            expect = ACCEPTABLE,
            desc = "The stale release was refused; actor 1's handle read A_V1 before and after "
                    + "the race, and its release kept A_V1 cached (its pin was intact).")
    @Outcome(id = ".*, (KEPT|FREED), .*, .*", expect = FORBIDDEN,
            desc = "STALE RELEASE ACCEPTED: the released handle's release succeeded (on A_V0 "
                    + "with no reference held, or on A_V1, taking the holder's pin).")
    @Outcome(id = ".*, .*, A_V1;" + REFUSED + ";.*, .*", expect = FORBIDDEN,
            desc = "LOST PIN: the holder's release of its own handle was refused (a stale "
                    + "release had taken its reference).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the holder's handle reading other bytes, its insert not "
                    + "landing in the table, A_V0 left behind (E2: a stale release's count "
                    + "change made the erase step back), accounting off, STUCK_*, an exception.")
    @State
    public static class StaleVsHolderFixed extends StaleVsHolder {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        public StaleVsHolderFixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            stale = VersionedKeys.lookup(cache, A);
            cache.release(stale);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void holder(LLLL_Result r) {
            super.holder(r);
        }

        @Actor
        @Override
        public void staleReleaser(LLLL_Result r) {
            super.staleReleaser(r);
        }

        @Override
        String eraseOld() {
            return VersionedKeys.eraseOutcome(cache, A);
        }

        @Override
        long insertNew() {
            return VersionedKeys.insertPinned(cache, A, 1, Priority.LOW);
        }

        @Override
        String newLabel() {
            return VersionedKeys.label(A, 1);
        }

        @Override
        String read(long handle) {
            return VersionedKeys.read(cache, handle);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                String seen = holder == Cache.MISS ? "MISS" : VersionedKeys.read(cache, holder);
                r.r3 = seen + ";" + Outcomes.release(cache, holder, false) + ";"
                        + FixedFixture.presenceAndCount(cache, A);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = FixedFixture.checkDrainClose(cache, A);
        }
    }

    @JCStressTest
    @Description("A1 is cached; the state looked it up and released the handle. Actor 1, a "
            + "correct caller, erases A1 and inserts B1 pinned: B1 has the same home, so it "
            + "takes A1's slot (home slot 1) once A1 is gone, under a new generation; it reads "
            + "B1. Actor 2 releases A1's old handle, which must be refused in every "
            + "interleaving (unreferenced before the erase, stale after it), and must never "
            + "take B1's pin.")
    @Outcome(id = "ERASED;OWN, " + REFUSED + ", B1;KEPT;B1;GONE, OK", expect = ACCEPTABLE,
            desc = "The stale release was refused; the holder's handle read B1 before and "
                    + "after the race and its release kept B1 cached.")
    @Outcome(id = ".*, (KEPT|FREED), .*, .*", expect = FORBIDDEN,
            desc = "STALE RELEASE ACCEPTED: the released handle's release succeeded (on the "
                    + "unreferenced A1, or on B1 in its slot, taking the holder's pin).")
    @Outcome(id = ".*, .*, B1;" + REFUSED + ";.*, .*", expect = FORBIDDEN,
            desc = "LOST PIN: the holder's release of its own handle was refused.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the holder reading other bytes, A1 still findable, "
                    + "accounting off (A1 left behind, a pin left), STUCK_*, an exception.")
    @State
    public static class StaleVsHolderAuto extends StaleVsHolder {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        public StaleVsHolderAuto() {
            AutoFixture.fill(cache, Priority.LOW, A1);
            stale = AutoFixture.lookup(cache, A1);
            cache.release(stale);
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void holder(LLLL_Result r) {
            super.holder(r);
        }

        @Actor
        @Override
        public void staleReleaser(LLLL_Result r) {
            super.staleReleaser(r);
        }

        @Override
        String eraseOld() {
            return AutoFixture.eraseOutcome(cache, A1);
        }

        @Override
        long insertNew() {
            return AutoFixture.insertPinned(cache, B1, Priority.LOW);
        }

        @Override
        String newLabel() {
            return AutoFixture.name(B1);
        }

        @Override
        String read(long handle) {
            return AutoFixture.read(cache, handle);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                String seen = holder == Cache.MISS ? "MISS" : AutoFixture.read(cache, holder);
                r.r3 = seen + ";" + Outcomes.release(cache, holder, false) + ";"
                        + seen(cache, B1) + ";" + seen(cache, A1);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = AutoFixture.checkDrainClose(cache, () -> AutoFixture.accounting(cache, 1),
                    A1, B1);
        }
    }

    /**
     * A released handle whose record an insert may reuse (LRU only: the clock tables' stale
     * handle against a new entry in its slot is {@link StaleVsHolder}). Result fields: r1 actor
     * 1's release of the stale handle, then what it read through its new handle to K1; r2
     * actor 2's release of the stale handle; r3 the arbiter: K1's handle rereads K1, its release
     * keeps K1 (KEPT), then whether a lookup finds K1 and A; r4 accounting (1 entry), drain,
     * close.
     */
    @JCStressTest
    @Description("The state erased A while holding its only handle, so the handle's release "
            + "frees A. Both actors release that handle; actor 1 then insertPinned(K1), which "
            + "reuses A's record if A is freed by then (the slab hands out the last freed record "
            + "first), under a new generation. Exactly one release frees A; the other is "
            + "refused: before the reuse because the record is free, after it because the "
            + "generation differs. A stale release that got through would drop K1's reference "
            + "under actor 1's feet.")
    @Outcome(id = "FREED;OWN, EX_IllegalStateException, K1_V0;KEPT;K1_PRESENT;A_GONE, OK",
            expect = ACCEPTABLE,
            desc = "Actor 1 freed A; actor 2's release (of a free record, or of K1's record "
                    + "under an old generation) was refused.")
    @Outcome(id = "EX_IllegalStateException;OWN, FREED, K1_V0;KEPT;K1_PRESENT;A_GONE, OK",
            expect = ACCEPTABLE,
            desc = "Actor 2 freed A; actor 1's release was refused, then it inserted K1.")
    @Outcome(id = "FREED;.*, FREED, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE FREE: both releases freed A.")
    @Outcome(id = "(?!FREED;|EX_IllegalStateException;).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "Actor 1's release neither freed A nor was refused (KEPT: the erased A went "
                    + "back on the list; another exception; or the stale handle reached K1).")
    @Outcome(id = ".*;(?!OWN).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "Actor 1's handle to K1 read other bytes (or K1's insert was refused).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: K1's handle rereading other bytes, its release refused or "
                    + "freeing K1 (a stale release dropped K1's reference), K1 gone, A findable, "
                    + "accounting off (ACCT_*: a double free shows as usage below 64), STUCK_*.")
    @State
    public static class ReusedLru {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

        final long handle;
        long k1Handle = Cache.MISS;

        public ReusedLru() {
            LruFixture.fill(cache, Priority.LOW, A);
            handle = VersionedKeys.lookup(cache, A);
            VersionedKeys.erase(cache, A);
        }

        @Actor
        public void releaser1(LLLL_Result r) {
            String released = Outcomes.release(cache, handle, false);
            String own;
            try {
                k1Handle = VersionedKeys.insertPinned(cache, K1, 0, Priority.LOW);
                own = k1Handle == Cache.MISS ? "MISS"
                        : VersionedKeys.read(cache, k1Handle).equals(VersionedKeys.label(K1, 0))
                        ? "OWN"
                        : VersionedKeys.read(cache, k1Handle);
            } catch (RuntimeException | Error e) {
                own = Outcomes.failure(e);
            }
            r.r1 = released + ";" + own;
        }

        @Actor
        public void releaser2(LLLL_Result r) {
            r.r2 = Outcomes.release(cache, handle, false);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                if (k1Handle == Cache.MISS) {
                    r.r3 = "K1_MISS";
                } else {
                    String seen = VersionedKeys.read(cache, k1Handle);
                    String released = Outcomes.release(cache, k1Handle, false);
                    r.r3 = seen + ";" + released + ";K1_" + LruFixture.presence(cache, K1)
                            + ";A_" + LruFixture.presence(cache, A);
                }
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> LruFixture.accounting(cache, 1));
        }
    }
}
