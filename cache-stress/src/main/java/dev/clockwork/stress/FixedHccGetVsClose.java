package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.FixedHyperClockCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * A read without a reference ({@code get}) races with {@code close()}, which frees the table and
 * every value.
 *
 * <p>Result fields: r1 what the reader copied, r2 the close.
 */
@JCStressTest
@Description("get(A) races with close(). get holds no reference and enters no gate: it must "
        + "either finish before the memory is freed or fail with IllegalStateException, never "
        + "read freed memory (garbage, a crash) or report a miss for a key that was there.")
@Outcome(id = "A_V0, OK", expect = ACCEPTABLE, desc = "The read finished before close.")
@Outcome(id = "EX_IllegalStateException, OK", expect = ACCEPTABLE,
        desc = "The read met the closed cache and said so.")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: garbage, a wrong length, a miss of a key that was never "
                + "removed, another exception, or a failed close.")
@State
public class FixedHccGetVsClose {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

    public FixedHccGetVsClose() {
        VersionedKeys.insert(cache, A, 0, Priority.LOW);
    }

    @Actor
    public void reader(LL_Result r) {
        r.r1 = VersionedKeys.get(cache, A);
    }

    @Actor
    public void closer(LL_Result r) {
        r.r2 = Outcomes.close(cache);
    }
}
