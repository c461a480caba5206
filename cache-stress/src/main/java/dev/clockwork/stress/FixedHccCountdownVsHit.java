package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
 * The clock's countdown updates race with a hit on the same entry.
 *
 * <p>A clock update reads an unreferenced entry's meta word and writes back both counters lowered
 * to the new countdown with a CAS from the word it read. A lookup's reference is an atomic add to
 * the acquire counter of that same word. If the update could land over a reference taken after
 * its read (a plain store, or a CAS that ignored the counters), the reference would be lost: the
 * holder's release would then find "no reference held" and throw, or leave the counters
 * unbalanced so that the entry looks pinned forever, or let a sweep evict an entry in use.
 *
 * <p>Set-up: a 2-entry cache holds A (HIGH: countdown 3) and P (BOTTOM: countdown 1). The evictor
 * inserts K1, which must evict one entry: its sweep visits the whole 4-slot table per step, so
 * step 1 lowers A to 2 and P to 0, step 2 lowers A to 1 and evicts P, and the sweep stops. A
 * (3 sweeps to go) cannot be evicted by it. The reader looks A up, reads it and releases it, a
 * useful release that raises A's countdown by one.
 *
 * <p>r3 is A's counters at the end ({@code C<n>}, both equal) and the references left
 * ({@code R<n>}, the arbiter's own excluded). Which {@code C} shows depends on where the hit
 * fell among the two visits, as the outcomes explain.
 */
@JCStressTest
@Description("Lookup + read + release of A (HIGH, countdown 3) races with a clock sweep that "
        + "lowers A's countdown twice (the insert of K1 into a full 2-entry cache evicts P on "
        + "the sweep's second visit). A reference taken between a clock update's read and its "
        + "CAS must not be lost: the release must succeed and leave no reference behind.")
@Outcome(id = "HIT, INSERTED, C1_R0, OK", expect = ACCEPTABLE,
        desc = "The hit came before the sweep: its useful release raised A to 4, and the two "
                + "visits lowered it to 2, then 1.")
@Outcome(id = "HIT, INSERTED, C2_R0, OK", expect = ACCEPTABLE,
        desc = "The hit came after the sweep (3 -> 2 -> 1, then 2), between its visits "
                + "(3 -> 2, hit 3, -> 2), or held A during the first visit only (skipped: "
                + "3, release 4, -> 2).")
@Outcome(id = "HIT, INSERTED, C3_R0, OK", expect = ACCEPTABLE_INTERESTING,
        desc = "The reader held A during the second visit, which skipped it as pinned "
                + "(3 -> 2, held, release 3).")
@Outcome(id = "HIT, INSERTED, C4_R0, OK", expect = ACCEPTABLE_INTERESTING,
        desc = "The reader held A through both visits: neither lowered it, and the release "
                + "raised it to 4 (read as 3, the cap).")
@Outcome(id = "EX_.*, .*, .*, .*", expect = FORBIDDEN,
        desc = "LOST REFERENCE: the reader's release threw (the clock update's CAS wrote over "
                + "the reference it took), or the lookup or read threw.")
@Outcome(id = ".*, .*, C.*_R(?!0).*, .*", expect = FORBIDDEN,
        desc = "UNBALANCED COUNTERS: references are left with no handle held; A would look "
                + "pinned forever and never be evicted.")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: A gone (A_GONE: evicted after fewer than 4 visits, or while "
                + "held), the reader reading other bytes, a miss, a refused insert, or "
                + "accounting that does not add up at the end.")
@State
public class FixedHccCountdownVsHit {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_2);

    public FixedHccCountdownVsHit() {
        VersionedKeys.insert(cache, A, 0, Priority.HIGH);
        VersionedKeys.insert(cache, P, 0, Priority.BOTTOM);
    }

    @Actor
    public void reader(LLLL_Result r) {
        r.r1 = VersionedKeys.lookupReadRelease(cache, A);
    }

    @Actor
    public void evictor(LLLL_Result r) {
        try {
            r.r2 = VersionedKeys.insert(cache, K1, 0, Priority.BOTTOM) ? "INSERTED" : "REFUSED";
        } catch (RuntimeException | Error e) {
            r.r2 = Outcomes.failure(e);
        }
    }

    @Arbiter
    public void arbiter(LLLL_Result r) {
        r.r3 = FixedFixture.counters(cache, A);
        r.r4 = FixedFixture.checkDrainClose(cache, A);
    }
}
