package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.K3;
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
 * Reads without a reference race with inserts that evict their entry and reuse its slot and its
 * value's memory: {@link Copy} copies the value out ({@code get}), {@link InPlace} reads it in
 * place with a callback ({@code read}). The cache (one shard, 4 slots, room for 2 entries of
 * charge 64) starts with A and P, both BOTTOM priority; the evictor inserts K1, K2, K3, so A is
 * evicted and its slot and value memory handed to a newcomer while the reader may be reading.
 *
 * <p>Result fields: r1 what the reader got (the label of the bytes it names), r2 whether the
 * evictor's inserts were accepted, r3 whether A is still in the cache at the end, r4 accounting
 * and close.
 */
public class FixedHccGetVsEviction {

    /** The cache, the evictor and the arbiter both tests share. */
    public abstract static class Base {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_2);

        Base() {
            VersionedKeys.insert(cache, A, 0, Priority.BOTTOM);
            VersionedKeys.insert(cache, P, 0, Priority.BOTTOM);
        }

        void evict(LLLL_Result r) {
            r.r2 = VersionedKeys.insertAll(cache, K1, K3);
        }

        void arbitrate(LLLL_Result r) {
            String seen = VersionedKeys.peek(cache, A);
            r.r3 = seen == null ? "A_GONE"
                    : seen.equals(VersionedKeys.label(A, 0)) ? "A_PRESENT" : "A_READS_" + seen;
            String acct;
            try {
                acct = FixedFixture.accounting(cache);
            } catch (RuntimeException | Error e) {
                acct = Outcomes.failure(e);
            }
            r.r4 = Outcomes.problems(acct, Outcomes.close(cache));
        }
    }

    @JCStressTest
    @Description("get(A) races with inserts that must evict A and reuse its slot and value "
            + "memory. get takes no reference, so nothing keeps A: the copy must be validated "
            + "afterwards and either be A's bytes or be retried (then a miss).")
    @Outcome(id = "A_V0, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
            desc = "The reader copied A's bytes before eviction freed A.")
    @Outcome(id = "MISS, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
            desc = "Eviction removed A before the read: a clean miss.")
    @Outcome(id = "A_V0, INSERTED, A_PRESENT, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The read marked A used before the sweeps reached it, and A survived them.")
    @Outcome(id = "(?!A_V0|MISS).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "TORN OR FOREIGN READ: the reader returned bytes that are not A's (a "
                    + "newcomer's value, garbage, a wrong length) or threw.")
    @Outcome(id = "MISS, .*, A_PRESENT, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: A was never removed, so the read must have found it.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a refused insert, A's bytes wrong at the end, or accounting "
                    + "that does not add up (a read without a reference must leave none behind).")
    @State
    public static class Copy extends Base {
        @Actor
        public void reader(LLLL_Result r) {
            r.r1 = VersionedKeys.get(cache, A);
        }

        @Actor
        public void evictor(LLLL_Result r) {
            evict(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            arbitrate(r);
        }
    }

    @JCStressTest
    @Description("read(A), a callback on A's value in place, races with inserts that must evict "
            + "A and reuse its slot and value memory. read takes no reference, so nothing keeps "
            + "A: the callback's result must be validated afterwards and either name A's bytes "
            + "or be thrown away and the callback run again (then a miss).")
    @Outcome(id = "A_V0, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
            desc = "The callback read A's bytes before eviction freed A.")
    @Outcome(id = "MISS, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
            desc = "Eviction removed A before the read: a clean miss.")
    @Outcome(id = "A_V0, INSERTED, A_PRESENT, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The read marked A used before the sweeps reached it, and A survived them.")
    @Outcome(id = "(?!A_V0|MISS).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "TORN OR FOREIGN READ: the caller got a result from bytes that are not A's (a "
                    + "newcomer's value, garbage, a wrong length) or an exception.")
    @Outcome(id = "MISS, .*, A_PRESENT, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: A was never removed, so the read must have found it.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a refused insert, A's bytes wrong at the end, or accounting "
                    + "that does not add up (a read without a reference must leave none behind).")
    @State
    public static class InPlace extends Base {
        @Actor
        public void reader(LLLL_Result r) {
            r.r1 = VersionedKeys.readInPlace(cache, A);
        }

        @Actor
        public void evictor(LLLL_Result r) {
            evict(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            arbitrate(r);
        }
    }
}
