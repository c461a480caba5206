package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.LruCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * Two {@code putIfAbsent}s of one absent key race, version 1 and version 2 of A, on each cache
 * type: exactly one answers {@code true}, and its version is the one entry of A afterwards (the
 * presence check and the insert run under the key's stripe, so the loser sees the winner's
 * entry).
 *
 * <p>Result fields: r1/r2 each call's answer ({@code T}: this call stored); r3 the arbiter's
 * view: the version a lookup finds, the copies of A a walk of the cache sees ({@code C1}), then
 * the accounting (one entry, nothing pinned), an erase of A back to the bare cache, and close.
 */
public class PutIfAbsentVsPutIfAbsent {

    private PutIfAbsentVsPutIfAbsent() {
    }

    /** The two callers and the arbiter's checks; each type's class names the actors again. */
    public abstract static class Base {
        abstract Cache cache();

        /** Usage of the empty cache. */
        abstract long metadata();

        public void putIfAbsent1(LLL_Result r) {
            r.r1 = KeyedWriteChecks.putIfAbsent(cache(), A, 1);
        }

        public void putIfAbsent2(LLL_Result r) {
            r.r2 = KeyedWriteChecks.putIfAbsent(cache(), A, 2);
        }

        public void arbiter(LLL_Result r) {
            String state = KeyedWriteChecks.keyState(cache(), A);
            r.r3 = state + ";" + KeyedWriteChecks.settleEraseClose(cache(), metadata(), 1, A);
        }
    }

    @JCStressTest
    @Description("putIfAbsent(A, v1) races with putIfAbsent(A, v2) on an empty 4-slot fixed "
            + "table: exactly one stores, and its value is the one entry of A.")
    @Outcome(id = "T, F, A_V1;C1;OK", expect = ACCEPTABLE,
            desc = "The first call stored v1; the second found A present.")
    @Outcome(id = "F, T, A_V2;C1;OK", expect = ACCEPTABLE,
            desc = "The second call stored v2; the first found A present.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: both or neither stored, a call failed, no entry or two "
                    + "copies of A, the value of the call"
                    + " that answered false, accounting off after the calls or the erase, an"
                    + " exception.")
    @State
    public static class Fixed extends Base {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

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
        public void putIfAbsent1(LLL_Result r) {
            super.putIfAbsent1(r);
        }

        @Actor
        @Override
        public void putIfAbsent2(LLL_Result r) {
            super.putIfAbsent2(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLL_Result r) {
            super.arbiter(r);
        }
    }

    @JCStressTest
    @Description("putIfAbsent(A, v1) races with putIfAbsent(A, v2) on an empty Auto table "
            + "(room for 16): exactly one stores, and its value is the one entry of A.")
    @Outcome(id = "T, F, A_V1;C1;OK", expect = ACCEPTABLE,
            desc = "The first call stored v1; the second found A present.")
    @Outcome(id = "F, T, A_V2;C1;OK", expect = ACCEPTABLE,
            desc = "The second call stored v2; the first found A present.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: both or neither stored, a call failed, no entry or two "
                    + "copies of A, the value of the call"
                    + " that answered false, accounting off after the calls or the erase, an"
                    + " exception.")
    @State
    public static class Auto extends Base {
        final AutoHyperClockCache cache = AutoFixture.newCache(AutoFixture.ROOM_16);

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
        public void putIfAbsent1(LLL_Result r) {
            super.putIfAbsent1(r);
        }

        @Actor
        @Override
        public void putIfAbsent2(LLL_Result r) {
            super.putIfAbsent2(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLL_Result r) {
            super.arbiter(r);
        }
    }

    @JCStressTest
    @Description("putIfAbsent(A, v1) races with putIfAbsent(A, v2) on an empty "
            + "3-entry LRU cache: exactly one stores, and its value is the one entry of A.")
    @Outcome(id = "T, F, A_V1;C1;OK", expect = ACCEPTABLE,
            desc = "The first call stored v1; the second found A present.")
    @Outcome(id = "F, T, A_V2;C1;OK", expect = ACCEPTABLE,
            desc = "The second call stored v2; the first found A present.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: both or neither stored, a call failed, no entry or two "
                    + "entries of A, the value of the call"
                    + " that answered false, accounting off after the calls or the erase, an"
                    + " exception.")
    @State
    public static class Lru extends Base {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

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
        public void putIfAbsent1(LLL_Result r) {
            super.putIfAbsent1(r);
        }

        @Actor
        @Override
        public void putIfAbsent2(LLL_Result r) {
            super.putIfAbsent2(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLL_Result r) {
            super.arbiter(r);
        }
    }
}
