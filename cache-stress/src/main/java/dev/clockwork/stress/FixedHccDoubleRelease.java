package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.FixedHyperClockCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * Misuse: double releases in a fixed table, raced against a correct release, an erase, an
 * eviction and a correct holder of the slot's next entry. The contract: a release of a handle
 * whose references are all gone is refused with {@link IllegalStateException} and changes
 * nothing, whatever runs beside it; of two releases of one reference exactly one succeeds; no
 * entry is freed twice; no correct caller loses its pin; the accounting comes back exactly.
 *
 * <p>Every state holds handles only of entries nobody else references, so every double release
 * here is detectable (the documented limit, a double release of an entry others also hold, is
 * MisuseRaceTest's business). Result fields: r1, r2 the actors; r3 what the arbiter
 * finds (see each state); r4 accounting with no handle held (usage is metadata plus 64 per table
 * entry, nothing pinned or standalone: a double free shows as usage too low, a lost release as a
 * pin left), the drain check (the fillers' inserts must evict anything left unreferenced) and
 * close.
 */
public class FixedHccDoubleRelease {

    private static final String REFUSED = "EX_IllegalStateException";

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
    public static class Table {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
        final long handle;

        public Table() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Actor
        public void releaser1(LLLL_Result r) {
            r.r1 = Outcomes.release(cache, handle, false);
        }

        @Actor
        public void releaser2(LLLL_Result r) {
            r.r2 = Outcomes.release(cache, handle, false);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = FixedFixture.presenceAndCount(cache, A);
            r.r4 = FixedFixture.checkDrainClose(cache, A);
        }
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
    public static class Standalone {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
        final long handle;
        final boolean standalone;

        public Standalone() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            handle = VersionedKeys.insertPinned(cache, A, 1, Priority.LOW);
            standalone = cache.standaloneUsage() == VersionedKeys.CHARGE;
        }

        @Actor
        public void releaser1(LLLL_Result r) {
            r.r1 = Outcomes.release(cache, handle, false);
        }

        @Actor
        public void releaser2(LLLL_Result r) {
            r.r2 = Outcomes.release(cache, handle, false);
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
    public static class VsErase {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
        final long handle;

        public VsErase() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Actor
        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.releaseTwice(cache, handle);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            r.r2 = VersionedKeys.eraseOutcome(cache, A);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = FixedFixture.presenceAndCount(cache, A);
            r.r4 = FixedFixture.checkDrainClose(cache, A);
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
    public static class VsEviction {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_2);
        final long handle;

        public VsEviction() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            VersionedKeys.insert(cache, P, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Actor
        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.releaseTwice(cache, handle);
        }

        @Actor
        public void inserter(LLLL_Result r) {
            try {
                r.r2 = VersionedKeys.insert(cache, K1, 0, Priority.LOW) ? "INSERTED" : "REFUSED";
            } catch (RuntimeException | Error e) {
                r.r2 = Outcomes.failure(e);
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
    public static class StaleVsHolder {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
        final long stale;
        long holder = Cache.MISS;

        public StaleVsHolder() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            stale = VersionedKeys.lookup(cache, A);
            cache.release(stale);
        }

        @Actor
        public void holder(LLLL_Result r) {
            String erased = VersionedKeys.eraseOutcome(cache, A);
            try {
                holder = VersionedKeys.insertPinned(cache, A, 1, Priority.LOW);
                String seen = holder == Cache.MISS ? "MISS" : VersionedKeys.read(cache, holder);
                r.r1 = erased + ";" + (seen.equals(VersionedKeys.label(A, 1)) ? "OWN" : seen);
            } catch (RuntimeException | Error e) {
                r.r1 = erased + ";" + Outcomes.failure(e);
            }
        }

        @Actor
        public void staleReleaser(LLLL_Result r) {
            r.r2 = Outcomes.release(cache, stale, false);
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
}
