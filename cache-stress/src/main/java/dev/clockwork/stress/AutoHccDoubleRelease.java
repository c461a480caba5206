package dev.clockwork.stress;

import static dev.clockwork.stress.AutoFixture.A0;
import static dev.clockwork.stress.AutoFixture.A1;
import static dev.clockwork.stress.AutoFixture.B0;
import static dev.clockwork.stress.AutoFixture.B1;
import static dev.clockwork.stress.AutoFixture.C0;
import static dev.clockwork.stress.AutoFixture.D0;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AutoHyperClockCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * Misuse: double releases in an Auto table, the counterpart of {@link FixedHccDoubleRelease}
 * (same races, same contract): raced against a correct release, an erase, an eviction (which in
 * an Auto table also grows it and unlinks chains) and a correct holder of the slot's next entry.
 * A release of a handle whose references are all gone is refused with
 * {@link IllegalStateException} and changes nothing; of two releases of one reference exactly one
 * succeeds; nothing is freed twice; no correct caller loses its pin; no chain is corrupted (the
 * drain erases every key and must find the cache empty; a cycle would hang it, and jcstress
 * reports the timeout).
 *
 * <p>Every state holds handles only of entries nobody else references, so every double release
 * is detectable. Result fields: r1, r2 the actors; r3 what the arbiter finds; r4 accounting with
 * no handle held (usage 64 per entry, every entry on a chain, nothing pinned or standalone), the
 * drain and close.
 */
public class AutoHccDoubleRelease {

    private static final String REFUSED = "EX_IllegalStateException";

    /** What a lookup of {@code key} finds now: its name, GONE, or the failure's name. */
    static String seen(AutoHyperClockCache cache, int key) {
        try {
            String label = AutoFixture.peek(cache, key);
            return label == null ? "GONE" : label;
        } catch (RuntimeException | Error e) {
            return Outcomes.failure(e);
        }
    }

    static String release(Cache cache, long handle) {
        return Outcomes.release(cache, handle, false);
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
    public static class Table {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);
        final long handle;

        public Table() {
            AutoFixture.fill(cache, Priority.LOW, A0);
            handle = AutoFixture.lookup(cache, A0);
        }

        @Actor
        public void releaser1(LLLL_Result r) {
            r.r1 = release(cache, handle);
        }

        @Actor
        public void releaser2(LLLL_Result r) {
            r.r2 = release(cache, handle);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = seen(cache, A0);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> AutoFixture.accounting(cache, 1), A0);
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
    public static class Standalone {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);
        final long handle;
        final boolean standalone;

        public Standalone() {
            AutoFixture.fill(cache, Priority.LOW, A0);
            handle = AutoFixture.insertPinned(cache, A0, Priority.LOW);
            standalone = cache.standaloneUsage() == AutoFixture.CHARGE;
        }

        @Actor
        public void releaser1(LLLL_Result r) {
            r.r1 = release(cache, handle);
        }

        @Actor
        public void releaser2(LLLL_Result r) {
            r.r2 = release(cache, handle);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = (standalone ? "" : "NOT_STANDALONE;") + "S"
                    + cache.standaloneUsage() / AutoFixture.CHARGE + ";" + seen(cache, A0);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> AutoFixture.accounting(cache, 1), A0);
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
    public static class VsErase {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_3);
        final long handle;

        public VsErase() {
            AutoFixture.fill(cache, Priority.LOW, A0);
            handle = AutoFixture.lookup(cache, A0);
        }

        @Actor
        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.releaseTwice(cache, handle);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            try {
                r.r2 = AutoFixture.erase(cache, A0) ? "ERASED" : "NOT_FOUND";
            } catch (RuntimeException | Error e) {
                r.r2 = Outcomes.failure(e);
            }
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
    public static class VsEviction {
        static final int[] KEYS = {A0, B0, C0, D0};
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_3);
        final long handle;

        public VsEviction() {
            AutoFixture.fill(cache, Priority.BOTTOM, A0, B0, C0);
            handle = AutoFixture.lookup(cache, A0);
        }

        @Actor
        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.releaseTwice(cache, handle);
        }

        @Actor
        public void inserter(LLLL_Result r) {
            r.r2 = AutoFixture.insertOutcome(cache, D0, Priority.BOTTOM);
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
    public static class StaleVsHolder {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);
        final long stale;
        long holder = Cache.MISS;

        public StaleVsHolder() {
            AutoFixture.fill(cache, Priority.LOW, A1);
            stale = AutoFixture.lookup(cache, A1);
            cache.release(stale);
        }

        @Actor
        public void holder(LLLL_Result r) {
            String erased;
            try {
                erased = AutoFixture.erase(cache, A1) ? "ERASED" : "NOT_FOUND";
                holder = AutoFixture.insertPinned(cache, B1, Priority.LOW);
                String seen = holder == Cache.MISS ? "MISS" : AutoFixture.read(cache, holder);
                r.r1 = erased + ";" + (seen.equals(AutoFixture.name(B1)) ? "OWN" : seen);
            } catch (RuntimeException | Error e) {
                r.r1 = Outcomes.failure(e);
            }
        }

        @Actor
        public void staleReleaser(LLLL_Result r) {
            r.r2 = release(cache, stale);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                String seen = holder == Cache.MISS ? "MISS" : AutoFixture.read(cache, holder);
                r.r3 = seen + ";" + release(cache, holder) + ";" + seen(cache, B1) + ";"
                        + seen(cache, A1);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = AutoFixture.checkDrainClose(cache, () -> AutoFixture.accounting(cache, 1),
                    A1, B1);
        }
    }
}
