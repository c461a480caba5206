package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
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
 * LRU test (e): two threads release the same handle, which holds A's only reference (a caller
 * bug: a double release). The LRU cache checks every handle under the shard's lock: the record's
 * generation must match the handle's (so a handle whose entry was freed, even if its record has
 * been handed to another entry since, is refused) and the entry must be referenced (so a second
 * release of a still-cached entry is refused). Exactly one release succeeds; the other gets
 * {@link IllegalStateException}; nothing is freed twice and the accounting stays exact.
 *
 * <p>The cache has room for 3 entries, a high pool of half the capacity, no low pool.
 */
public class LruDoubleRelease {

    /**
     * Result fields: r1/r2 each thread's release (KEPT, FREED, or the exception's name), r3 A at
     * the end and the pools (read first), r4 accounting (1 entry), drain, close.
     */
    @JCStressTest
    @Description("A is cached and the state holds its only handle (from a lookup). Both actors "
            + "call release(h). The first, under the lock, drops the last reference and puts A "
            + "back on the list (KEPT: A is still in the cache); the second finds A unreferenced "
            + "and is refused with IllegalStateException. A stays cached, in the high pool (it "
            + "was hit), charged once.")
    @Outcome(id = "KEPT, EX_IllegalStateException, PRESENT;H1L0B0, OK", expect = ACCEPTABLE,
            desc = "Actor 1's release came first; actor 2's second release was refused.")
    @Outcome(id = "EX_IllegalStateException, KEPT, PRESENT;H1L0B0, OK", expect = ACCEPTABLE,
            desc = "Actor 2's release came first; actor 1's was refused.")
    @Outcome(id = "KEPT, KEPT, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: both releases succeeded on a single reference (the "
                    + "reference count went below zero, or the entry was listed twice).")
    @Outcome(id = "EX_.*, EX_.*, .*, .*", expect = FORBIDDEN,
            desc = "Both releases refused: the held reference was never dropped.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a release that freed A (FREED: A was not erased and the cache "
                    + "is not over capacity), another exception, A gone or in the wrong pool, "
                    + "accounting off (ACCT_*), STUCK_*.")
    @State
    public static class Cached {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);
        final long handle;

        public Cached() {
            LruFixture.fill(cache, Priority.LOW, A);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Actor
        public void releaser1(LLLL_Result r) {
            r.r1 = Outcomes.release(cache, handle, false);
        }

        @Actor
        public void releaser2(LLLL_Result r) {
            r.r2 = Outcomes.release(cache, handle, false);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                String pools = LruFixture.pools(cache);
                r.r3 = LruFixture.presence(cache, A) + ";" + pools;
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> LruFixture.accounting(cache, 1));
        }
    }

    /**
     * Result fields: r1 actor 1's release of the stale handle, then what it read through its new
     * handle to K1; r2 actor 2's release of the stale handle; r3 the arbiter: K1's handle rereads
     * K1, its release keeps K1 (KEPT), then whether a lookup finds K1 and A; r4 accounting (1
     * entry), drain, close.
     */
    @JCStressTest
    @Description("The state erased A while holding its only handle, so the handle's release "
            + "frees A. Both actors release that handle; actor 1 then insertPinned(K1), which "
            + "reuses A's record if A is freed by then (the slab hands out the last freed record "
            + "first), under a new generation. Exactly one release frees A; the other is "
            + "refused: before the reuse because the record is free, after it because the "
            + "generation differs. A stale release that got through would drop K1's reference "
            + "under actor 1's feet.")
    @Outcome(id = "FREED;OWN, EX_IllegalStateException, K1_V0;KEPT;K1_PRESENT;A_GONE, OK",
            expect = ACCEPTABLE,
            desc = "Actor 1 freed A; actor 2's release (of a free record, or of K1's record "
                    + "under an old generation) was refused.")
    @Outcome(id = "EX_IllegalStateException;OWN, FREED, K1_V0;KEPT;K1_PRESENT;A_GONE, OK",
            expect = ACCEPTABLE,
            desc = "Actor 2 freed A; actor 1's release was refused, then it inserted K1.")
    @Outcome(id = "FREED;.*, FREED, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE FREE: both releases freed A.")
    @Outcome(id = "(?!FREED;|EX_IllegalStateException;).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "Actor 1's release neither freed A nor was refused (KEPT: the erased A went "
                    + "back on the list; another exception; or the stale handle reached K1).")
    @Outcome(id = ".*;(?!OWN).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "Actor 1's handle to K1 read other bytes (or K1's insert was refused).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: K1's handle rereading other bytes, its release refused or "
                    + "freeing K1 (a stale release dropped K1's reference), K1 gone, A findable, "
                    + "accounting off (ACCT_*: a double free shows as usage below 64), STUCK_*.")
    @State
    public static class Reused {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);
        final long handle;
        long k1Handle = Cache.MISS;

        public Reused() {
            LruFixture.fill(cache, Priority.LOW, A);
            handle = VersionedKeys.lookup(cache, A);
            VersionedKeys.erase(cache, A);
        }

        @Actor
        public void releaser1(LLLL_Result r) {
            String released = Outcomes.release(cache, handle, false);
            String own;
            try {
                k1Handle = VersionedKeys.insertPinned(cache, K1, 0, Priority.LOW);
                own = k1Handle == Cache.MISS ? "MISS"
                        : VersionedKeys.read(cache, k1Handle).equals(VersionedKeys.label(K1, 0))
                        ? "OWN"
                        : VersionedKeys.read(cache, k1Handle);
            } catch (RuntimeException | Error e) {
                own = Outcomes.failure(e);
            }
            r.r1 = released + ";" + own;
        }

        @Actor
        public void releaser2(LLLL_Result r) {
            r.r2 = Outcomes.release(cache, handle, false);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                if (k1Handle == Cache.MISS) {
                    r.r3 = "K1_MISS";
                } else {
                    String seen = VersionedKeys.read(cache, k1Handle);
                    String released = Outcomes.release(cache, k1Handle, false);
                    r.r3 = seen + ";" + released + ";K1_" + LruFixture.presence(cache, K1)
                            + ";A_" + LruFixture.presence(cache, A);
                }
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> LruFixture.accounting(cache, 1));
        }
    }
}
