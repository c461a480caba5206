package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.FixedHyperClockCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * Test 2: two {@code insertPinned} of the same, absent key race.
 *
 * <p>Result fields: r1/r2 what each inserter read through its own handle (right after the
 * insert, then again in the arbiter before the release), r3 the cache after both: which value a
 * lookup finds, table entries (E), standalone entries (S); r4 accounting after the releases, a
 * final erase of the key (it must remove every copy) and close.
 */
@JCStressTest
@Description("insertPinned(A, v1) races with insertPinned(A, v2) on an empty 4-slot cache. Each "
        + "handle must read its own bytes until released. The loser either sees the winner's "
        + "visible entry (duplicate: it gets a standalone handle) or, if the winner's slot is "
        + "still under construction, probes past it and inserts a second table copy (RocksDB "
        + "FixedHyperClockCache documents this temporary duplication for concurrent inserts). "
        + "Afterwards a lookup finds exactly one of v1/v2, and erase(A) removes all copies.")
@Outcome(id = "OWN, OWN, A_V1;E1;S1, OK", expect = ACCEPTABLE,
        desc = "Inserter 1 took the table slot; inserter 2 found A visible and got a standalone "
                + "handle to v2, freed at its release.")
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
public class FixedHccInsertPinnedSameKey {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
    private static final long FAILED = -1;
    private long h1;
    private long h2;
    private volatile String failure = "OK";

    @Actor
    public void inserter1(LLLL_Result r) {
        h1 = insertPinned(1);
        r.r1 = readOwn(h1, 1);
    }

    @Actor
    public void inserter2(LLLL_Result r) {
        h2 = insertPinned(2);
        r.r2 = readOwn(h2, 2);
    }

    /** Inserts version {@code version} of A with a handle; MISS if refused, or -1 on exception. */
    private long insertPinned(int version) {
        try {
            return VersionedKeys.insertPinned(cache, A, version, Priority.LOW);
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
            String seen = VersionedKeys.read(cache, h);
            return seen.equals(VersionedKeys.label(A, version)) ? "OWN" : seen;
        } catch (RuntimeException | Error e) {
            return Outcomes.failure(e);
        }
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

    private String reread(long h, int version) {
        String seen = VersionedKeys.read(cache, h);
        return seen.equals(VersionedKeys.label(A, version)) ? "OK"
                : "REREAD" + version + "_" + seen;
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
