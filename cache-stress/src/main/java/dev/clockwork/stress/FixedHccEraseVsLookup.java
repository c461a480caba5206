package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
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
 * Test 3: erase of a key races with a lookup + read + release of it.
 *
 * <p>Result fields: r1 the reader (FREED when its release freed the entry), r2 erase's return,
 * r3 whether a lookup after both finds A, and the table entries left (E0/E1), r4 accounting,
 * the drain check (see {@link FixedFixture#drain}) and close.
 */
@JCStressTest
@Description("erase(A) races with lookup(A) + read + release. The lookup either misses or hits "
        + "with A's bytes; erase always finds A (nothing else removes it); afterwards A is gone "
        + "and is freed exactly once: usage returns to the table's metadata, at once or - in the "
        + "one documented corner case - after the next eviction.")
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
                + "and made A invisible, the reader released (not last), then erase dropped its "
                + "own ref without freeing. A is unreachable but still charged until a clock "
                + "sweep frees it; the drain check proves that sweep frees it exactly once.")
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
public class FixedHccEraseVsLookup {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

    public FixedHccEraseVsLookup() {
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
