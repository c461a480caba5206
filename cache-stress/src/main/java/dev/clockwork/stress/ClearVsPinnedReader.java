package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.P;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
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
 * {@code clear()} races with a reader of a cache holding A and P: the reader holds a handle on A
 * pinned before the race and reads through it, then copies P by key. The pinned bytes stay A's,
 * whole, while clear erases A; the copy of P finds it or misses; afterwards the cache is empty
 * but for A, which the handle's release frees.
 *
 * <p>Result fields: r1 what the reader read through its handle; r2 its {@code get} of P; r3
 * clear's outcome; r4 the arbiter's checks: the handle rereads A, A and P are not findable, the
 * release frees A, the cache is back to its bare usage with no entry, and close.
 */
public class ClearVsPinnedReader {

    private ClearVsPinnedReader() {
    }

    /** The reader, the clearer and the arbiter's checks; each type names the actors again. */
    public abstract static class Base {
        long handle = Cache.MISS;

        abstract Cache cache();

        abstract long metadata();

        /** Set-up: A and P stored, A pinned. */
        void fill() {
            VersionedKeys.insert(cache(), A, 0, Priority.LOW);
            VersionedKeys.insert(cache(), P, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache(), A);
        }

        public void reader(LLLL_Result r) {
            r.r1 = handle == Cache.MISS ? "SETUP_MISS"
                    : KeyedWriteChecks.readPinned(cache(), handle);
            r.r2 = VersionedKeys.get(cache(), P);
        }

        public void clearer(LLLL_Result r) {
            r.r3 = KeyedWriteChecks.clear(cache());
        }

        public void arbiter(LLLL_Result r) {
            String checks;
            try {
                String reread = handle == Cache.MISS ? "SETUP_MISS"
                        : KeyedWriteChecks.readPinned(cache(), handle);
                String a = KeyedWriteChecks.keyState(cache(), A);
                String p = KeyedWriteChecks.keyState(cache(), P);
                String released = Outcomes.release(cache(), handle, false);
                long usage = cache().usage();
                long entries = cache().entryCount();
                checks = Outcomes.problems(reread.equals("A_V0") ? "OK" : "REREAD_" + reread,
                        a.equals("MISS;C0") ? "OK" : "A_" + a,
                        p.equals("MISS;C0") ? "OK" : "P_" + p,
                        released.equals("FREED") ? "OK" : "RELEASE_" + released,
                        usage == metadata() && entries == 0 ? "OK"
                                : "LEFT_U" + usage + "_E" + entries);
            } catch (RuntimeException | Error e) {
                checks = Outcomes.failure(e);
            }
            r.r4 = Outcomes.problems(checks, Outcomes.close(cache()));
        }
    }

    @JCStressTest
    @Description("clear() races with a reader of A through a handle pinned before, and a get "
            + "of P, on a 4-slot fixed table: the pinned bytes stay A's, P is found or not, and "
            + "afterwards the cache is empty once the handle's release frees A.")
    @Outcome(id = "A_V0, P_V0, OK, OK", expect = ACCEPTABLE,
            desc = "The get of P ran before clear erased P.")
    @Outcome(id = "A_V0, MISS, OK, OK", expect = ACCEPTABLE,
            desc = "The get of P ran after clear erased P.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the pinned handle read other bytes or threw, the get read "
                    + "anything else, clear failed, an entry left findable or charged, the "
                    + "release not freeing A, an exception.")
    @State
    public static class Fixed extends Base {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        public Fixed() {
            fill();
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Override
        long metadata() {
            return FixedFixture.METADATA;
        }

        @Actor
        @Override
        public void reader(LLLL_Result r) {
            super.reader(r);
        }

        @Actor
        @Override
        public void clearer(LLLL_Result r) {
            super.clearer(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    @JCStressTest
    @Description("clear() races with a reader of A through a handle pinned before, and a get "
            + "of P, on a 3-entry LRU cache: the pinned bytes stay A's, P is found or not, and "
            + "afterwards the cache is empty once the handle's release frees A.")
    @Outcome(id = "A_V0, P_V0, OK, OK", expect = ACCEPTABLE,
            desc = "The get of P ran before clear erased P.")
    @Outcome(id = "A_V0, MISS, OK, OK", expect = ACCEPTABLE,
            desc = "The get of P ran after clear erased P.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the pinned handle read other bytes or threw, the get read "
                    + "anything else, clear failed, an entry left findable or charged, the "
                    + "release not freeing A, an exception.")
    @State
    public static class Lru extends Base {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

        public Lru() {
            fill();
        }

        @Override
        Cache cache() {
            return cache;
        }

        @Override
        long metadata() {
            return 0;
        }

        @Actor
        @Override
        public void reader(LLLL_Result r) {
            super.reader(r);
        }

        @Actor
        @Override
        public void clearer(LLLL_Result r) {
            super.clearer(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }
}
