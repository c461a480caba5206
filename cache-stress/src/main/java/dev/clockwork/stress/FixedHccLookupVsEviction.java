package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.K3;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
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
 * Test 1: a reader pins, reads and releases an entry while a writer's inserts evict.
 *
 * <p>Result fields: r1 what the reader saw, r2 whether the writer's inserts were accepted, r3
 * whether A is still in the cache at the end, r4 accounting and close.
 */
@JCStressTest
@Description("Lookup + read + release of key A races with inserts that must evict. The cache "
        + "(one shard, 4 slots, room for 2 entries of charge 64) starts with A and P, both "
        + "BOTTOM priority; the writer inserts K1, K2, K3, so the first insert already has to "
        + "evict, and an unpinned A goes in its first or second clock sweep. A pinned entry must "
        + "never be evicted: while the reader holds A its value must stay A's bytes.")
@Outcome(id = "HIT_A, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
        desc = "The reader found A and read A's bytes; eviction freed A only after the release "
                + "(or A was pinned during one sweep and evicted by a later insert).")
@Outcome(id = "MISS, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
        desc = "Eviction removed A before the lookup: a clean miss.")
@Outcome(id = "HIT_A, INSERTED, A_PRESENT, OK", expect = ACCEPTABLE_INTERESTING,
        desc = "A was pinned while the sweeps passed over it, so they evicted the other entries "
                + "instead and A survived (pinned entries are skipped, not evicted).")
@Outcome(id = "HIT_(?!A,).*, .*, .*, .*", expect = FORBIDDEN,
        desc = "USE-AFTER-EVICT: the reader held a pinned handle to A but read bytes that are "
                + "not A's (another key's value, garbage, or a wrong length).")
@Outcome(id = "MISS, .*, A_PRESENT, .*", expect = FORBIDDEN,
        desc = "SPURIOUS MISS: A was never removed (it is still there at the end) and sits at "
                + "its first probe slot, so the lookup must have found it.")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: an exception (EX_*), a refused insert, A's bytes wrong at the "
                + "end, or accounting that does not add up (ACCT_*: usage must be 256 bytes of "
                + "slots + 64 per entry, nothing pinned or standalone).")
@State
public class FixedHccLookupVsEviction {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_2);

    public FixedHccLookupVsEviction() {
        VersionedKeys.insert(cache, A, 0, Priority.BOTTOM);
        VersionedKeys.insert(cache, P, 0, Priority.BOTTOM);
    }

    @Actor
    public void reader(LLLL_Result r) {
        try {
            long h = VersionedKeys.lookup(cache, A);
            if (h == Cache.MISS) {
                r.r1 = "MISS";
                return;
            }
            String seen = VersionedKeys.read(cache, h);
            cache.release(h);
            r.r1 = "HIT_" + (seen.equals(VersionedKeys.label(A, 0)) ? "A" : seen);
        } catch (RuntimeException | Error e) {
            r.r1 = Outcomes.failure(e);
        }
    }

    @Actor
    public void evictor(LLLL_Result r) {
        r.r2 = VersionedKeys.insertAll(cache, K1, K3);
    }

    @Arbiter
    public void arbiter(LLLL_Result r) {
        String acct;
        try {
            long h = VersionedKeys.lookup(cache, A);
            if (h == Cache.MISS) {
                r.r3 = "A_GONE";
            } else {
                String seen = VersionedKeys.read(cache, h);
                cache.release(h);
                r.r3 = seen.equals(VersionedKeys.label(A, 0)) ? "A_PRESENT" : "A_READS_" + seen;
            }
            acct = FixedFixture.accounting(cache);
        } catch (RuntimeException | Error e) {
            acct = Outcomes.failure(e);
        }
        r.r4 = Outcomes.problems(acct, Outcomes.close(cache));
    }
}
