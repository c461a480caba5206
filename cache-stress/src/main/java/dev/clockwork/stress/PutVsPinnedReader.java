package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
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
 * {@code put(A, v1)} races with a reader of A's version 0: the reader holds a handle pinned before
 * the race and reads through it, then copies A by key ({@code get}). The pinned bytes must stay
 * v0, whole, while the put erases that entry and stores v1; the copy by key finds v0 (before the
 * erase), nothing (between erase and insert) or v1; afterwards a lookup finds v1, and the
 * handle's release is the one that frees v0.
 *
 * <p>Result fields: r1 what the reader read through its handle; r2 its {@code get} of A; r3 the
 * put's answer; r4 the arbiter's checks: the handle rereads v0, its release frees, a lookup
 * finds v1 (one copy), the accounting (one entry, nothing pinned), the erase back to the bare
 * cache, and close.
 */
public class PutVsPinnedReader {

    private PutVsPinnedReader() {
    }

    /** The reader, the writer and the arbiter's checks; each type names the actors again. */
    public abstract static class Base {
        long handle = Cache.MISS;

        abstract Cache cache();

        abstract long metadata();

        /** Set-up: A's version 0 stored and pinned. */
        void pinA() {
            VersionedKeys.insert(cache(), A, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache(), A);
        }

        public void reader(LLLL_Result r) {
            r.r1 = handle == Cache.MISS ? "SETUP_MISS"
                    : KeyedWriteChecks.readPinned(cache(), handle);
            r.r2 = VersionedKeys.get(cache(), A);
        }

        public void writer(LLLL_Result r) {
            r.r3 = KeyedWriteChecks.put(cache(), A, 1);
        }

        public void arbiter(LLLL_Result r) {
            String reread = handle == Cache.MISS ? "SETUP_MISS"
                    : KeyedWriteChecks.readPinned(cache(), handle);
            String checks = Outcomes.problems(reread.equals("A_V0") ? "OK" : "REREAD_" + reread,
                    releaseFrees(), stateIs("A_V1;C1"));
            r.r4 = Outcomes.problems(checks,
                    KeyedWriteChecks.settleEraseClose(cache(), metadata(), 1, A));
        }

        private String releaseFrees() {
            String released = Outcomes.release(cache(), handle, false);
            return released.equals("FREED") ? "OK" : "RELEASE_" + released;
        }

        private String stateIs(String expected) {
            String state = KeyedWriteChecks.keyState(cache(), A);
            return state.equals(expected) ? "OK" : "STATE_" + state;
        }
    }

    @JCStressTest
    @Description("put(A, v1) races with a reader of A's v0 through a handle pinned before, on a "
            + "4-slot fixed table: the pinned bytes stay v0, a get finds v0, nothing or v1, and "
            + "afterwards A is v1 and the handle's release frees v0.")
    @Outcome(id = "A_V0, A_V0, T, OK", expect = ACCEPTABLE,
            desc = "The reader's get ran before the put's erase.")
    @Outcome(id = "A_V0, MISS, T, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The get ran between the put's erase and its insert: a miss, never v0 again.")
    @Outcome(id = "A_V0, A_V1, T, OK", expect = ACCEPTABLE,
            desc = "The get ran after the put.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the pinned handle read other bytes or threw, the get read "
                    + "anything else, the put refused, v0 findable afterwards or not freed by "
                    + "the release, accounting off, an exception.")
    @State
    public static class Fixed extends Base {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        public Fixed() {
            pinA();
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
        public void writer(LLLL_Result r) {
            super.writer(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    @JCStressTest
    @Description("put(A, v1) races with a reader of A's v0 through a handle pinned before, on a "
            + "3-entry LRU cache: the pinned bytes stay v0, a get finds v0, nothing or v1, and "
            + "afterwards A is v1 and the handle's release frees v0.")
    @Outcome(id = "A_V0, A_V0, T, OK", expect = ACCEPTABLE,
            desc = "The reader's get ran before the put's erase.")
    @Outcome(id = "A_V0, MISS, T, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The get ran between the put's erase and its insert: a miss, never v0 again.")
    @Outcome(id = "A_V0, A_V1, T, OK", expect = ACCEPTABLE,
            desc = "The get ran after the put.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the pinned handle read other bytes or threw, the get read "
                    + "anything else, the put refused, v0 findable afterwards or not freed by "
                    + "the release, accounting off, an exception.")
    @State
    public static class Lru extends Base {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

        public Lru() {
            pinA();
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
        public void writer(LLLL_Result r) {
            super.writer(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }
}
