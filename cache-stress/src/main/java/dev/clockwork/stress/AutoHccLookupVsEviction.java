package dev.clockwork.stress;

import static dev.clockwork.stress.AutoFixture.A0;
import static dev.clockwork.stress.AutoFixture.A4;
import static dev.clockwork.stress.AutoFixture.B0;
import static dev.clockwork.stress.AutoFixture.B4;
import static dev.clockwork.stress.AutoFixture.C0;
import static dev.clockwork.stress.AutoFixture.C4;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
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
 * Auto test 4: a pinned entry is read while inserts into a full cache evict (and grow) around it.
 *
 * <p>The state fills a cache with room for exactly 3 entries (capacity 192, charge 64, no
 * metadata charge) with A4, A0, B0, all BOTTOM priority and all on home 0's chain
 * ({@code B0 -> A0 -> A4}). The evictor inserts C4, C0, B4 (BOTTOM, also home 0 or 4): the first
 * grows the table to 6 homes (splitting home 0, so A4 moves to home 4) and every one that does
 * not fit makes a clock sweep over all homes that locks each chain, unlinks what it takes and
 * frees it after unlocking. A pinned entry must be skipped by every sweep.
 *
 * <p>Result fields: r1 the reader, r2 the evictor, r3 the arbiter's view of A4, r4 the arbiter's
 * checks: accounting with no handle held (usage 64 per entry, every entry on a chain, nothing
 * pinned or standalone), usage within capacity; then erase all keys (usage back to 0) and close.
 */
public class AutoHccLookupVsEviction {

    static final int[] KEYS = {A4, A0, B0, C4, C0, B4};

    abstract static class Base {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_3);

        Base() {
            AutoFixture.fill(cache, Priority.BOTTOM, A4, A0, B0);
        }

        void evict(LLLL_Result r) {
            int refused = 0;
            try {
                for (int key : new int[] {C4, C0, B4}) {
                    if (!AutoFixture.insert(cache, key, Priority.BOTTOM)) {
                        refused++;
                    }
                }
                r.r2 = refused == 0 ? "INSERTED" : "REFUSED" + refused;
            } catch (RuntimeException | Error e) {
                r.r2 = Outcomes.failure(e);
            }
        }

        /** The arbiter of the unpinned readers: A4 present or gone, then the checks and close. */
        void arbitrate(LLLL_Result r) {
            try {
                String seen = AutoFixture.peek(cache, A4);
                r.r3 = seen == null ? "A_GONE" : seen.equals("A4") ? "A_PRESENT" : "A_READS_" + seen;
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = AutoFixture.checkDrainClose(cache, this::checks, KEYS);
        }

        String checks() {
            long usage = cache.usage();
            return Outcomes.problems(AutoFixture.accounting(cache, -1),
                    usage <= AutoFixture.ROOM_3 ? "OK" : "OVER_U" + usage);
        }
    }

    @JCStressTest
    @Description("The state holds a handle to A4 (pinned from before the race). The reader reads "
            + "A4's value 16 times while the evictor's 3 inserts force evictions and a split of "
            + "A4's chain. Every read must return A4's bytes (key words and stamp); afterwards "
            + "the handle still reads A4, its release does not free it, and A4 is still in the "
            + "cache (pinned entries are skipped, never evicted).")
    @Outcome(id = "STABLE, INSERTED, A4;KEPT;PRESENT, OK", expect = ACCEPTABLE,
            desc = "Every read saw A4's bytes; the sweeps took the other entries; releasing the "
                    + "handle left A4 in the cache.")
    @Outcome(id = "(?!STABLE,).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-FREE: a read through the pinned handle returned other bytes (the "
                    + "label of what was read: another key's value, GARBAGE, LEN<n>) or threw.")
    @Outcome(id = ".*, .*, (?!A4;).*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-FREE: after the race the pinned handle reads other bytes.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the release freed A4 (FREED: it had been erased or evicted "
                    + "while pinned) or A4 is gone (GONE), a refused insert, accounting off "
                    + "(ACCT_*), usage over capacity (OVER_*), entries left after erasing all "
                    + "keys (STUCK_*), or an exception.")
    @State
    public static class Pinned extends Base {
        static final int READS = 16;
        final long handle;

        public Pinned() {
            handle = AutoFixture.lookup(cache, A4);
        }

        @Actor
        public void reader(LLLL_Result r) {
            try {
                if (handle == Cache.MISS) {
                    r.r1 = "SETUP_MISS";
                    return;
                }
                String bad = null;
                for (int i = 0; i < READS && bad == null; i++) {
                    String seen = AutoFixture.read(cache, handle);
                    if (!seen.equals(AutoFixture.name(A4))) {
                        bad = "READ" + i + "_" + seen;
                    }
                }
                r.r1 = bad == null ? "STABLE" : bad;
            } catch (RuntimeException | Error e) {
                r.r1 = Outcomes.failure(e);
            }
        }

        @Actor
        public void evictor(LLLL_Result r) {
            evict(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                String seen = AutoFixture.read(cache, handle);
                String released = cache.release(handle) ? "FREED" : "KEPT";
                String again = AutoFixture.peek(cache, A4);
                r.r3 = seen + ";" + released + ";"
                        + (again == null ? "GONE" : again.equals("A4") ? "PRESENT" : "READS_" + again);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = AutoFixture.checkDrainClose(cache, this::checks, KEYS);
        }
    }

    @JCStressTest
    @Description("Lookup + read + release of A4 races with the evictor's 3 inserts, which grow "
            + "the table (moving A4 to home 4) and evict: an unpinned A4 goes in the first "
            + "insert's second sweep (BOTTOM entries: the first sweep counts them down to 0). A "
            + "hit must read A4's bytes; a miss is fine only if A4 was evicted.")
    @Outcome(id = "HIT, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
            desc = "The reader found A4 and read its bytes; eviction took A4 after the release.")
    @Outcome(id = "MISS, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
            desc = "Eviction took A4 before the lookup: a clean miss.")
    @Outcome(id = "HIT, INSERTED, A_PRESENT, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "A4 was pinned by the reader whenever a sweep reached it, so the sweeps took "
                    + "the other entries and A4 survived.")
    @Outcome(id = "HIT_.*, .*, .*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-EVICT: the reader held a reference to A4 but read other bytes (or "
                    + "its plain release freed the entry: HIT_FREED).")
    @Outcome(id = "MISS, .*, A_PRESENT, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: A4 was never removed (it is there at the end), yet the "
                    + "lookup, racing the split and the sweeps, did not find it.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: an exception, a refused insert, A4 reading other bytes at the "
                    + "end (A_READS_*), accounting off (ACCT_*), usage over capacity (OVER_*), or "
                    + "entries left after erasing all keys (STUCK_*).")
    @State
    public static class Lookup extends Base {
        @Actor
        public void reader(LLLL_Result r) {
            r.r1 = AutoFixture.lookupReadRelease(cache, A4);
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
    @Description("get(A4), a read that takes no reference, races with the evictor's 3 inserts, "
            + "which grow the table (moving A4 to home 4), evict A4 and hand its slot and value "
            + "memory to newcomers. The copy is validated by A4's stamp afterwards: it must be "
            + "A4's bytes, or be retried, and a miss is fine only if A4 was evicted.")
    @Outcome(id = "HIT, INSERTED, A_(GONE|PRESENT), OK", expect = ACCEPTABLE,
            desc = "The reader copied A4's bytes (before eviction took it, or it survived).")
    @Outcome(id = "MISS, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
            desc = "Eviction took A4 before the read: a clean miss.")
    @Outcome(id = "HIT_.*, .*, .*, .*", expect = FORBIDDEN,
            desc = "TORN OR FOREIGN READ: the copy returned bytes that are not A4's.")
    @Outcome(id = "MISS, .*, A_PRESENT, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: A4 was never removed, yet the read did not find it.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: an exception, a refused insert, A4 reading other bytes at the "
                    + "end, accounting off (a read without a reference leaves none behind), "
                    + "usage over capacity, or entries left after erasing all keys.")
    @State
    public static class Get extends Base {
        @Actor
        public void reader(LLLL_Result r) {
            r.r1 = AutoFixture.get(cache, A4);
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
