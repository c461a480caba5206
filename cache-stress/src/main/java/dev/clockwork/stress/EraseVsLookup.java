package dev.clockwork.stress;

import static dev.clockwork.stress.AutoFixture.A1;
import static dev.clockwork.stress.AutoFixture.A2;
import static dev.clockwork.stress.AutoFixture.B1;
import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
 * {@code erase} races with a lookup + read + release, in each cache type: the reader must read
 * its own bytes or miss, never another entry's or freed memory, and the erased entry must be freed
 * exactly once. Fixed and LRU look up the erased key itself; the Auto tests look up its neighbour
 * on the same chain, which unlinking must never hide. The sections below are one per type; each
 * test class's fields are described there.
 */
public class EraseVsLookup {

    /**
     * Erase of a key races with a lookup + read + release of it.
     *
     * <p>Result fields: r1 the reader (FREED when its release freed the entry), r2 erase's return,
     * r3 whether a lookup after both finds A, and the table entries left (E0/E1), r4 accounting,
     * the drain check (see {@link FixedFixture#drain}) and close.
     */
    @JCStressTest
    @Description("erase(A) races with lookup(A) + read + release. The lookup either misses or hits "
            + "with A's bytes; erase always finds A (nothing else removes it); afterwards A is "
            + "gone and is freed exactly once: usage returns to the table's metadata, at once or - "
            + "in the one documented corner case - after the next eviction.")
    @Outcome(id = "HIT, ERASED, GONE;E0, OK", expect = ACCEPTABLE,
            desc = "Lookup and release completed before erase, which then freed A itself.")
    @Outcome(id = "HIT_FREED, ERASED, GONE;E0, OK", expect = ACCEPTABLE,
            desc = "Erase found the reader's reference and only made A invisible; the reader's "
                    + "release was the last reference and freed it (usage exact).")
    @Outcome(id = "MISS, ERASED, GONE;E0, OK", expect = ACCEPTABLE,
            desc = "Erase freed A (or made it invisible) before the lookup: a clean miss.")
    @Outcome(id = "HIT, ERASED, GONE;E1, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "Known RocksDB wart (Unref in clock_cache.cc: 'tiny chance we release last ref "
                    + "to invisible entry here... let eviction take care of it'): erase saw 2 refs "
                    + "and made A invisible, the reader released (not last), then erase dropped "
                    + "its own ref without freeing. A is unreachable but still charged until a "
                    + "clock sweep frees it; the drain check proves that sweep frees it exactly "
                    + "once.")
    @Outcome(id = "HIT_(?!FREED,).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-FREE: the reader held a reference to A but read other bytes.")
    @Outcome(id = ".*, NOT_FOUND, .*, .*", expect = FORBIDDEN,
            desc = "Erase missed A although only erase removes it.")
    @Outcome(id = ".*, .*, PRESENT.*, .*", expect = FORBIDDEN,
            desc = "A is still findable after erase returned.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: accounting off (ACCT_*: usage must be 256 + 64 per table entry; "
                    + "a double free shows as usage below that), a leftover that eviction does not "
                    + "free (STUCK_*), a leftover after a miss, or an exception.")
    @State
    public static class Fixed {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        public Fixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r1 = VersionedKeys.lookupReadRelease(cache, A);
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

    /*
     * Erasing an entry unlinks it from its chain while a lock-free lookup walks
     * through it to a neighbour further down the same chain.
     *
     * <p>The state holds B1 then A1, both with home 1 (4 homes, no growth in this test): B1 in slot
     * 1, A1 in slot 2 (B1's home slot was taken), and home 1's chain reads {@code A1 -> B1 ->
     * end(1)}. The reader looks up B1, which is behind the erased A1.
     *
     * <p>Result fields: r1 the eraser, r2 the reader, r3 whether the reader restarted a walk
     * (R0/RN; only the reader looks up during the race), r4 the arbiter's checks: A1 gone, the
     * others found with their own bytes, the entry count, every entry on a chain, usage 64 per
     * entry; then erase all (usage back to 0) and close.
     */
    @JCStressTest
    @Description("erase(A1) (the head of home 1's chain) races with lookup(B1) + read + release "
            + "(the entry behind it). Erase locks the chain, points the head past A1 at B1, "
            + "unlocks and frees A1; a reader that already stepped onto A1 follows A1's link, "
            + "which still leads to B1. B1 is resident throughout: the lookup must always hit.")
    @Outcome(id = "ERASED, HIT, R0, OK", expect = ACCEPTABLE,
            desc = "The reader reached B1 through the old head and A1, or through the new head.")
    @Outcome(id = "ERASED, HIT, RN, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The reader noticed a change under it (restart) and then found B1.")
    @Outcome(id = ".*, MISS, .*, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: unlinking A1 hid its neighbour B1 from the lookup.")
    @Outcome(id = ".*, HIT_.*, .*, .*", expect = FORBIDDEN,
            desc = "WRONG VALUE: the handle read bytes that are not B1's (or the plain release "
                    + "freed B1: HIT_FREED).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: erase missed A1 (NOT_FOUND), an exception, A1 still findable "
                    + "(FOUND_A1), B1 missing or wrong afterwards, accounting off (ACCT_*), or "
                    + "entries left after erasing all keys (STUCK_*).")
    @State
    public static class FrontAuto {
        static final int[] KEYS = {B1, A1};
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        public FrontAuto() {
            AutoFixture.fill(cache, Priority.LOW, B1, A1);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            try {
                r.r1 = AutoFixture.erase(cache, A1) ? "ERASED" : "NOT_FOUND";
            } catch (RuntimeException | Error e) {
                r.r1 = Outcomes.failure(e);
            }
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r2 = AutoFixture.lookupReadRelease(cache, B1);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = AutoFixture.restarts(cache);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> Outcomes.problems(
                    AutoFixture.absent(cache, A1),
                    AutoFixture.present(cache, B1),
                    AutoFixture.accounting(cache, 1)), KEYS);
        }
    }

    @JCStressTest
    @Description("erase(A1) then insert(A2) races with lookup(B1) + read + release. A2's home is "
            + "2, which is slot 2: the slot A1 just left. So a reader standing on slot 2 may "
            + "find A2's key (another home: it wandered off) or A2's link (the end of chain 2, "
            + "not of chain 1) there; either way it must notice and restart, never report a "
            + "miss. B1 is resident throughout: the lookup must always hit.")
    @Outcome(id = "ERASED;INSERTED, HIT, R0, OK", expect = ACCEPTABLE,
            desc = "The reader reached B1 before slot 2 was reused, or through the new head.")
    @Outcome(id = "ERASED;INSERTED, HIT, RN, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The reader was on slot 2 when A2 took it over, noticed that it had left "
                    + "chain 1 (a key of home 2, or the end of chain 2), restarted and found B1.")
    @Outcome(id = ".*, MISS, .*, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: the reader followed the reused slot onto chain 2 and took "
                    + "its end for the end of chain 1, or unlinking A1 hid B1.")
    @Outcome(id = ".*, HIT_.*, .*, .*", expect = FORBIDDEN,
            desc = "WRONG VALUE: the handle read bytes that are not B1's.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: erase missed A1, A2 refused, an exception, A1 still findable, "
                    + "B1 or A2 missing or wrong afterwards, accounting off (ACCT_*), or entries "
                    + "left after erasing all keys (STUCK_*).")
    @State
    public static class ReuseAuto {
        static final int[] KEYS = {B1, A1, A2};
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        public ReuseAuto() {
            AutoFixture.fill(cache, Priority.LOW, B1, A1);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            try {
                String erased = AutoFixture.erase(cache, A1) ? "ERASED" : "NOT_FOUND";
                r.r1 = erased + ";" + AutoFixture.insertOutcome(cache, A2, Priority.LOW);
            } catch (RuntimeException | Error e) {
                r.r1 = Outcomes.failure(e);
            }
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r2 = AutoFixture.lookupReadRelease(cache, B1);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = AutoFixture.restarts(cache);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> Outcomes.problems(
                    AutoFixture.absent(cache, A1),
                    AutoFixture.present(cache, B1, A2),
                    AutoFixture.accounting(cache, 2)), KEYS);
        }
    }

    /**
     * {@code erase(A)} races with a lookup + read + release of A.
     *
     * <p>The cache has room for 3 entries, a high pool of half the capacity and no low pool; the
     * state inserts A (LOW, so it enters the bottom pool: there is no low pool) and P (BOTTOM),
     * which stays throughout as a neighbour on the list. Erase takes A out of the index at once; an
     * unreferenced A is also unlinked and freed at once, a referenced one is freed by its last
     * release (which then returns true). Unlike the clock caches there is no window in which an
     * erased entry stays charged: usage is exact as soon as both actors are done.
     *
     * <p>Result fields: r1 the reader (FREED when its release freed A), r2 erase's return, r3
     * whether a lookup finds A at the end, the entries left (E) and the pools (read first), r4
     * accounting, the drain check (see {@link LruFixture#drainAndClose}) and close.
     */
    @JCStressTest
    @Description("erase(A) races with lookup(A) + read + release in a 3-entry LRU cache holding A "
            + "and P. The lookup either misses or hits with A's bytes; erase always finds A "
            + "(nothing else removes it); afterwards A is gone, only P is left (unpromoted, in the "
            + "bottom pool), and A was freed exactly once: usage is 64, at once.")
    @Outcome(id = "HIT, ERASED, GONE;E1;H0L0B1, OK", expect = ACCEPTABLE,
            desc = "Lookup and release completed first (the release put A in the high pool); erase "
                    + "then unlinked and freed it.")
    @Outcome(id = "HIT_FREED, ERASED, GONE;E1;H0L0B1, OK", expect = ACCEPTABLE,
            desc = "Erase found A referenced by the reader: it took A out of the index only, and "
                    + "the reader's release, the last reference to an erased entry, freed it.")
    @Outcome(id = "MISS, ERASED, GONE;E1;H0L0B1, OK", expect = ACCEPTABLE,
            desc = "Erase freed A before the lookup: a clean miss.")
    @Outcome(id = "HIT_(?!FREED,).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-FREE: the reader held a reference to A but read other bytes.")
    @Outcome(id = ".*, NOT_FOUND, .*, .*", expect = FORBIDDEN,
            desc = "Erase missed A although only erase removes it.")
    @Outcome(id = ".*, .*, (?!GONE;).*, .*", expect = FORBIDDEN,
            desc = "A (or other bytes under its key) is still findable after erase returned.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: an erased A still charged or listed (E2, pools other than P "
                    + "alone in the bottom pool), accounting off (ACCT_*: a double free shows as "
                    + "usage below 64), a list the drain cannot empty (STUCK_*), or an exception.")
    @State
    public static class Lru {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

        public Lru() {
            LruFixture.fill(cache, Priority.LOW, A);
            LruFixture.fill(cache, Priority.BOTTOM, P);
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r1 = VersionedKeys.lookupReadRelease(cache, A);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            r.r2 = VersionedKeys.eraseOutcome(cache, A);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                String pools = LruFixture.pools(cache);
                long entries = cache.entryCount();
                r.r3 = LruFixture.presence(cache, A) + ";E" + entries + ";" + pools;
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> Outcomes.problems(
                    LruFixture.accounting(cache, 1), LruFixture.present(cache, P)));
        }
    }
}
