package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueLoader;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.ModelAccess;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * Get-or-load ({@link Cache#lookupOrLoad}) racing itself, an erase and close, on every cache
 * type. The loaded value is A's version 1 or 2 (24 bytes, charge 24, so the entry is the only one
 * and nothing is evicted); a reader names what its handle reads.
 *
 * <p>Each arbiter ends with {@link Base#settle}: A erased, nothing pinned, usage back to what the
 * empty cache had, no standalone usage (HyperClock), then close, and no value memory left
 * ({@code ModelAccess.valueChunkBytes}): a loaded value stored twice, left pinned, or copied in
 * after close shows there.
 *
 * <p>jcstress 0.16 reads {@code @Actor} methods only from the test class itself, so each type's
 * class names the base's actors again, each a call of the base's.
 */
public class GetOrLoadRaces {

    private GetOrLoadRaces() {
    }

    /** The state every race shares: the cache, the loads counted, the empty cache's usage. */
    public abstract static class Base {
        final Cache cache;
        final long emptyUsage;
        final AtomicInteger loads = new AtomicInteger();

        Base(Cache cache) {
            this.cache = cache;
            this.emptyUsage = cache.usage();
        }

        /** A loader of A's {@code version}, counting its calls. */
        ValueLoader loader(int version) {
            return (k0, k1) -> {
                loads.incrementAndGet();
                return MemorySegment.ofArray(VersionedKeys.value(A, version));
            };
        }

        /** Get-or-load of A, then what the handle reads; the handle is kept (0 if none). */
        long loadPinned(int version, String[] read) {
            try {
                long h = cache.lookupOrLoad(VersionedKeys.key0(A), VersionedKeys.key1(A),
                        loader(version), Priority.LOW);
                read[0] = VersionedKeys.read(cache, h);
                return h;
            } catch (RuntimeException | Error e) {
                read[0] = Outcomes.failure(e);
                return Cache.MISS;
            }
        }

        /** Get-or-load of A, read and release: the label read, or the failure's name. */
        String loadReadRelease(int version) {
            String[] read = new String[1];
            long h = loadPinned(version, read);
            if (h != Cache.MISS) {
                String released = Outcomes.release(cache, h, false);
                if (released.startsWith("EX_")) {
                    return read[0] + ";" + released;
                }
            }
            return read[0];
        }

        /** Releases a kept handle: OK, or the failure's name. */
        String release(long h) {
            String released = Outcomes.release(cache, h, false);
            return released.startsWith("EX_") ? released : "OK";
        }

        /**
         * Erases A, checks that the cache is as empty as it was built, closes it, and checks that
         * no value memory is left: OK or the problems.
         */
        String settle() {
            String checks;
            try {
                VersionedKeys.erase(cache, A);
                long usage = cache.usage();
                long entries = cache.entryCount();
                long pinned = cache.pinnedUsage();
                long standalone = cache instanceof HyperClockCache hcc ? hcc.standaloneUsage() : 0;
                checks = usage == emptyUsage && entries == 0 && pinned == 0 && standalone == 0
                        ? "OK" : "ACCT_U" + usage + "_E" + entries + "_P" + pinned
                        + "_S" + standalone;
            } catch (RuntimeException | Error e) {
                checks = Outcomes.failure(e);
            }
            return Outcomes.problems(checks, closedEmpty());
        }

        /** Closes the cache (again, maybe) and checks that no value memory is left. */
        String closedEmpty() {
            String closed = Outcomes.close(cache);
            long values = ModelAccess.valueChunkBytes(cache);
            return Outcomes.problems(closed, values == 0 ? "OK" : "VALUES_LEFT" + values);
        }
    }

    // ---------------------------------------------------------------- two loaders

    /** Two callers of one absent key: one load, both read the same bytes. */
    public abstract static class TwoLoaders extends Base {
        long h1;
        long h2;

        TwoLoaders(Cache cache) {
            super(cache);
        }

        public void loader1(LLLL_Result r) {
            String[] read = new String[1];
            h1 = loadPinned(1, read);
            r.r1 = read[0];
        }

        public void loader2(LLLL_Result r) {
            String[] read = new String[1];
            h2 = loadPinned(2, read);
            r.r2 = read[0];
        }

        public void arbiter(LLLL_Result r) {
            r.r3 = "L" + loads.get();
            r.r4 = Outcomes.problems(release(h1), release(h2), settle());
        }
    }

    private static final String TWO_LOADERS = "lookupOrLoad(A) with a loader of v1 races"
            + " lookupOrLoad(A) with a loader of v2, on an empty cache. Exactly one loader runs,"
            + " and both callers read its value through their own handles.";

    /** The fixed table. */
    @JCStressTest
    @Description(TWO_LOADERS)
    @Outcome(id = "A_V1, A_V1, L1, OK", expect = ACCEPTABLE, desc = "Caller 1's loader ran.")
    @Outcome(id = "A_V2, A_V2, L1, OK", expect = ACCEPTABLE, desc = "Caller 2's loader ran.")
    @Outcome(expect = FORBIDDEN, desc = "Two loads (L2), callers reading different values,"
            + " an exception, or accounting and memory off afterwards.")
    @State
    public static class TwoLoadersFixed extends TwoLoaders {
        public TwoLoadersFixed() {
            super(FixedFixture.newCache(FixedFixture.ROOM_3));
        }

        @Actor
        @Override
        public void loader1(LLLL_Result r) {
            super.loader1(r);
        }

        @Actor
        @Override
        public void loader2(LLLL_Result r) {
            super.loader2(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    /** The Auto table. */
    @JCStressTest
    @Description(TWO_LOADERS)
    @Outcome(id = "A_V1, A_V1, L1, OK", expect = ACCEPTABLE, desc = "Caller 1's loader ran.")
    @Outcome(id = "A_V2, A_V2, L1, OK", expect = ACCEPTABLE, desc = "Caller 2's loader ran.")
    @Outcome(expect = FORBIDDEN, desc = "Two loads (L2), callers reading different values,"
            + " an exception, or accounting and memory off afterwards.")
    @State
    public static class TwoLoadersAuto extends TwoLoaders {
        public TwoLoadersAuto() {
            super(AutoFixture.newCache(AutoFixture.ROOM_3));
        }

        @Actor
        @Override
        public void loader1(LLLL_Result r) {
            super.loader1(r);
        }

        @Actor
        @Override
        public void loader2(LLLL_Result r) {
            super.loader2(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    /** LRU. */
    @JCStressTest
    @Description(TWO_LOADERS)
    @Outcome(id = "A_V1, A_V1, L1, OK", expect = ACCEPTABLE, desc = "Caller 1's loader ran.")
    @Outcome(id = "A_V2, A_V2, L1, OK", expect = ACCEPTABLE, desc = "Caller 2's loader ran.")
    @Outcome(expect = FORBIDDEN, desc = "Two loads (L2), callers reading different values,"
            + " an exception, or accounting and memory off afterwards.")
    @State
    public static class TwoLoadersLru extends TwoLoaders {
        public TwoLoadersLru() {
            super(LruFixture.newCache(LruFixture.ROOM_3));
        }

        @Actor
        @Override
        public void loader1(LLLL_Result r) {
            super.loader1(r);
        }

        @Actor
        @Override
        public void loader2(LLLL_Result r) {
            super.loader2(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    // ---------------------------------------------------------------- a load racing erase

    /**
     * A load of A (kept pinned until the arbiter) races {@code erase(A)}. r1 what the handle
     * reads; r2 the erase; r3 whether A is findable afterwards (handle still held); r4 checks.
     */
    public abstract static class LoadVsErase extends Base {
        long h;

        LoadVsErase(Cache cache) {
            super(cache);
        }

        public void loader(LLLL_Result r) {
            String[] read = new String[1];
            h = loadPinned(1, read);
            r.r1 = read[0];
        }

        public void eraser(LLLL_Result r) {
            r.r2 = VersionedKeys.eraseOutcome(cache, A);
        }

        public void arbiter(LLLL_Result r) {
            String found;
            try {
                long again = VersionedKeys.lookup(cache, A);
                found = again == Cache.MISS ? "ABSENT" : "PRESENT";
                if (again != Cache.MISS) {
                    cache.release(again);
                }
            } catch (RuntimeException | Error e) {
                found = Outcomes.failure(e);
            }
            r.r3 = found;
            r.r4 = Outcomes.problems(release(h), loads.get() == 1 ? "OK" : "L" + loads.get(),
                    settle());
        }
    }

    private static final String LOAD_VS_ERASE = "lookupOrLoad(A, v1) races erase(A). The"
            + " handle reads v1 whatever the erase did; the erase either finds nothing (it came"
            + " before the store: A is cached afterwards) or erases the stored entry (A absent,"
            + " the handle still reading it); one load.";

    /** The fixed table. */
    @JCStressTest
    @Description(LOAD_VS_ERASE)
    @Outcome(id = "A_V1, NOT_FOUND, PRESENT, OK", expect = ACCEPTABLE,
            desc = "The erase came before the store.")
    @Outcome(id = "A_V1, ERASED, ABSENT, OK", expect = ACCEPTABLE,
            desc = "The erase took the stored entry; the handle kept reading it.")
    @Outcome(expect = FORBIDDEN, desc = "Other bytes through the handle; an erase that found"
            + " the entry left it findable, or one that missed it found nothing afterwards;"
            + " two loads; accounting or memory off.")
    @State
    public static class LoadVsEraseFixed extends LoadVsErase {
        public LoadVsEraseFixed() {
            super(FixedFixture.newCache(FixedFixture.ROOM_3));
        }

        @Actor
        @Override
        public void loader(LLLL_Result r) {
            super.loader(r);
        }

        @Actor
        @Override
        public void eraser(LLLL_Result r) {
            super.eraser(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    /** The Auto table. */
    @JCStressTest
    @Description(LOAD_VS_ERASE)
    @Outcome(id = "A_V1, NOT_FOUND, PRESENT, OK", expect = ACCEPTABLE,
            desc = "The erase came before the store.")
    @Outcome(id = "A_V1, ERASED, ABSENT, OK", expect = ACCEPTABLE,
            desc = "The erase took the stored entry; the handle kept reading it.")
    @Outcome(expect = FORBIDDEN, desc = "Other bytes through the handle; an erase that found"
            + " the entry left it findable, or one that missed it found nothing afterwards;"
            + " two loads; accounting or memory off.")
    @State
    public static class LoadVsEraseAuto extends LoadVsErase {
        public LoadVsEraseAuto() {
            super(AutoFixture.newCache(AutoFixture.ROOM_3));
        }

        @Actor
        @Override
        public void loader(LLLL_Result r) {
            super.loader(r);
        }

        @Actor
        @Override
        public void eraser(LLLL_Result r) {
            super.eraser(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    /** LRU. */
    @JCStressTest
    @Description(LOAD_VS_ERASE)
    @Outcome(id = "A_V1, NOT_FOUND, PRESENT, OK", expect = ACCEPTABLE,
            desc = "The erase came before the store.")
    @Outcome(id = "A_V1, ERASED, ABSENT, OK", expect = ACCEPTABLE,
            desc = "The erase took the stored entry; the handle kept reading it.")
    @Outcome(expect = FORBIDDEN, desc = "Other bytes through the handle; an erase that found"
            + " the entry left it findable, or one that missed it found nothing afterwards;"
            + " two loads; accounting or memory off.")
    @State
    public static class LoadVsEraseLru extends LoadVsErase {
        public LoadVsEraseLru() {
            super(LruFixture.newCache(LruFixture.ROOM_3));
        }

        @Actor
        @Override
        public void loader(LLLL_Result r) {
            super.loader(r);
        }

        @Actor
        @Override
        public void eraser(LLLL_Result r) {
            super.eraser(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    // ---------------------------------------------------------------- loads racing close

    /**
     * Two get-or-loads of A (one may wait for the other's load), the second followed by
     * {@code close()} on its thread, so that the first caller's load, its wait, or its read may
     * meet the close (two actors: jcstress runs no more on two CPUs). Each caller reads and
     * releases: its value, or IllegalStateException. r3 the close; r4 no value memory left after
     * close, and never more than one load. A hang would time the test out.
     */
    public abstract static class LoadVsClose extends Base {
        LoadVsClose(Cache cache) {
            super(cache);
        }

        public void loader1(LLLL_Result r) {
            r.r1 = caller(loadReadRelease(1));
        }

        public void loader2ThenClose(LLLL_Result r) {
            r.r2 = caller(loadReadRelease(1));
            r.r3 = Outcomes.close(cache);
        }

        /** A_V1, or CLOSED for any IllegalStateException the close caused on the way. */
        private static String caller(String outcome) {
            return outcome.contains("EX_IllegalStateException") ? "CLOSED" : outcome;
        }

        public void arbiter(LLLL_Result r) {
            r.r4 = Outcomes.problems(loads.get() <= 1 ? "OK" : "L" + loads.get(),
                    closedEmpty());
        }
    }

    private static final String LOAD_VS_CLOSE = "Two lookupOrLoad(A) + read + release, the"
            + " second followed by close(). Each caller gets v1 or IllegalStateException, never"
            + " hangs; close frees every value, including one loaded while it ran.";

    /** The fixed table. */
    @JCStressTest
    @Description(LOAD_VS_CLOSE)
    @Outcome(id = "(A_V1|CLOSED), A_V1, OK, OK", expect = ACCEPTABLE,
            desc = "Caller 1 finished before close, or was refused by it (caller 2 always"
                    + " finishes first, but may have waited for caller 1's load).")
    @Outcome(expect = FORBIDDEN, desc = "Other bytes, another exception, two loads, a failed"
            + " close or value memory left.")
    @State
    public static class LoadVsCloseFixed extends LoadVsClose {
        public LoadVsCloseFixed() {
            super(FixedFixture.newCache(FixedFixture.ROOM_3));
        }

        @Actor
        @Override
        public void loader1(LLLL_Result r) {
            super.loader1(r);
        }

        @Actor
        @Override
        public void loader2ThenClose(LLLL_Result r) {
            super.loader2ThenClose(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    /** The Auto table. */
    @JCStressTest
    @Description(LOAD_VS_CLOSE)
    @Outcome(id = "(A_V1|CLOSED), A_V1, OK, OK", expect = ACCEPTABLE,
            desc = "Caller 1 finished before close, or was refused by it (caller 2 always"
                    + " finishes first, but may have waited for caller 1's load).")
    @Outcome(expect = FORBIDDEN, desc = "Other bytes, another exception, two loads, a failed"
            + " close or value memory left.")
    @State
    public static class LoadVsCloseAuto extends LoadVsClose {
        public LoadVsCloseAuto() {
            super(AutoFixture.newCache(AutoFixture.ROOM_3));
        }

        @Actor
        @Override
        public void loader1(LLLL_Result r) {
            super.loader1(r);
        }

        @Actor
        @Override
        public void loader2ThenClose(LLLL_Result r) {
            super.loader2ThenClose(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }

    /** LRU. */
    @JCStressTest
    @Description(LOAD_VS_CLOSE)
    @Outcome(id = "(A_V1|CLOSED), A_V1, OK, OK", expect = ACCEPTABLE,
            desc = "Caller 1 finished before close, or was refused by it (caller 2 always"
                    + " finishes first, but may have waited for caller 1's load).")
    @Outcome(expect = FORBIDDEN, desc = "Other bytes, another exception, two loads, a failed"
            + " close or value memory left.")
    @State
    public static class LoadVsCloseLru extends LoadVsClose {
        public LoadVsCloseLru() {
            super(LruFixture.newCache(LruFixture.ROOM_3));
        }

        @Actor
        @Override
        public void loader1(LLLL_Result r) {
            super.loader1(r);
        }

        @Actor
        @Override
        public void loader2ThenClose(LLLL_Result r) {
            super.loader2ThenClose(r);
        }

        @Arbiter
        @Override
        public void arbiter(LLLL_Result r) {
            super.arbiter(r);
        }
    }
}
