package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.FixedHyperClockCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * A read without a reference ({@code get}) races with an erase of its entry, an insert of
 * another key that takes the freed slot and value memory, and a new version of its own key.
 *
 * <p>Result fields: r1 what the reader copied, r2 what the writer did, r3 the final state's
 * checks and close.
 */
@JCStressTest
@Description("get(A) races with erase(A), insert(K1), insert(A version 1). The erase frees A at "
        + "once (nothing holds it), so K1 most likely takes A's slot and A's value block, and A's "
        + "new version another slot. The reader must return one of A's versions or a miss, never "
        + "K1's bytes, a mix, or garbage.")
@Outcome(id = "A_V0, ERASED;INSERTED;INSERTED, OK", expect = ACCEPTABLE,
        desc = "The read came before the erase.")
@Outcome(id = "MISS, ERASED;INSERTED;INSERTED, OK", expect = ACCEPTABLE,
        desc = "The read came between the erase and A's new version.")
@Outcome(id = "A_V1, ERASED;INSERTED;INSERTED, OK", expect = ACCEPTABLE,
        desc = "The read came after A's new version was inserted.")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: another key's bytes (K1_V0), garbage, a wrong length, an "
                + "exception, or a final state that does not add up.")
@State
public class FixedHccGetVsReinsert {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

    public FixedHccGetVsReinsert() {
        VersionedKeys.insert(cache, A, 0, Priority.LOW);
    }

    @Actor
    public void reader(LLL_Result r) {
        r.r1 = VersionedKeys.get(cache, A);
    }

    @Actor
    public void writer(LLL_Result r) {
        String erased = VersionedKeys.eraseOutcome(cache, A);
        String k1;
        String a1;
        try {
            k1 = VersionedKeys.insert(cache, K1, 0, Priority.LOW) ? "INSERTED" : "REFUSED";
            a1 = VersionedKeys.insert(cache, A, 1, Priority.LOW) ? "INSERTED" : "REFUSED";
        } catch (RuntimeException | Error e) {
            k1 = Outcomes.failure(e);
            a1 = "";
        }
        r.r2 = erased + ";" + k1 + ";" + a1;
    }

    @Arbiter
    public void arbiter(LLL_Result r) {
        String a = VersionedKeys.peek(cache, A);
        String k1 = VersionedKeys.peek(cache, K1);
        String state = VersionedKeys.label(A, 1).equals(a) && VersionedKeys.label(K1, 0).equals(k1)
                ? "OK" : "FINAL_A_" + a + ";K1_" + k1;
        String acct;
        try {
            acct = FixedFixture.accounting(cache);
        } catch (RuntimeException | Error e) {
            acct = Outcomes.failure(e);
        }
        r.r3 = Outcomes.problems(state, acct, Outcomes.close(cache));
    }
}
