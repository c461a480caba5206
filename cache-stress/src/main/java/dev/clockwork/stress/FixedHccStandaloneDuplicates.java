package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
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
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * Two threads {@code insertPinned} a key that is already in the table (and pinned by the
 * state), so both get standalone handles; each reads its own and the table handle, then releases
 * its own.
 *
 * <p>Result fields: r1/r2 per inserter: own bytes, the table entry's bytes, whether the release
 * freed the standalone entry; r3 the arbiter: standalone usage while both were held (as seen by
 * each inserter after its read), accounting after all releases, what a lookup finds, close.
 */
@JCStressTest
@Description("A_V0 is in the table and the state holds a handle to it. Two threads each "
        + "insertPinned A (V1, V2): both meet the visible A_V0 on its first probe slot and so "
        + "get standalone entries (not findable, freed by their single release). While held, "
        + "each standalone handle reads its own bytes and the table handle still reads A_V0; "
        + "after all releases standaloneUsage is 0, usage is metadata + A_V0, and A_V0 is what "
        + "a lookup finds.")
@Outcome(id = "OWN;TABLE_A_V0;FREED, OWN;TABLE_A_V0;FREED, OK", expect = ACCEPTABLE,
        desc = "Both inserts became standalone entries with their own bytes; the table entry "
                + "was untouched; each release freed its standalone entry and the accounting "
                + "returned to metadata + one table entry.")
@Outcome(id = "(?!OWN;).*, .*, .*", expect = FORBIDDEN,
        desc = "Inserter 1's handle read bytes that are not A_V1 (MISS = refused).")
@Outcome(id = "OWN;.*, (?!OWN;).*, .*", expect = FORBIDDEN,
        desc = "Inserter 2's handle read bytes that are not A_V2 (MISS = refused).")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: the table handle read other bytes, a release that did not free "
                + "(KEPT: the insert went into the table, duplicating a visible key), standalone "
                + "usage not back to 0 or usage off (ACCT_*), a lookup finding anything but A_V0, "
                + "or an exception.")
@State
public class FixedHccStandaloneDuplicates {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
    private final long tableHandle;

    public FixedHccStandaloneDuplicates() {
        VersionedKeys.insert(cache, A, 0, Priority.LOW);
        tableHandle = VersionedKeys.lookup(cache, A);
    }

    @Actor
    public void inserter1(LLL_Result r) {
        r.r1 = insertReadRelease(1);
    }

    @Actor
    public void inserter2(LLL_Result r) {
        r.r2 = insertReadRelease(2);
    }

    private String insertReadRelease(int version) {
        try {
            long h = VersionedKeys.insertPinned(cache, A, version, Priority.LOW);
            if (h == Cache.MISS) {
                return "MISS";
            }
            String own = VersionedKeys.read(cache, h);
            String table = tableHandle == Cache.MISS ? "SETUP_MISS"
                    : VersionedKeys.read(cache, tableHandle);
            // Our own standalone entry is live now, so its charge must be counted.
            String live = cache.standaloneUsage() >= VersionedKeys.CHARGE ? "" : ";S_LOW";
            boolean freed = cache.release(h);
            return (own.equals(VersionedKeys.label(A, version)) ? "OWN" : own) + ";TABLE_" + table
                    + (freed ? ";FREED" : ";KEPT") + live;
        } catch (RuntimeException | Error e) {
            return Outcomes.failure(e);
        }
    }

    @Arbiter
    public void arbiter(LLL_Result r) {
        String checks;
        try {
            String table = VersionedKeys.read(cache, tableHandle);
            cache.release(tableHandle);
            String acct = FixedFixture.accounting(cache);
            String entries = cache.entryCount() == 1 ? "OK" : "E" + cache.entryCount();
            long h = VersionedKeys.lookup(cache, A);
            String found = "FOUND_MISS";
            if (h != Cache.MISS) {
                String seen = VersionedKeys.read(cache, h);
                cache.release(h);
                found = seen.equals(VersionedKeys.label(A, 0)) ? "OK" : "FOUND_" + seen;
            }
            checks = Outcomes.problems(
                    table.equals(VersionedKeys.label(A, 0)) ? "OK" : "TABLE_" + table,
                    acct, entries, found);
        } catch (RuntimeException | Error e) {
            checks = Outcomes.failure(e);
        }
        r.r3 = Outcomes.problems(checks, Outcomes.close(cache));
    }
}
