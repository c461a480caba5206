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
 * Two {@code insertPinned} of the same, absent key race: version 1 and version 2 of A. Each
 * handle must read its own bytes until it is released; what a lookup finds afterwards, and which
 * copies exist, is each cache type's own rule, so each type judges the state in its arbiter.
 *
 * <p>Result fields: r1/r2 what each inserter read through its own handle right after its insert
 * ({@link Base}); r3 the cache after both (see each type); r4 the arbiter's checks: each handle
 * rereads its own bytes, the releases, accounting, the removal of every copy, and close.
 *
 * <p>jcstress 0.16 reads {@code @Actor} methods only from the test class itself, so each type's
 * class names the base's actors again, each a call of the base's.
 */
public class InsertPinnedSameKey {

    private InsertPinnedSameKey() {
    }

    /** The two inserters, each reading through its own handle. */
    public abstract static class Base {
        static final long FAILED = -1;
        long h1;
        long h2;
        volatile String failure = "OK";

        /** The state's cache, built by the subclass. */
        abstract Cache cache();

        public void inserter1(LLLL_Result r) {
            h1 = insertPinned(1);
            r.r1 = readOwn(h1, 1);
        }

        public void inserter2(LLLL_Result r) {
            h2 = insertPinned(2);
            r.r2 = readOwn(h2, 2);
        }

        /** Inserts version {@code version} of A with a handle; MISS if refused, -1 on exception. */
        private long insertPinned(int version) {
            try {
                return VersionedKeys.insertPinned(cache(), A, version, Priority.LOW);
            } catch (RuntimeException | Error e) {
                failure = Outcomes.failure(e);
                return FAILED;
            }
        }

        private String readOwn(long h, int version) {
            if (h == FAILED) {
                return "EX_INSERT";
            }
            if (h == Cache.MISS) {
                return "MISS";
            }
            try {
                String seen = VersionedKeys.read(cache(), h);
                return seen.equals(VersionedKeys.label(A, version)) ? "OWN" : seen;
            } catch (RuntimeException | Error e) {
                return Outcomes.failure(e);
            }
        }

        /** Still our own bytes, now that the other insert is done? OK or REREAD<v>_<label>. */
        String reread(long h, int version) {
            String seen = VersionedKeys.read(cache(), h);
            return seen.equals(VersionedKeys.label(A, version)) ? "OK"
                    : "REREAD" + version + "_" + seen;
        }
    }

    /**
     * Fixed table: r3 which value a lookup finds, table entries (E), standalone entries (S); r4
     * also a final erase of the key, which must remove every copy.
     */
    @JCStressTest
    @Description("insertPinned(A, v1) races with insertPinned(A, v2) on an empty 4-slot cache. "
            + "Each handle must read its own bytes until released. The loser either sees the "
            + "winner's visible entry (duplicate: it gets a standalone handle) or, if the winner's "
            + "slot is still under construction, probes past it and inserts a second table copy "
            + "(RocksDB FixedHyperClockCache documents this temporary duplication for concurrent "
            + "inserts). Afterwards a lookup finds exactly one of v1/v2, and erase(A) removes all "
            + "copies.")
    @Outcome(id = "OWN, OWN, A_V1;E1;S1, OK", expect = ACCEPTABLE,
            desc = "Inserter 1 took the table slot; inserter 2 found A visible and got a "
                    + "standalone handle to v2, freed at its release.")
    @Outcome(id = "OWN, OWN, A_V2;E1;S1, OK", expect = ACCEPTABLE,
            desc = "Inserter 2 took the table slot; inserter 1 got a standalone handle.")
    @Outcome(id = "OWN, OWN, A_V[12];E2;S0, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "Both went into the table: the second probed past the first's slot while it was "
                    + "under construction. A lookup finds the copy on the earlier probe slot; the "
                    + "other is unreachable until erase(A) (which erased both) or eviction. "
                    + "entryCount is 2 here, not 1: documented RocksDB behaviour, not a leak.")
    @Outcome(id = "(?!OWN,).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "Inserter 1's handle read bytes that are not v1 (MISS = insert refused).")
    @Outcome(id = "OWN, (?!OWN,).*, .*, .*", expect = FORBIDDEN,
            desc = "Inserter 2's handle read bytes that are not v2 (MISS = insert refused).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the lookup found a mix, a third value or nothing; entry/"
                    + "standalone counts that do not match; usage not back to metadata after "
                    + "erase; an exception.")
    @State
    public static class Fixed extends Base {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void inserter1(LLLL_Result r) {
            super.inserter1(r);
        }

        @Actor
        @Override
        public void inserter2(LLLL_Result r) {
            super.inserter2(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            String checks;
            try {
                if (h1 == FAILED || h2 == FAILED) {
                    r.r3 = "INSERT_FAILED";
                    r.r4 = Outcomes.problems(failure, Outcomes.close(cache));
                    return;
                }
                // Still our own bytes, now that the other insert is done?
                String again1 = h1 == Cache.MISS ? "OK" : reread(h1, 1);
                String again2 = h2 == Cache.MISS ? "OK" : reread(h2, 2);
                long entries = cache.entryCount();
                long standalone = cache.standaloneUsage() / VersionedKeys.CHARGE;
                String release1 = h1 == Cache.MISS ? "OK" : release(h1);
                String release2 = h2 == Cache.MISS ? "OK" : release(h2);
                String found = find();
                r.r3 = found + ";E" + entries + ";S" + standalone;
                String acct = FixedFixture.accounting(cache);
                String afterErase = erasedAll();
                checks = Outcomes.problems(again1, again2, release1, release2, acct, afterErase);
            } catch (RuntimeException | Error e) {
                checks = Outcomes.failure(e);
            }
            r.r4 = Outcomes.problems(checks, Outcomes.close(cache));
        }

        private String release(long h) {
            cache.release(h);
            return "OK";
        }

        private String find() {
            long h = VersionedKeys.lookup(cache, A);
            if (h == Cache.MISS) {
                return "MISS";
            }
            String seen = VersionedKeys.read(cache, h);
            cache.release(h);
            return seen;
        }

        /** erase(A) must find the key and remove every copy, leaving metadata only. */
        private String erasedAll() {
            boolean found = VersionedKeys.erase(cache, A);
            long again = VersionedKeys.lookup(cache, A);
            if (again != Cache.MISS) {
                cache.release(again);
            }
            if (!found || again != Cache.MISS || cache.usage() != FixedFixture.METADATA
                    || cache.entryCount() != 0) {
                return "ERASE_FOUND" + (found ? "Y" : "N")
                        + "_AGAIN" + (again != Cache.MISS ? "Y" : "N")
                        + "_U" + cache.usage() + "_E" + cache.entryCount();
            }
            return "OK";
        }
    }

    /**
     * LRU: an insert replaces. Under the shard's lock the later insert takes the earlier entry out
     * of the index (it stays alive, charged and readable for as long as its handle is held, and
     * its release frees it) and puts its own in. So exactly one version is visible afterwards,
     * the later one. Which release frees tells which insert was replaced, and that must be the
     * version a lookup does not find. The cache has room for 3 entries, a high pool of half the
     * capacity, no low pool. r3 is the cache while both handles are still held: the version a
     * lookup finds, entries (E) and pinned entries (P, from {@code pinnedUsage()}); r4 also the
     * releases (the visible version's keeps it, the replaced one's frees it) and the drain.
     */
    @JCStressTest
    @Description("insertPinned(A, v1) races with insertPinned(A, v2) on an empty 3-entry LRU "
            + "cache. The later insert replaces the earlier one in the index; the replaced entry "
            + "lives on (charged, pinned) until its handle is released, which frees it. Each "
            + "handle reads its own bytes until released; afterwards exactly one version is "
            + "findable: the one whose release did not free it.")
    @Outcome(id = "OWN, OWN, A_V1;E1;P2, OK", expect = ACCEPTABLE,
            desc = "Inserter 1 came second and replaced v2: v1 is visible; v2 stayed readable "
                    + "through its handle and was freed by its release.")
    @Outcome(id = "OWN, OWN, A_V2;E1;P2, OK", expect = ACCEPTABLE,
            desc = "Inserter 2 came second and replaced v1.")
    @Outcome(id = "(?!OWN,).*, .*, .*, .*", expect = FORBIDDEN,
            desc = "Inserter 1's handle read bytes that are not v1 (MISS = the insert was "
                    + "refused).")
    @Outcome(id = "OWN, (?!OWN,).*, .*, .*", expect = FORBIDDEN,
            desc = "Inserter 2's handle read bytes that are not v2 (MISS = the insert was "
                    + "refused).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: the lookup found nothing or a third value; two entries "
                    + "indexed (E2) or not both pinned and charged (P); a handle rereading other "
                    + "bytes (REREAD*); the visible version freed by its release or the replaced "
                    + "one kept (RELEASE*); accounting off (ACCT_*); STUCK_*; an exception.")
    @State
    public static class Lru extends Base {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);

        @Override
        Cache cache() {
            return cache;
        }

        @Actor
        @Override
        public void inserter1(LLLL_Result r) {
            super.inserter1(r);
        }

        @Actor
        @Override
        public void inserter2(LLLL_Result r) {
            super.inserter2(r);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            if (h1 == FAILED || h2 == FAILED || h1 == Cache.MISS || h2 == Cache.MISS) {
                r.r3 = "INSERT_FAILED";
                r.r4 = Outcomes.problems(failure, Outcomes.close(cache));
                return;
            }
            String found = null;
            try {
                long entries = cache.entryCount();
                long pinned = cache.pinnedUsage() / VersionedKeys.CHARGE;
                found = VersionedKeys.peek(cache, A);
                r.r3 = (found == null ? "MISS" : found) + ";E" + entries + ";P" + pinned;
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            String visible = found;
            r.r4 = LruFixture.checkDrainClose(cache, () -> {
                // Still our own bytes, now that the other insert is done?
                String again1 = reread(h1, 1);
                String again2 = reread(h2, 2);
                String release1 = releaseOf(h1, 1, visible);
                String release2 = releaseOf(h2, 2, visible);
                return Outcomes.problems(again1, again2, release1, release2,
                        LruFixture.accounting(cache, 1));
            });
        }

        /** The visible version's release must keep it; the replaced version's must free it. */
        private String releaseOf(long h, int version, String visible) {
            String released = Outcomes.release(cache, h, false);
            String expected = VersionedKeys.label(A, version).equals(visible) ? "KEPT" : "FREED";
            return released.equals(expected) ? "OK" : "RELEASE" + version + "_" + released;
        }
    }
}
