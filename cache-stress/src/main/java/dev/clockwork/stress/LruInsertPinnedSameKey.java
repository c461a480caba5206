package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
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
 * LRU test (d): two {@code insertPinned} of the same, absent key race.
 *
 * <p>An LRU insert replaces: under the shard's lock the later insert takes the earlier entry out
 * of the index (it stays alive, charged and readable for as long as its handle is held, and its
 * release frees it) and puts its own in. So exactly one version is visible afterwards, the later
 * one, and both handles read their own bytes until released. Which release frees tells which
 * insert was replaced, and that must be the version a lookup does not find.
 *
 * <p>The cache has room for 3 entries, a high pool of half the capacity, no low pool.
 *
 * <p>Result fields: r1/r2 what each inserter read through its own handle right after its insert;
 * r3 the cache while both handles are still held: the version a lookup finds, entries (E) and
 * pinned entries (P, from {@code pinnedUsage()}); r4 the arbiter's checks: each handle rereads its
 * own bytes, the visible version's release keeps it (KEPT) and the replaced one's frees it
 * (FREED), accounting afterwards (1 entry), the drain check and close.
 */
@JCStressTest
@Description("insertPinned(A, v1) races with insertPinned(A, v2) on an empty 3-entry LRU "
        + "cache. The later insert replaces the earlier one in the index; the replaced entry "
        + "lives on (charged, pinned) until its handle is released, which frees it. Each handle "
        + "reads its own bytes until released; afterwards exactly one version is findable: the "
        + "one whose release did not free it.")
@Outcome(id = "OWN, OWN, A_V1;E1;P2, OK", expect = ACCEPTABLE,
        desc = "Inserter 1 came second and replaced v2: v1 is visible; v2 stayed readable "
                + "through its handle and was freed by its release.")
@Outcome(id = "OWN, OWN, A_V2;E1;P2, OK", expect = ACCEPTABLE,
        desc = "Inserter 2 came second and replaced v1.")
@Outcome(id = "(?!OWN,).*, .*, .*, .*", expect = FORBIDDEN,
        desc = "Inserter 1's handle read bytes that are not v1 (MISS = the insert was refused).")
@Outcome(id = "OWN, (?!OWN,).*, .*, .*", expect = FORBIDDEN,
        desc = "Inserter 2's handle read bytes that are not v2 (MISS = the insert was refused).")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: the lookup found nothing or a third value; two entries indexed "
                + "(E2) or not both pinned and charged (P); a handle rereading other bytes "
                + "(REREAD*); the visible version freed by its release or the replaced one kept "
                + "(RELEASE*); accounting off (ACCT_*); STUCK_*; an exception.")
@State
public class LruInsertPinnedSameKey {
    private static final long FAILED = -1;
    private final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);
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

    /** Inserts version {@code version} of A with a handle; MISS if refused, -1 on exception. */
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

    private String reread(long h, int version) {
        String seen = VersionedKeys.read(cache, h);
        return seen.equals(VersionedKeys.label(A, version)) ? "OK"
                : "REREAD" + version + "_" + seen;
    }

    /** The visible version's release must keep it; the replaced version's must free it. */
    private String releaseOf(long h, int version, String visible) {
        String released = Outcomes.release(cache, h, false);
        String expected = VersionedKeys.label(A, version).equals(visible) ? "KEPT" : "FREED";
        return released.equals(expected) ? "OK" : "RELEASE" + version + "_" + released;
    }
}
