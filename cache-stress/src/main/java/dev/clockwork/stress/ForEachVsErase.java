package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Priority;
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
 * {@code forEachEntry} races with {@code erase} of one of the entries it visits, in each cache type
 * that visits entries under its own rules: every visit reads the bytes, key and charge of an entry
 * that was cached, the other entry is seen exactly once, and the erased one is freed exactly once.
 */
public class ForEachVsErase {

    /**
     * {@code forEachEntry} races with {@code erase(A)} on a fixed table holding A and P.
     *
     * <p>The visit references each visible entry as a lookup does, hands it to the visitor and
     * releases it as not useful; an erase that meets the visit's reference only makes A invisible,
     * and the visit's release, being the last, frees it.
     *
     * <p>Result fields: r1 what the visit saw (see {@link VersionedKeys#visitAll}: labels of the
     * visited values, sorted), r2 erase's return, r3 whether a lookup finds A afterwards and the
     * table entries left (E1: P only; E2: A too, still occupying its slot), r4 the arbiter's
     * checks: accounting, then P erased, the drain check (see {@link FixedFixture#drain}: a
     * leftover A must be freed, exactly once, by the next eviction) and close.
     */
    @JCStressTest
    @Description("forEachEntry races with erase(A) in a fixed table holding A and P. The visit "
            + "sees P exactly once, and A with A's bytes or not at all; erase always finds A; "
            + "afterwards A is gone and freed exactly once: at once, or - in the erase's "
            + "documented corner case - by the next eviction.")
    @Outcome(id = "A_V0;P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
            desc = "The visit saw A before erase took it; or erase met the visit's reference, made "
                    + "A invisible, and the visit's release, the last reference, freed it.")
    @Outcome(id = "P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
            desc = "Erase freed A (or made it invisible) before the visit reached its slot.")
    @Outcome(id = "A_V0;P_V0, ERASED, GONE;E2, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "Erase's own corner case, RocksDB's Unref wart (see EraseVsLookup.Fixed): "
                    + "erase saw the visit's reference and made A invisible, the visit released "
                    + "first (A still visible when it looked, so not a freeing release), then "
                    + "erase dropped its reference without freeing. A is unfindable but charged "
                    + "until a sweep frees it; the drain check proves the sweep frees it exactly "
                    + "once.")
    @Outcome(id = "(?!(A_V0;)?P_V0, ).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "The visit saw other bytes (use after free), a wrong key or charge, P not "
                    + "exactly once, or threw.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: erase missed A; A findable afterwards; a leftover after a visit "
                    + "that did not see A; accounting off (ACCT_*: a double free shows as usage "
                    + "below the metadata plus 64 per entry); a leftover the drain does not free "
                    + "(STUCK_*); or an exception.")
    @State
    public static class Fixed {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        public Fixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            VersionedKeys.insert(cache, P, 0, Priority.LOW);
        }

        @Actor
        public void visitor(LLLL_Result r) {
            r.r1 = VersionedKeys.visitAll(cache);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            r.r2 = VersionedKeys.eraseOutcome(cache, A);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = FixedFixture.presenceAndCount(cache, A);
            String accounting;
            try {
                accounting = FixedFixture.accounting(cache);
                if (!VersionedKeys.erase(cache, P)) {
                    accounting = Outcomes.problems(accounting, "P_GONE");
                }
            } catch (RuntimeException | Error e) {
                accounting = Outcomes.failure(e);
            }
            r.r4 = Outcomes.problems(accounting, FixedFixture.checkDrainClose(cache, A));
        }
    }

    /**
     * {@code forEachEntry} (one record per lock hold) races with {@code erase(A)} in an LRU cache
     * holding A and P.
     *
     * <p>The visit holds the shard's lock while it examines a record and calls the visitor, and
     * lets go between records; erase runs between two batches. The cursor is a record index, so P
     * is visited exactly once whenever erase runs, and A is visited if and only if its record comes
     * before the erase.
     *
     * <p>Result fields: r1 what the visit saw (see {@link VersionedKeys#visitAll}), r2 erase's
     * return, r3 whether a lookup finds A at the end and the entries left, r4 accounting, P
     * present, the drain check (see {@link LruFixture#drainAndClose}) and close.
     */
    @JCStressTest
    @Description("forEachEntry, one record per lock hold, races with erase(A) in a 3-entry LRU "
            + "cache holding A and P. The visit sees P exactly once and A with A's bytes or not at "
            + "all; erase always finds A; afterwards only P is left and A was freed exactly once, "
            + "at once.")
    @Outcome(id = "A_V0;P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
            desc = "The visit passed A's record before erase ran.")
    @Outcome(id = "P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
            desc = "Erase unlinked and freed A before the visit reached its record.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: other bytes, a wrong key or charge, P not exactly once; erase "
                    + "missing A; A findable or still counted afterwards; accounting off (a double "
                    + "free shows as usage below 64); a list the drain cannot empty; an exception.")
    @State
    public static class Lru {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

        public Lru() {
            LruFixture.fill(cache, Priority.LOW, A);
            LruFixture.fill(cache, Priority.BOTTOM, P);
        }

        @Actor
        public void visitor(LLLL_Result r) {
            r.r1 = VersionedKeys.visitAll(cache);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            r.r2 = VersionedKeys.eraseOutcome(cache, A);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                r.r3 = LruFixture.presence(cache, A) + ";E" + cache.entryCount();
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> Outcomes.problems(
                    LruFixture.accounting(cache, 1), LruFixture.present(cache, P)));
        }
    }
}
