package dev.clockwork.stress;

import static dev.clockwork.stress.AutoFixture.A0;
import static dev.clockwork.stress.AutoFixture.A1;
import static dev.clockwork.stress.AutoFixture.A4;
import static dev.clockwork.stress.AutoFixture.A5;
import static dev.clockwork.stress.AutoFixture.B0;
import static dev.clockwork.stress.AutoFixture.B4;
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
 * Two inserts race while the table grows: either both grow it (two threads
 * splitting chains at once, each possibly inserting into a chain the other is splitting), or one
 * grows it while the other inserts into the chain being split.
 *
 * <p>Result fields: r1/r2 the two inserts, r3 the table's slots afterwards ({@code H<n>}:
 * {@code tableSlots()}, which since 94f7a11 is the grow frontier, the homes created or being
 * created; the published length appears as {@code _H} in an ACCT label) and
 * whether any thread had to wait for another (Y0: never; YN: an insert waited for a chain's
 * split lock, or a split for the split that created its chain), r4 the arbiter's checks: every
 * key found with its own bytes, the entry count right, every entry on exactly one chain
 * (chain-walk count = entry count), usage 64 per entry, occupancy within the limit; then erase
 * all (usage back to 0) and close.
 */
public class AutoHccGrowVsInsert {

    @JCStressTest
    @Description("The state holds 3 entries (A4, A0 on home 0, A5 on home 1): the occupancy "
            + "limit of 4 homes. Both actors insert at once (B4 onto home 0's chain, A1 onto "
            + "home 1's): the one that takes occupancy 4 must grow to 6 homes (splitting homes "
            + "0 and 1), the one that takes occupancy 5 to 7 homes (limit 5); growFrontier hands "
            + "them different homes to create, so splits of homes 0, 1, 2 (and more) run in "
            + "parallel and inserts meet locked or freshly split chains. Afterwards all 5 keys "
            + "must be found and the table must allow 5 entries.")
    @Outcome(id = "INSERTED, INSERTED, H7;Y0, OK", expect = ACCEPTABLE,
            desc = "The growths did not overlap (or did without waiting): 7 homes, limit 5.")
    @Outcome(id = "INSERTED, INSERTED, H7;YN, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "7 homes; a thread waited for another (an insert for a split's chain lock, "
                    + "or a split for the split of its parent chain).")
    @Outcome(id = "INSERTED, INSERTED, H([89]|1[0-9]);Y[0N], OK", expect = ACCEPTABLE_INTERESTING,
            desc = "Overshoot: a grower read the occupancy limit while the other thread's split "
                    + "was done but not yet published in the length, and created a home more "
                    + "than needed. Harmless: a slightly longer table.")
    @Outcome(id = "INSERTED, INSERTED, H[0-9]+;Y[0N], ACCT_U320_E5_C4_.*", expect = FORBIDDEN,
            desc = "UNPUBLISHED SPLIT: lookups find all 5 keys (the presence check passed), but a "
                    + "walk of the chains of the published homes finds only 4: a split finished "
                    + "but its home was left out of the table length (its own catchUpLengthInfo "
                    + "gave up on an earlier, unfinished split, and the thread that finished that "
                    + "one published only up to its own home). Entries on that chain are out of "
                    + "reach of eviction sweeps (and of chainReport) until a later grow, or an "
                    + "insert that meets the split parent, publishes it.")
    @Outcome(id = "INSERTED, INSERTED, H[0-9]+;Y[0N], ACCT_U320_E5_C5_S0_P0_L4_H6",
            expect = FORBIDDEN,
            desc = "LENGTH NOT PUBLISHED: all 5 entries are on published chains, but the published "
                    + "length stayed at 6 homes (limit 4 < occupancy 5) although home 6 was "
                    + "created (H = tableSlots() = the grow frontier). The thread that split home "
                    + "2 checked whether the earlier split was ready before that split's heads "
                    + "were visible to it, and the earlier split's thread checked home 6 before "
                    + "the first thread's heads were visible to it: a store-buffering race in "
                    + "catchUpLengthInfo (release stores, acquire loads, no StoreLoad fence), so "
                    + "nobody publishes home 6 until a later grow.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a refused insert, an exception, fewer than 7 homes (a limit "
                    + "below the occupancy), a key not found or with wrong bytes (MISS_x, "
                    + "x_READS_y), an entry lost from or doubled on the chains or a wrong count "
                    + "(ACCT_*), or entries left after erasing all keys (STUCK_*).")
    @State
    public static class TwoSplits {
        static final int[] KEYS = {A4, A0, A5, B4, A1};
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        public TwoSplits() {
            AutoFixture.fill(cache, Priority.LOW, A4, A0, A5);
        }

        @Actor
        public void inserter1(LLLL_Result r) {
            r.r1 = AutoFixture.insertOutcome(cache, B4, Priority.LOW);
        }

        @Actor
        public void inserter2(LLLL_Result r) {
            r.r2 = AutoFixture.insertOutcome(cache, A1, Priority.LOW);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = "H" + cache.tableSlots() + ";" + AutoFixture.yields(cache);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> Outcomes.problems(
                    AutoFixture.present(cache, KEYS),
                    AutoFixture.accounting(cache, 5)), KEYS);
        }
    }

    @JCStressTest
    @Description("The state holds A4 and A0 on home 0's chain. Both actors insert onto that "
            + "chain (B4, B0): the one that takes occupancy 4 grows the table to 6 homes, "
            + "splitting home 0 into 0 and 4 under its lock, before linking its entry; the other "
            + "(occupancy 3) links directly: before the split (its entry is then split with the "
            + "rest), or after it (it meets home 0's head with shift 3 and moves to its half), or "
            + "during it (it finds the head locked and waits). Afterwards all 4 keys must be "
            + "found.")
    @Outcome(id = "INSERTED, INSERTED, H6;Y0, OK", expect = ACCEPTABLE,
            desc = "The direct insert linked before the split locked home 0, or after it ended.")
    @Outcome(id = "INSERTED, INSERTED, H6;YN, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The direct insert found home 0's head locked by the split and waited.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a refused insert, an exception, a table length other than 6 "
                    + "(only one thread needs to grow, and to exactly 6 homes), a key not found "
                    + "or with wrong bytes, an entry lost from or doubled on the chains or a wrong "
                    + "count (ACCT_*), or entries left after erasing all keys (STUCK_*).")
    @State
    public static class SplitVsInsert {
        static final int[] KEYS = {A4, A0, B4, B0};
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

        public SplitVsInsert() {
            AutoFixture.fill(cache, Priority.LOW, A4, A0);
        }

        @Actor
        public void inserter1(LLLL_Result r) {
            r.r1 = AutoFixture.insertOutcome(cache, B4, Priority.LOW);
        }

        @Actor
        public void inserter2(LLLL_Result r) {
            r.r2 = AutoFixture.insertOutcome(cache, B0, Priority.LOW);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            r.r3 = "H" + cache.tableSlots() + ";" + AutoFixture.yields(cache);
            r.r4 = AutoFixture.checkDrainClose(cache, () -> Outcomes.problems(
                    AutoFixture.present(cache, KEYS),
                    AutoFixture.accounting(cache, 4)), KEYS);
        }
    }
}
