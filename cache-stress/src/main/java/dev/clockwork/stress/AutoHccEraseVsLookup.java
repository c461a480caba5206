package dev.clockwork.stress;

import static dev.clockwork.stress.AutoFixture.A1;
import static dev.clockwork.stress.AutoFixture.A2;
import static dev.clockwork.stress.AutoFixture.B1;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AutoHyperClockCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * Auto test 3: erasing an entry unlinks it from its chain while a lock-free lookup walks through
 * it to a neighbour further down the same chain.
 *
 * <p>The state holds B1 then A1, both with home 1 (4 homes, no growth in this test): B1 in slot
 * 1, A1 in slot 2 (B1's home slot was taken), and home 1's chain reads {@code A1 -> B1 -> end(1)}.
 * The reader looks up B1, which is behind the erased A1.
 *
 * <p>Result fields: r1 the eraser, r2 the reader, r3 whether the reader restarted a walk (R0/RN;
 * only the reader looks up during the race), r4 the arbiter's checks: A1 gone, the others found
 * with their own bytes, the entry count, every entry on a chain, usage 64 per entry; then erase
 * all (usage back to 0) and close.
 */
public class AutoHccEraseVsLookup {

    @JCStressTest
    @Description("erase(A1) (the head of home 1's chain) races with lookup(B1) + read + release "
            + "(the entry behind it). Erase locks the chain, points the head past A1 at B1, "
            + "unlocks and frees A1; a reader that already stepped onto A1 follows A1's link, "
            + "which still leads to B1. B1 is resident throughout: the lookup must always hit.")
    @Outcome(id = "ERASED, HIT, R0, OK", expect = ACCEPTABLE,
            desc = "The reader reached B1 through the old head and A1, or through the new head.")
    @Outcome(id = "ERASED, HIT, RN, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The reader noticed a change under it (restart) and then found B1.")
    @Outcome(id = ".*, MISS, .*, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: unlinking A1 hid its neighbour B1 from the lookup.")
    @Outcome(id = ".*, HIT_.*, .*, .*", expect = FORBIDDEN,
            desc = "WRONG VALUE: the handle read bytes that are not B1's (or the plain release "
                    + "freed B1: HIT_FREED).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: erase missed A1 (NOT_FOUND), an exception, A1 still findable "
                    + "(FOUND_A1), B1 missing or wrong afterwards, accounting off (ACCT_*), or "
                    + "entries left after erasing all keys (STUCK_*).")
    @State
    public static class Front {
        static final int[] KEYS = {B1, A1};
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        public Front() {
            AutoFixture.fill(cache, Priority.LOW, B1, A1);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            try {
                r.r1 = AutoFixture.erase(cache, A1) ? "ERASED" : "NOT_FOUND";
            } catch (RuntimeException | Error e) {
                r.r1 = Outcomes.failure(e);
            }
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r2 = AutoFixture.lookupReadRelease(cache, B1);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = AutoFixture.restarts(cache);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> Outcomes.problems(
                    AutoFixture.absent(cache, A1),
                    AutoFixture.present(cache, B1),
                    AutoFixture.accounting(cache, 1)), KEYS);
        }
    }

    @JCStressTest
    @Description("erase(A1) then insert(A2) races with lookup(B1) + read + release. A2's home is "
            + "2, which is slot 2: the slot A1 just left. So a reader standing on slot 2 may "
            + "find A2's key (another home: it wandered off) or A2's link (the end of chain 2, "
            + "not of chain 1) there; either way it must notice and restart, never report a "
            + "miss. B1 is resident throughout: the lookup must always hit.")
    @Outcome(id = "ERASED;INSERTED, HIT, R0, OK", expect = ACCEPTABLE,
            desc = "The reader reached B1 before slot 2 was reused, or through the new head.")
    @Outcome(id = "ERASED;INSERTED, HIT, RN, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The reader was on slot 2 when A2 took it over, noticed that it had left "
                    + "chain 1 (a key of home 2, or the end of chain 2), restarted and found B1.")
    @Outcome(id = ".*, MISS, .*, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: the reader followed the reused slot onto chain 2 and took "
                    + "its end for the end of chain 1, or unlinking A1 hid B1.")
    @Outcome(id = ".*, HIT_.*, .*, .*", expect = FORBIDDEN,
            desc = "WRONG VALUE: the handle read bytes that are not B1's.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: erase missed A1, A2 refused, an exception, A1 still findable, "
                    + "B1 or A2 missing or wrong afterwards, accounting off (ACCT_*), or entries "
                    + "left after erasing all keys (STUCK_*).")
    @State
    public static class Reuse {
        static final int[] KEYS = {B1, A1, A2};
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        public Reuse() {
            AutoFixture.fill(cache, Priority.LOW, B1, A1);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            try {
                String erased = AutoFixture.erase(cache, A1) ? "ERASED" : "NOT_FOUND";
                r.r1 = erased + ";" + AutoFixture.insertOutcome(cache, A2, Priority.LOW);
            } catch (RuntimeException | Error e) {
                r.r1 = Outcomes.failure(e);
            }
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r2 = AutoFixture.lookupReadRelease(cache, B1);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = AutoFixture.restarts(cache);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> Outcomes.problems(
                    AutoFixture.absent(cache, A1),
                    AutoFixture.present(cache, B1, A2),
                    AutoFixture.accounting(cache, 2)), KEYS);
        }
    }
}
