package dev.clockwork.stress;

import static dev.clockwork.stress.AutoFixture.A0;
import static dev.clockwork.stress.AutoFixture.A4;
import static dev.clockwork.stress.AutoFixture.B0;
import static dev.clockwork.stress.AutoFixture.B4;
import static dev.clockwork.stress.AutoFixture.C0;
import static dev.clockwork.stress.AutoFixture.C4;
import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.K3;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.LruCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * A pinned, looked-up or copied entry read while inserts force eviction, in each cache type: the
 * bytes must not change under a pin, a pinned entry must not be evicted, and a miss must mean the
 * entry was really removed. Test classes are named by case and type ({@code LookupFixed},
 * {@code PinnedAuto}, ...).
 */
public class LookupVsEviction {

    /**
     * A reader pins, reads and releases an entry while a writer's inserts evict.
     *
     * <p>Result fields: r1 what the reader saw, r2 whether the writer's inserts were accepted, r3
     * whether A is still in the cache at the end, r4 accounting and close.
     */
    @JCStressTest
    @Description("Lookup + read + release of key A races with inserts that must evict. The cache "
            + "(one shard, 4 slots, room for 2 entries of charge 64) starts with A and P, both "
            + "BOTTOM priority; the writer inserts K1, K2, K3, so the first insert already has to "
            + "evict, and an unpinned A goes in its first or second clock sweep. A pinned entry "
            + "must never be evicted: while the reader holds A its value must stay A's bytes.")
    @Outcome(id = "HIT_A, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
            desc = "The reader found A and read A's bytes; eviction freed A only after the release "
                    + "(or A was pinned during one sweep and evicted by a later insert).")
    @Outcome(id = "MISS, INSERTED, A_GONE, OK", expect = ACCEPTABLE,
            desc = "Eviction removed A before the lookup: a clean miss.")
    @Outcome(id = "HIT_A, INSERTED, A_PRESENT, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "A was pinned while the sweeps passed over it, so they evicted the other "
                    + "entries instead and A survived (pinned entries are skipped, not evicted).")
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
    public static class LookupFixed {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_2);

        public LookupFixed() {
            VersionedKeys.insert(cache, A, 0, Priority.BOTTOM);
            VersionedKeys.insert(cache, P, 0, Priority.BOTTOM);
        }

        @Actor
        public void reader(LLLL_Result r) {
            try {
                r.r1 = FixedFixture.readA(cache);
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
            FixedFixture.arbitrateA(cache, r);
        }
    }

    /*
     * A pinned entry is read while inserts into a full cache evict (and grow) around
     * it.
     *
     * <p>The state fills a cache with room for exactly 3 entries (capacity 192, charge 64, no
     * metadata charge) with A4, A0, B0, all BOTTOM priority and all on home 0's chain ({@code B0 ->
     * A0 -> A4}). The evictor inserts C4, C0, B4 (BOTTOM, also home 0 or 4): the first grows the
     * table to 6 homes (splitting home 0, so A4 moves to home 4) and every one that does not fit
     * makes a clock sweep over all homes that locks each chain, unlinks what it takes and frees it
     * after unlocking. A pinned entry must be skipped by every sweep.
     *
     * <p>Result fields: r1 the reader, r2 the evictor, r3 the arbiter's view of A4, r4 the
     * arbiter's checks: accounting with no handle held (usage 64 per entry, every entry on a chain,
     * nothing pinned or standalone), usage within capacity; then erase all keys (usage back to 0)
     * and close.
     */
    static final int[] AUTO_KEYS = {A4, A0, B0, C4, C0, B4};

    abstract static class AutoBase {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_3);

        AutoBase() {
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
                r.r3 = seen == null ? "A_GONE"
                        : seen.equals("A4") ? "A_PRESENT" : "A_READS_" + seen;
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = AutoFixture.checkDrainClose(cache, this::checks, AUTO_KEYS);
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
    public static class PinnedAuto extends AutoBase {
        static final int READS = 16;
        final long handle;

        public PinnedAuto() {
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
                        + (again == null ? "GONE"
                        : again.equals("A4") ? "PRESENT" : "READS_" + again);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = AutoFixture.checkDrainClose(cache, this::checks, AUTO_KEYS);
        }
    }

    @JCStressTest
    @Description("LookupAuto + read + release of A4 races with the evictor's 3 inserts, which grow "
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
    public static class LookupAuto extends AutoBase {
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
    public static class GetAuto extends AutoBase {
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

    /*
     * A hit on A, which promotes A to the high pool when it is released, races with
     * inserts that force eviction.
     *
     * <p>The cache has room for exactly 2 entries (capacity 128, charge 64), a high pool of half
     * the capacity (one entry) and no low pool. The state inserts A, then P, both BOTTOM: the list
     * is {@code [A P]}, A the oldest, so A is the first entry an insert evicts. The evictor inserts
     * K1, K2, K3 (BOTTOM); each of them has to evict one entry. Only unreferenced entries are on
     * the list, so a pinned A is never a candidate; once A is released after a hit it sits in the
     * high pool, above every BOTTOM entry, and evictions take the bottom pool first.
     *
     * <p>So the rules decide A's fate exactly: if the reader's lookup comes before K1's insert, A
     * is either pinned (off the list) or promoted during every later eviction, and it survives all
     * three inserts; if K1's insert comes first, it evicts A (the oldest) and the lookup misses.
     * Both outcomes are fully determined by that one order, so a hit with A gone, or a miss with A
     * present, breaks a rule.
     *
     * <p>Result fields: r1 the reader, r2 the evictor, r3 the arbiter's view of A and the pools
     * (read before the arbiter's own lookup), r4 the arbiter's checks: accounting with no handle
     * held (usage 64 per entry, within capacity, nothing pinned, pools within their shares), 2
     * entries left, then the drain check (see {@link LruFixture#drainAndClose}) and close.
     */
    abstract static class LruBase {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_2);

        LruBase() {
            LruFixture.fill(cache, Priority.BOTTOM, A, P);
        }

        void evict(LLLL_Result r) {
            try {
                int refused = 0;
                for (int key = K1; key <= K3; key++) {
                    if (!VersionedKeys.insert(cache, key, 0, Priority.BOTTOM)) {
                        refused++;
                    }
                }
                r.r2 = refused == 0 ? "INSERTED" : "REFUSED" + refused;
            } catch (RuntimeException | Error e) {
                r.r2 = Outcomes.failure(e);
            }
        }

        /** Pools first (a lookup would promote A), then whether A is there. */
        String view() {
            String pools = LruFixture.pools(cache);
            return "A_" + LruFixture.presence(cache, A) + ";" + pools;
        }

        String checks() {
            return LruFixture.accounting(cache, 2);
        }
    }

    @JCStressTest
    @Description("LookupLru + read + release of A races with 3 inserts into a full 2-entry LRU "
            + "cache. A is the oldest BOTTOM entry; a hit marks it, and its release puts it in "
            + "the high pool. A hit must read A's bytes; a pinned A is off the list and cannot "
            + "be evicted; a promoted A outlives BOTTOM entries. Hence: hit <=> A survives.")
    @Outcome(id = "HIT, INSERTED, A_PRESENT;H1L0B1, OK", expect = ACCEPTABLE,
            desc = "The lookup came before K1's insert. Each insert evicted the oldest BOTTOM "
                    + "entry (P, K1, K2) while A was pinned or already promoted; A ends in the "
                    + "high pool, K3 in the bottom pool.")
    @Outcome(id = "MISS, INSERTED, A_GONE;H0L0B2, OK", expect = ACCEPTABLE,
            desc = "K1's insert came first and evicted A, the oldest entry; the lookup missed. "
                    + "K2 evicted P, K3 evicted K1: K2 and K3 are left, both BOTTOM.")
    @Outcome(id = "HIT_.*, .*, .*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-EVICT: the reader held a reference to A but read other bytes (the "
                    + "label of what it read), or its plain release freed A (HIT_FREED: only an "
                    + "erased entry or an over-capacity cache frees on release).")
    @Outcome(id = "HIT, .*, A_GONE.*, .*", expect = FORBIDDEN,
            desc = "PROMOTION LOST or PINNED ENTRY EVICTED: A was found before K1 evicted "
                    + "anything, so it was pinned or in the high pool at every eviction, yet it "
                    + "is gone.")
    @Outcome(id = "MISS, .*, A_PRESENT.*, .*", expect = FORBIDDEN,
            desc = "SPURIOUS MISS: A was never evicted (it is there at the end), yet the lookup "
                    + "did not find it.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: pools other than the two ends above (A not promoted, a BOTTOM "
                    + "entry in the high pool), A reading other bytes at the end (A_READS_*), a "
                    + "refused insert, accounting off (ACCT_*), entries left after draining "
                    + "(STUCK_*), or an exception (EX_*).")
    @State
    public static class LookupLru extends LruBase {
        @Actor
        public void reader(LLLL_Result r) {
            r.r1 = VersionedKeys.lookupReadRelease(cache, A);
        }

        @Actor
        public void evictor(LLLL_Result r) {
            evict(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                r.r3 = view();
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, this::checks);
        }
    }

    @JCStressTest
    @Description("The state holds a handle to A (a hit, taken before the race). The reader "
            + "reads A's value 16 times through it and then releases it, while the evictor's 3 "
            + "inserts each evict an entry of the full 2-entry cache. A pinned entry is off the "
            + "list, so every read returns A's bytes; released after a hit, A goes to the high "
            + "pool, so the remaining BOTTOM inserts evict around it: A always survives.")
    @Outcome(id = "STABLE;KEPT, INSERTED, A_PRESENT;H1L0B1, OK", expect = ACCEPTABLE,
            desc = "Every read saw A's bytes; the release put A on the list (high pool) rather "
                    + "than freeing it; the inserts evicted P, K1 and K2.")
    @Outcome(id = "(?!STABLE;).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-EVICT: a read through the pinned handle returned other bytes "
                    + "(READ<i>_<label>) or threw.")
    @Outcome(id = "STABLE;FREED, .*, .*, .*", expect = FORBIDDEN,
            desc = "The release freed A: it must have been evicted (or erased) while pinned.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: A gone or in the wrong pool, a refused insert, accounting off "
                    + "(ACCT_*), entries left after draining (STUCK_*), or an exception.")
    @State
    public static class PinnedLru extends LruBase {
        static final int READS = 16;
        final long handle;

        public PinnedLru() {
            handle = VersionedKeys.lookup(cache, A);
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
                    String seen = VersionedKeys.read(cache, handle);
                    if (!seen.equals(VersionedKeys.label(A, 0))) {
                        bad = "READ" + i + "_" + seen;
                    }
                }
                r.r1 = (bad == null ? "STABLE" : bad) + ";"
                        + Outcomes.release(cache, handle, false);
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
                r.r3 = view();
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, this::checks);
        }
    }
}
