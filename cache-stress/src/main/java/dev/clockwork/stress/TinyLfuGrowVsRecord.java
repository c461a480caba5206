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
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * An insert grows the sketch (16 entries, then 64: the first charge says the cache holds 64) while
 * another thread fills its buffer with one key's accesses and drains it. Both take the drain lock
 * with a single try: the grow replaces the sketch and the tuner whole, the drain writes into the
 * one it read under the lock. So the buffer lands in the old sketch (lost with it: estimate 0),
 * in the new one (15 counted plus the doorkeeper's bit: 16), or is dropped whole because the grow
 * held the lock; and the grow happens unless the drain held the lock at that instant.
 *
 * <p>r1: the key's estimate afterwards; r2: records dropped; r3: the entries the sketch covers.
 */
@JCStressTest
@Description("An insert that grows the sketch races with a drain into it.")
@Outcome(id = "(0|16), 0, 64", expect = ACCEPTABLE,
        desc = "Grown; the buffer drained into the old sketch (0) or the new one (16).")
@Outcome(id = "0, 16, 64", expect = ACCEPTABLE,
        desc = "Grown while the recorder found the lock taken: its buffer dropped, counted.")
@Outcome(id = "16, 0, 16", expect = ACCEPTABLE,
        desc = "The drain held the lock when the insert tried: no grow (a later insert does it).")
@Outcome(id = ".*", expect = FORBIDDEN,
        desc = "A partial drain or drop, an estimate out of range, a sketch of another size.")
@State
public class TinyLfuGrowVsRecord {
    private static final long KEY = 0x9E37_79B9_7F4A_7C15L;
    private static final long ENTRY_CHARGE = 1024;
    /** 64 entries of the charge: the first guess (4,096 bytes each) makes the sketch 16. */
    private final TinyLfu policy = new TinyLfu(64 * ENTRY_CHARGE, Long.MAX_VALUE, false);

    @Actor
    public void recorder() {
        for (int i = 0; i < 16; i++) {
            policy.recordAccess(KEY, true);
        }
    }

    @Actor
    public void inserter() {
        policy.recordInsert(ENTRY_CHARGE);
    }

    @Arbiter
    public void arbiter(LLL_Result r) {
        r.r1 = policy.frequency(KEY);
        r.r2 = policy.droppedRecords();
        r.r3 = policy.sketchEntries();
    }
}
