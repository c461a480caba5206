package dev.clockwork.stress;

import static dev.clockwork.stress.AutoFixture.A0;
import static dev.clockwork.stress.AutoFixture.A4;
import static dev.clockwork.stress.AutoFixture.B4;
import static dev.clockwork.stress.AutoFixture.C0;
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
 * A lock-free lookup of a resident key races with the split of its chain.
 *
 * <p>The state (see {@link AutoFixture} for sizes and key names) holds A4, A0, B4, inserted in
 * that order into slots 0, 1, 2, all on home 0's chain, which reads from the head
 * {@code B4 -> A0 -> A4 -> end(0)}. The inserter adds C0, the 4th entry: before linking it, the
 * inserting thread grows the table from 4 to 6 homes, splitting home 0 into 0 ({@code A0}) and 4
 * ({@code B4 -> A4}) — every link of the old chain is rewritten (B4 is made to skip A0, A0 to
 * end the zero half, A4 to end the one half) while the reader walks it — and then home 1 (empty).
 * The reader looks up one pre-filled key, reads its value and releases it.
 *
 * <p>Result fields: r1 the inserter, r2 the reader, r3 whether the reader restarted a walk (R0:
 * never, RN: at least once; only the reader looks up during the race), r4 the arbiter's checks:
 * all four keys found with their own bytes, 4 entries all on chains, usage 4 x 64, 6 homes with
 * occupancy limit 4, then erase all (usage back to 0) and close.
 */
public class AutoHccGrowVsLookup {

    static final int[] KEYS = {A4, A0, B4, C0};

    abstract static class Base {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        Base() {
            AutoFixture.fill(cache, Priority.LOW, A4, A0, B4);
        }

        void insert(LLLL_Result r) {
            r.r1 = AutoFixture.insertOutcome(cache, C0, Priority.LOW);
        }

        void arbiter(LLLL_Result r) {
            r.r3 = AutoFixture.restarts(cache);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> Outcomes.problems(
                    AutoFixture.present(cache, KEYS),
                    AutoFixture.accounting(cache, 4),
                    cache.tableSlots() == 6 && cache.occupancyLimit() == 4 ? "OK"
                            : "H" + cache.tableSlots() + "_L" + cache.occupancyLimit()), KEYS);
        }
    }

    @JCStressTest
    @Description("Lookup of A4 (the tail of home 0's chain; the split moves it to home 4) races "
            + "with the insert of C0, which splits home 0. A4 is resident throughout, so the "
            + "lookup must find it and read A4's bytes, whichever intermediate state of the "
            + "split it walks through.")
    @Outcome(id = "INSERTED, HIT, R0, OK", expect = ACCEPTABLE,
            desc = "The walk went straight to A4: before the split, after it (it read the new "
                    + "length, or met home 0's head with shift 3 and moved to home 4), or through "
                    + "an intermediate state whose links it could still follow.")
    @Outcome(id = "INSERTED, HIT, RN, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The walk met a link whose shift had been raised under it (or wandered off "
                    + "its chain), restarted from its head and then found A4.")
    @Outcome(id = ".*, MISS, .*, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: A4 was resident all along; the split hid it from the lookup.")
    @Outcome(id = ".*, HIT_.*, .*, .*", expect = FORBIDDEN,
            desc = "WRONG VALUE: the handle read bytes that are not A4's (another key, garbage, "
                    + "or A4 freed: HIT_FREED).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: an exception (EX_*), a refused insert, a key missing or "
                    + "reading wrong bytes afterwards (MISS_x, x_READS_y), accounting off (ACCT_*: "
                    + "an entry lost from or doubled on the chains shows as C != E), the wrong "
                    + "table length (H*_L*), or entries left after erasing all keys (STUCK_*).")
    @State
    public static class Moved extends Base {
        @Actor
        public void inserter(LLLL_Result r) {
            insert(r);
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r2 = AutoFixture.lookupReadRelease(cache, A4);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    @JCStressTest
    @Description("Lookup of A0 (the middle of home 0's chain; the split keeps it at home 0, but "
            + "the head B4 in front of it moves to home 4 and B4's link is rewritten to skip "
            + "it) races with the insert of C0, which splits home 0. A0 is resident throughout, "
            + "so the lookup must find it and read A0's bytes.")
    @Outcome(id = "INSERTED, HIT, R0, OK", expect = ACCEPTABLE,
            desc = "The walk went straight to A0 (before, after or through the split).")
    @Outcome(id = "INSERTED, HIT, RN, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The walk met a link whose shift had been raised under it (B4 re-pointed "
                    + "past A0 to A4 with shift 3), restarted from its head and found A0.")
    @Outcome(id = ".*, MISS, .*, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: A0 was resident all along; the split hid it from the lookup.")
    @Outcome(id = ".*, HIT_.*, .*, .*", expect = FORBIDDEN,
            desc = "WRONG VALUE: the handle read bytes that are not A0's.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: an exception, a refused insert, a key missing or wrong "
                    + "afterwards, accounting off (ACCT_*), the wrong table length (H*_L*), or "
                    + "entries left after erasing all keys (STUCK_*).")
    @State
    public static class Kept extends Base {
        @Actor
        public void inserter(LLLL_Result r) {
            insert(r);
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r2 = AutoFixture.lookupReadRelease(cache, A0);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }
}
