package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
 * Misuse, LRU: a double release raced against the removal of its entry, by an erase or by an
 * eviction (the release-vs-release race and the stale release against a correct holder are
 * {@link LruDoubleRelease}'s). The second release must be refused in every interleaving, the
 * entry freed exactly once, and the accounting exact. The LRU cache decides every release under
 * its shard's lock, so these races have no window; the tests keep it that way.
 *
 * <p>Result fields: r1 the releaser's two releases ({@code first;second}), r2 the other actor,
 * r3 what the arbiter finds, r4 accounting with no handle held, the drain ({@link LruFixture}) and
 * close.
 */
public class LruDoubleReleaseVsRemoval {

    private static final String REFUSED = "EX_IllegalStateException";

    @JCStressTest
    @Description("A is cached and the state holds its only handle. Actor 1 releases it, then "
            + "releases it again; actor 2 erases A. The second release must be refused: before "
            + "the erase A is unreferenced; after it A is freed and the handle stale.")
    @Outcome(id = "KEPT;" + REFUSED + ", ERASED, GONE, OK", expect = ACCEPTABLE,
            desc = "The release put A back on the list, then the erase freed it.")
    @Outcome(id = "FREED;" + REFUSED + ", ERASED, GONE, OK", expect = ACCEPTABLE,
            desc = "The erase took the referenced A out of the index; the release was its last "
                    + "reference and freed it.")
    @Outcome(id = ".*;(KEPT|FREED), .*, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: the second release succeeded.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the erase missing A, A findable, accounting off, STUCK_*, "
                    + "an exception.")
    @State
    public static class VsErase {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);
        final long handle;

        public VsErase() {
            LruFixture.fill(cache, Priority.LOW, A);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Actor
        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.releaseTwice(cache, handle);
        }

        @Actor
        public void eraser(LLLL_Result r) {
            r.r2 = VersionedKeys.eraseOutcome(cache, A);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                r.r3 = LruFixture.presence(cache, A);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> LruFixture.accounting(cache, 0));
        }
    }

    @JCStressTest
    @Description("A and P are cached (LOW) with room for two entries; the state holds A's only "
            + "handle. Actor 1 releases it (A, hit, goes to the high pool), then releases it "
            + "again; actor 2 inserts K1, which evicts the oldest unreferenced low entry: P "
            + "(A is held, or in the high pool). The second release must be refused.")
    @Outcome(id = "KEPT;" + REFUSED + ", INSERTED, PRESENT;GONE;PRESENT, OK", expect = ACCEPTABLE,
            desc = "P was evicted for K1; A stayed (pinned, then in the high pool); the second "
                    + "release was refused.")
    @Outcome(id = ".*;(KEPT|FREED), .*, .*, .*", expect = FORBIDDEN,
            desc = "DOUBLE RELEASE ACCEPTED: the second release succeeded.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: A evicted or freed, P kept, K1 missing, other bytes, "
                    + "accounting off, STUCK_*, an exception.")
    @State
    public static class VsEviction {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_2);
        final long handle;

        public VsEviction() {
            LruFixture.fill(cache, Priority.LOW, A, P);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Actor
        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.releaseTwice(cache, handle);
        }

        @Actor
        public void inserter(LLLL_Result r) {
            try {
                r.r2 = VersionedKeys.insert(cache, K1, 0, Priority.LOW) ? "INSERTED" : "REFUSED";
            } catch (RuntimeException | Error e) {
                r.r2 = Outcomes.failure(e);
            }
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            try {
                r.r3 = LruFixture.presence(cache, A) + ";" + LruFixture.presence(cache, P)
                        + ";" + LruFixture.presence(cache, K1);
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache, () -> LruFixture.accounting(cache, 2));
        }
    }
}
