package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.LruCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * {@code forEachEntry} (one record per lock hold) races with {@code erase(A)} in an LRU cache
 * holding A and P.
 *
 * <p>The visit holds the shard's lock while it examines a record and calls the visitor, and lets
 * go between records; erase runs between two batches. The cursor is a record index, so P is
 * visited exactly once whenever erase runs, and A is visited if and only if its record comes
 * before the erase.
 *
 * <p>Result fields: r1 what the visit saw (see {@link VersionedKeys#visitAll}), r2 erase's
 * return, r3
 * whether a lookup finds A at the end and the entries left, r4 accounting, P present, the drain
 * check (see {@link LruFixture#drainAndClose}) and close.
 */
@JCStressTest
@Description("forEachEntry, one record per lock hold, races with erase(A) in a 3-entry LRU cache "
        + "holding A and P. The visit sees P exactly once and A with A's bytes or not at all; "
        + "erase always finds A; afterwards only P is left and A was freed exactly once, at once.")
@Outcome(id = "A_V0;P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
        desc = "The visit passed A's record before erase ran.")
@Outcome(id = "P_V0, ERASED, GONE;E1, OK", expect = ACCEPTABLE,
        desc = "Erase unlinked and freed A before the visit reached its record.")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: other bytes, a wrong key or charge, P not exactly once; erase "
                + "missing A; A findable or still counted afterwards; accounting off (a double "
                + "free shows as usage below 64); a list the drain cannot empty; an exception.")
@State
public class LruForEachVsErase {
    private final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

    public LruForEachVsErase() {
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
