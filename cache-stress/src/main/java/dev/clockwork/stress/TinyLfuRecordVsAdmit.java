package dev.clockwork.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.offheap.admission.TinyLfu;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZL_Result;

/**
 * An admission decision races with a drain that counts the victim's accesses (and ages the tiny
 * sketch, and may move the window's share). The decision reads the estimates without the lock:
 * it may see the
 * sketch before or after the drain, so it may go either way, but it must complete, and the
 * victim's estimate must stay within the counters' range.
 *
 * <p>r1: whether the never-seen candidate was admitted; r2: the victim's estimate afterwards.
 */
@JCStressTest
@Description("admit(candidate, victim) races with the victim's accesses being drained.")
@Outcome(id = "(true|false), ([0-9]|1[0-6])", expect = ACCEPTABLE,
        desc = "Either decision, an estimate within range.")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "An estimate out of range (a torn counter).")
@State
public class TinyLfuRecordVsAdmit {
    private static final long VICTIM = 0x9E37_79B9_7F4A_7C15L;
    private static final long CANDIDATE = 0xC2B2_AE3D_27D4_EB4FL;
    private final TinyLfu policy = new TinyLfu(1, 1, false);

    @Actor
    public void recorder() {
        for (int i = 0; i < 16; i++) {
            policy.recordAccess(VICTIM, true);
        }
    }

    @Actor
    public void admitter(ZL_Result r) {
        r.r1 = policy.admit(CANDIDATE, VICTIM);
    }

    @Arbiter
    public void arbiter(ZL_Result r) {
        r.r2 = policy.frequency(VICTIM);
    }
}
