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
 * Test 4: {@code release(h, eraseIfLastRef = true)} of the only handle to A races with a lookup
 * of A.
 *
 * <p>Result fields: r1 whether the erasing release freed A, r2 the reader, r3 whether A is
 * findable at the end and the table entries left, r4 accounting, drain check and close.
 *
 * <p>See {@link FixedHccReleaseEraseVsReinsert} for the FIXME in RocksDB's
 * {@code FixedHyperClockTable::Release} (erasing a replacement entry), which needs a third party
 * that re-inserts and so cannot happen here.
 */
@JCStressTest
@Description("The state holds the only handle to A (from a lookup). Actor 1 releases it with "
        + "eraseIfLastRef; actor 2 looks A up, reads it and releases normally. 'Erase if last "
        + "ref' is judged at one instant: if the reader holds a reference when the releaser "
        + "tries to take ownership, A is not erased and stays cached (an availability effect, "
        + "by design). Either way a hit must read A's bytes and A is freed at most once.")
@Outcome(id = "FREED, MISS, GONE;E0, OK", expect = ACCEPTABLE,
        desc = "The erasing release freed A before the lookup, which missed.")
@Outcome(id = "FREED, HIT, GONE;E0, OK", expect = ACCEPTABLE,
        desc = "The reader's lookup and release came first; the erasing release was then the "
                + "last reference and freed A.")
@Outcome(id = "KEPT, HIT, PRESENT;E1, OK", expect = ACCEPTABLE_INTERESTING,
        desc = "The reader held a reference when the releaser looked (before its fetch-add, or "
                + "between its fetch-add and its CAS to under-construction), so this was not the "
                + "last reference and nothing was erased; the reader's plain release never "
                + "erases, so A stays visible. The eraseIfLastRef request is simply lost.")
@Outcome(id = ".*, HIT_.*, .*, .*", expect = FORBIDDEN,
        desc = "USE-AFTER-FREE: the reader held a reference to A but read other bytes, or its "
                + "plain release freed the entry (HIT_FREED).")
@Outcome(id = "KEPT, MISS, .*, .*", expect = FORBIDDEN,
        desc = "The erasing release saw another reference, yet the only other party missed.")
@Outcome(id = "FREED, .*, PRESENT.*, .*", expect = FORBIDDEN,
        desc = "The release reported freeing A, yet A is still findable.")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: A kept but gone (or vice versa), accounting off (ACCT_*), a "
                + "leftover eviction does not free (STUCK_*), or an exception.")
@State
public class FixedHccReleaseEraseVsLookup {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
    private final long handle;

    public FixedHccReleaseEraseVsLookup() {
        VersionedKeys.insert(cache, A, 0, Priority.LOW);
        handle = VersionedKeys.lookup(cache, A);
    }

    @Actor
    public void releaser(LLLL_Result r) {
        r.r1 = Outcomes.release(cache, handle, true);
    }

    @Actor
    public void reader(LLLL_Result r) {
        r.r2 = VersionedKeys.lookupReadRelease(cache, A);
    }

    @Arbiter
    public void arbiter(LLLL_Result r) {
        String seen = VersionedKeys.peek(cache, A);
        String presence = seen == null ? "GONE"
                : seen.equals(VersionedKeys.label(A, 0)) ? "PRESENT" : "PRESENT_" + seen;
        r.r3 = presence + ";E" + cache.entryCount();
        r.r4 = FixedFixture.checkDrainClose(cache, A);
    }
}
