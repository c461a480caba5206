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
 * Test 4b: {@code release(h, eraseIfLastRef = true)} of the only handle to A (version 0) races
 * with {@code erase(A)} followed by {@code insert(A, version 1)}: the situation of the FIXME in
 * RocksDB's {@code FixedHyperClockTable::Release} ("another thread could replace this entry and
 * we end up erasing the wrong one"). Clockwork checks before every CAS that the slot still holds
 * the generation of the releaser's handle and stands down otherwise. (Left open: a newcomer whose
 * meta word equals the released entry's, published between that check and the CAS. Here A_V0's
 * word after the release has counters 3 and A_V1's 2, so the first CAS fails and the retry meets
 * the check.)
 *
 * <p>Result fields: r1 the erasing release, r2 erase's return and the insert's, r3 what a lookup
 * finds at the end and the table entries left, r4 accounting, drain check and close.
 */
@JCStressTest
@Description("The state holds the only handle to A_V0. Actor 1: release(h, eraseIfLastRef). "
        + "Actor 2: erase(A), then insert(A_V1). In every serial order A_V1 survives, because "
        + "actor 1's handle names A_V0. But the releaser first drops its reference (fetch-add) "
        + "and only then CASes the slot to under-construction, retrying with whatever word it "
        + "finds: if actor 2 erases A_V0 and re-inserts A_V1 into the same slot in that window, "
        + "the releaser's retried CAS takes the unreferenced A_V1 and frees it: RocksDB's rare "
        + "availability loss (FIXME in FixedHyperClockTable::Release). Clockwork checks the "
        + "slot's generation before every CAS and stands down, so A_V1 must survive.")
@Outcome(id = "FREED, NOT_FOUND;INSERTED, A_V1;E1, OK", expect = ACCEPTABLE,
        desc = "Release-erase first (freed A_V0), then erase missed and A_V1 was inserted.")
@Outcome(id = "FREED, ERASED;INSERTED, A_V1;E1, OK", expect = ACCEPTABLE,
        desc = "Erase made the referenced A_V0 invisible; the release was its last reference "
                + "and freed it; A_V1 went in before or after that.")
@Outcome(id = "KEPT, ERASED;INSERTED, A_V1;E1, OK", expect = ACCEPTABLE,
        desc = "The release dropped the last reference but erase took ownership first and "
                + "freed A_V0; the releaser's CAS saw a non-shareable word and stood down, or "
                + "(RocksDB's FIXME window) found A_V1's generation in the slot and stood down.")
@Outcome(id = "KEPT, ERASED;INSERTED, A_V1;E2, OK", expect = ACCEPTABLE_INTERESTING,
        desc = "RocksDB's Unref wart: erase saw two references and made A_V0 invisible, the "
                + "release dropped one (not last), erase's own unref dropped the last without "
                + "freeing. A_V1 went into the next slot; A_V0 stays charged until eviction (the "
                + "drain check proves a sweep frees it).")
@Outcome(id = "FREED, ERASED;INSERTED, MISS;E0, OK", expect = FORBIDDEN,
        desc = "RocksDB's FIXME: erase freed A_V0 and A_V1 reused its slot between the "
                + "releaser's fetch-add and CAS; the releaser's CAS loop took the unreferenced "
                + "A_V1 and freed it. Seen 4 times in 1.5 M samples before handles carried "
                + "generations; the generation check before the retried CAS rules it out here.")
@Outcome(id = ".*, .*, A_V0.*, .*", expect = FORBIDDEN,
        desc = "A_V0 was erased (by erase or by the release) but is still findable.")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: a wrong value found, A_V1 missing without the FIXME pattern "
                + "(release FREED, erase ERASED), a refused insert, accounting off (ACCT_*), a "
                + "leftover eviction does not free (STUCK_*), or an exception.")
@State
public class FixedHccReleaseEraseVsReinsert {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
    private final long handle;

    public FixedHccReleaseEraseVsReinsert() {
        VersionedKeys.insert(cache, A, 0, Priority.LOW);
        handle = VersionedKeys.lookup(cache, A);
    }

    @Actor
    public void releaser(LLLL_Result r) {
        r.r1 = Outcomes.release(cache, handle, true);
    }

    @Actor
    public void replacer(LLLL_Result r) {
        try {
            String erased = VersionedKeys.erase(cache, A) ? "ERASED" : "NOT_FOUND";
            String inserted =
                    VersionedKeys.insert(cache, A, 1, Priority.LOW) ? "INSERTED" : "REFUSED";
            r.r2 = erased + ";" + inserted;
        } catch (RuntimeException | Error e) {
            r.r2 = Outcomes.failure(e);
        }
    }

    @Arbiter
    public void arbiter(LLLL_Result r) {
        String seen = VersionedKeys.peek(cache, A);
        r.r3 = (seen == null ? "MISS" : seen) + ";E" + cache.entryCount();
        r.r4 = FixedFixture.checkDrainClose(cache, A);
    }
}
