package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.K3;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.LruCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * LRU test (a): a hit on A, which promotes A to the high pool when it is released, races with
 * inserts that force eviction.
 *
 * <p>The cache has room for exactly 2 entries (capacity 128, charge 64), a high pool of half the
 * capacity (one entry) and no low pool. The state inserts A, then P, both BOTTOM: the list is
 * {@code [A P]}, A the oldest, so A is the first entry an insert evicts. The evictor inserts
 * K1, K2, K3 (BOTTOM); each of them has to evict one entry. Only unreferenced entries are on the
 * list, so a pinned A is never a candidate; once A is released after a hit it sits in the high
 * pool, above every BOTTOM entry, and evictions take the bottom pool first.
 *
 * <p>So the rules decide A's fate exactly: if the reader's lookup comes before K1's insert, A is
 * either pinned (off the list) or promoted during every later eviction, and it survives all three
 * inserts; if K1's insert comes first, it evicts A (the oldest) and the lookup misses. Both
 * outcomes are fully determined by that one order, so a hit with A gone, or a miss with A
 * present, breaks a rule.
 *
 * <p>Result fields: r1 the reader, r2 the evictor, r3 the arbiter's view of A and the pools (read
 * before the arbiter's own lookup), r4 the arbiter's checks: accounting with no handle held
 * (usage 64 per entry, within capacity, nothing pinned, pools within their shares), 2 entries
 * left, then the drain check (see {@link LruFixture#drainAndClose}) and close.
 */
public class LruLookupVsEviction {

    abstract static class Base {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_2);

        Base() {
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
    @Description("Lookup + read + release of A races with 3 inserts into a full 2-entry LRU "
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
    public static class Lookup extends Base {
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
    public static class Pinned extends Base {
        static final int READS = 16;
        final long handle;

        public Pinned() {
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
