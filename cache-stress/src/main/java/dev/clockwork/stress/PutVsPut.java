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
 * Two {@code put}s of one key race, version 1 and version 2 of A, on each cache type. Where two
 * plain inserts may leave two copies (HyperClock, see {@link InsertPinnedSameKey}), puts run one
 * after the other under the key's stripe: afterwards there is one entry of A, holding one of the
 * two versions, whatever the type.
 *
 * <p>Result fields: r1/r2 each put's answer ({@code T}: stored); r3 the arbiter's view: the
 * version a lookup finds, the copies of A a walk of the cache sees ({@code C1}), then the
 * accounting (one entry, nothing pinned), an erase of A back to the bare cache, and close.
 */
public class PutVsPut {

    private PutVsPut() {
    }

    /** The two writers and the arbiter's checks; each type's class names the actors again. */
    public abstract static class Base {
        abstract Cache cache();

        /** Usage of the empty cache. */
        abstract long metadata();

        public void put1(LLL_Result r) {
            r.r1 = KeyedWriteChecks.put(cache(), A, 1);
        }

        public void put2(LLL_Result r) {
            r.r2 = KeyedWriteChecks.put(cache(), A, 2);
        }

        public void arbiter(LLL_Result r) {
            String state = KeyedWriteChecks.keyState(cache(), A);
            r.r3 = state + ";" + KeyedWriteChecks.settleEraseClose(cache(), metadata(), 1, A);
        }
    }

    @JCStressTest
    @Description("put(A, v1) races with put(A, v2) on an empty 4-slot fixed table: one entry "
            + "of A afterwards, holding v1 or v2 (plain inserts may leave two copies here).")
    @Outcome(id = "T, T, A_V[12];C1;OK", expect = ACCEPTABLE,
            desc = "The puts ran one after the other; the later one's value is the one entry.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a put refused or failed, no entry or two copies of A, another "
                    + "value, accounting off after the puts or the erase, an exception.")
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
        public void put1(LLL_Result r) {
            super.put1(r);
        }

        @Actor
        @Override
        public void put2(LLL_Result r) {
            super.put2(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLL_Result r) {
            super.arbiter(r);
        }
    }

    @JCStressTest
    @Description("put(A, v1) races with put(A, v2) on an empty Auto table (room for 16): one "
            + "entry of A afterwards, holding v1 or v2.")
    @Outcome(id = "T, T, A_V[12];C1;OK", expect = ACCEPTABLE,
            desc = "The puts ran one after the other; the later one's value is the one entry.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a put refused or failed, no entry or two copies of A, another "
                    + "value, accounting off after the puts or the erase, an exception.")
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
        public void put1(LLL_Result r) {
            super.put1(r);
        }

        @Actor
        @Override
        public void put2(LLL_Result r) {
            super.put2(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLL_Result r) {
            super.arbiter(r);
        }
    }

    @JCStressTest
    @Description("put(A, v1) races with put(A, v2) on an empty 3-entry LRU cache: one entry of "
            + "A afterwards, holding v1 or v2.")
    @Outcome(id = "T, T, A_V[12];C1;OK", expect = ACCEPTABLE,
            desc = "The puts ran one after the other; the later one's value is the one entry.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a put refused or failed, no entry or two entries of A, "
                    + "another value, accounting off after the puts or the erase, an exception.")
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
        public void put1(LLL_Result r) {
            super.put1(r);
        }

        @Actor
        @Override
        public void put2(LLL_Result r) {
            super.put2(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLL_Result r) {
            super.arbiter(r);
        }
    }
}
