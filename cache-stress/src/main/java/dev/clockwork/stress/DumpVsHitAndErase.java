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
 * A dump ({@code EngineCache.dump}'s walk, through {@code DumpProbe} with a 64-byte block) races
 * with a hit on P and an erase of A, in each cache type: the dump is a valid one (read back and
 * verified whole), holds P exactly once with P's bytes, and A with A's bytes or not at all; the
 * hit moves P between the walk's passes (HyperClock: its countdown from 2 to 3, so that without
 * the walk's marks P could be written by the countdown-3 pass and again by the countdown-2 pass)
 * or along the list (LRU: to the newest end, behind the walk's cursor).
 */
public class DumpVsHitAndErase {

    /**
     * The race in a fixed table holding A and P, both LOW (countdown 2).
     *
     * <p>Result fields: r1 what the dump held ({@link VersionedKeys#dumpAll}), r2 erase's return,
     * r3 whether a lookup finds A afterwards and the entries left, r4 the arbiter's checks:
     * accounting, P erased (so present), then the drain check and close (see
     * {@link FixedFixture}).
     */
    @JCStressTest
    @Description("A dump races with a hit on P and erase(A) in a fixed table holding A and P: "
            + "the dump is valid and holds P exactly once, A whole or not at all.")
    @Outcome(id = "A_V0;P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
            desc = "The dump wrote A before erase took it.")
    @Outcome(id = "P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
            desc = "Erase made A invisible before the dump reached its slot.")
    @Outcome(id = "A_V0;P_V0, ERASED, GONE;E2, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "Erase met the dump's reference on A and left the free to the sweep (erase's "
                    + "documented corner case, as in ForEachVsErase); the drain check frees it.")
    @Outcome(expect = FORBIDDEN,
            desc = "P twice or missing, other bytes, a wrong key or charge, an invalid dump, "
                    + "accounting off, or an exception.")
    @State
    public static class Fixed {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        public Fixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            VersionedKeys.insert(cache, P, 0, Priority.LOW);
        }

        @Actor
        public void dumper(LLLL_Result r) {
            r.r1 = VersionedKeys.dumpAll(cache);
        }

        @Actor
        public void hitterAndEraser(LLLL_Result r) {
            VersionedKeys.lookupReadRelease(cache, P);
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
     * The race in an LRU cache holding A and P: the dump walks the list newest first, 64 entries
     * per lock hold; the hit takes P off the list and puts it back at the newest end, behind or
     * ahead of the walk's cursor, and the erase unlinks A.
     *
     * <p>Result fields as {@link Fixed}'s; r3 is whether a lookup finds A and the entry count,
     * r4 accounting, P present, the drain check and close (see {@link LruFixture}).
     */
    @JCStressTest
    @Description("A dump races with a hit on P and erase(A) in an LRU cache holding A and P: "
            + "the dump is valid and holds P exactly once, A whole or not at all.")
    @Outcome(id = "A_V0;P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
            desc = "The dump wrote A before erase took it.")
    @Outcome(id = "P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
            desc = "Erase unlinked A before the dump reached it.")
    @Outcome(expect = FORBIDDEN,
            desc = "P twice or missing, other bytes, a wrong key or charge, an invalid dump, "
                    + "A findable or counted afterwards, accounting off, or an exception.")
    @State
    public static class Lru {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

        public Lru() {
            LruFixture.fill(cache, Priority.LOW, A);
            LruFixture.fill(cache, Priority.LOW, P);
        }

        @Actor
        public void dumper(LLLL_Result r) {
            r.r1 = VersionedKeys.dumpAll(cache);
        }

        @Actor
        public void hitterAndEraser(LLLL_Result r) {
            VersionedKeys.lookupReadRelease(cache, P);
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
