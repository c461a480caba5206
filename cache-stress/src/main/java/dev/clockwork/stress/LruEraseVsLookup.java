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
 * LRU test (b): {@code erase(A)} races with a lookup + read + release of A.
 *
 * <p>The cache has room for 3 entries, a high pool of half the capacity and no low pool; the
 * state inserts A (LOW, so it enters the bottom pool: there is no low pool) and P (BOTTOM), which
 * stays throughout as a neighbour on the list. Erase takes A out of the index at once; an
 * unreferenced A is also unlinked and freed at once, a referenced one is freed by its last
 * release (which then returns true). Unlike the clock caches there is no window in which an
 * erased entry stays charged: usage is exact as soon as both actors are done.
 *
 * <p>Result fields: r1 the reader (FREED when its release freed A), r2 erase's return, r3 whether
 * a lookup finds A at the end, the entries left (E) and the pools (read first), r4 accounting,
 * the drain check (see {@link LruFixture#drainAndClose}) and close.
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
public class LruEraseVsLookup {
    private final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

    public LruEraseVsLookup() {
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
