package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.K3;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.FixedHyperClockCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * The default configuration, TinyLFU admission, on a HyperClock table: a lookup's hit is told to
 * TinyLFU by the table (the reference's add returned the entry's release count), while an insert's
 * sweep asks TinyLFU whether the new key may displace that same entry. Telling and asking share
 * the policy's buffers and sketch without a lock on the hit path, so the race must cost at most a
 * skewed decision: never a pinned entry evicted, another key's bytes, a lost entry or charge.
 */
public class DefaultAdmissionVsLookup {

    /**
     * Result fields: r1 what the reader saw, r2 the writer's inserts (all accepted, or how many
     * TinyLFU refused), r3 whether A is still in the cache at the end, r4 accounting and close.
     */
    @JCStressTest
    @Description("Two lookups + reads + releases of A race with inserts of K1, K2, K3 into a "
            + "cache built with the default TinyLFU admission (one shard, 4 slots, room for 2 "
            + "entries of charge 64, starting with A and P). Each insert must evict; TinyLFU may "
            + "refuse it. Whatever it decides, a pinned A keeps its bytes and is not evicted, and "
            + "the accounting adds up.")
    @Outcome(id = "HIT_A, (INSERTED|REFUSED[123]), A_(GONE|PRESENT), OK", expect = ACCEPTABLE,
            desc = "The reader found A both times and read A's bytes; the inserts were accepted "
                    + "or refused by TinyLFU, A evicted after the release or kept.")
    @Outcome(id = "MISS, (INSERTED|REFUSED[123]), A_GONE, OK", expect = ACCEPTABLE,
            desc = "An insert evicted A before a lookup: a clean miss.")
    @Outcome(id = "HIT_A_THEN_MISS, (INSERTED|REFUSED[123]), A_GONE, OK",
            expect = ACCEPTABLE_INTERESTING,
            desc = "A was evicted between the two lookups, after the first one's release.")
    @Outcome(id = "HIT_(?!A[,_]).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-EVICT: a pinned handle to A read bytes that are not A's.")
    @Outcome(id = "MISS, .*, A_PRESENT, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: A was never removed, so the first lookup must have found it.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: an exception (EX_*), A's bytes wrong at the end, or accounting "
                    + "that does not add up (ACCT_*).")
    @State
    public static class Fixed {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_2,
                AdmissionPolicy.TINY_LFU);

        public Fixed() {
            VersionedKeys.insert(cache, A, 0, Priority.BOTTOM);
            VersionedKeys.insert(cache, P, 0, Priority.BOTTOM);
        }

        @Actor
        public void reader(LLLL_Result r) {
            try {
                String first = FixedFixture.readA(cache);
                String second = FixedFixture.readA(cache);
                r.r1 = first.equals(second) ? first : first + "_THEN_" + second;
            } catch (RuntimeException | Error e) {
                r.r1 = Outcomes.failure(e);
            }
        }

        @Actor
        public void writer(LLLL_Result r) {
            r.r2 = VersionedKeys.insertAll(cache, K1, K3);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            FixedFixture.arbitrateA(cache, r);
        }
    }
}
