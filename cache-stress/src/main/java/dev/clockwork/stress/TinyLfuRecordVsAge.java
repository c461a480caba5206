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
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * Two threads record accesses into one TinyLFU policy at once, each filling its buffer and
 * draining it into the sketch, whose sample is so small (ten events) that every drain ages it.
 * The sketch has one writer at a time (the drain lock): the loser of the lock drops its buffer
 * and counts the drop, and a counter is never torn, so every estimate stays within 0..16 and the
 * records are either counted or dropped whole.
 *
 * <p>r1: the key's estimate afterwards; r2: records dropped (a multiple of a buffer).
 */
@JCStressTest
@Description("Two recorders race to drain into a sketch that ages on every drain.")
@Outcome(id = "([0-9]|1[0-6]), (0|16|32)", expect = ACCEPTABLE,
        desc = "Estimates within the counters' range; drops whole buffers, counted.")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "A torn counter (estimate out of range) or a partly dropped buffer.")
@State
public class TinyLfuRecordVsAge {
    private static final long KEY = 0x9E37_79B9_7F4A_7C15L;
    private final TinyLfu policy = new TinyLfu(1, 1, false);

    @Actor
    public void recorder1() {
        for (int i = 0; i < 16; i++) {
            policy.recordAccess(KEY, i % 2 == 0);
        }
    }

    @Actor
    public void recorder2() {
        for (int i = 0; i < 16; i++) {
            policy.recordAccess(KEY, false);
        }
    }

    @Arbiter
    public void arbiter(LL_Result r) {
        r.r1 = policy.frequency(KEY);
        r.r2 = policy.droppedRecords();
    }
}
