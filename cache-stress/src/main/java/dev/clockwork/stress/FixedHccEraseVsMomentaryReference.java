package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.FixedHyperClockCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * Erase of A races with the momentary references other calls put on A's slot, in a cache with
 * TinyLFU admission: a lookup of C (a key never inserted whose lookups start at A's slot: it
 * adds a reference there, sees another key and gives it back), then a duplicate insert of A
 * (it adds references to A to boost its clock, and gives them back). An erase that meets such a
 * reference only makes A invisible, and whoever gives back the last reference must free A.
 *
 * <p>The old give-backs were plain adds: A was left invisible, unreferenced and charged, and
 * TinyLFU, asked by the sweep about it like any victim, could keep it for good (a phantom
 * entry). The arbiter erases A once more (the duplicate insert may have stored it again after
 * the erase) and then requires the cache to be empty: no entry, usage exactly the table's.
 *
 * <p>Result fields: r1 the erase, r2 the other actor (its lookup of C; its insert of A), r3 the
 * cache after the arbiter's erase, and close.
 */
@JCStressTest
@Description("erase(A) races with lookup(C), whose lookups start at A's slot, and a duplicate "
        + "insert of A; TinyLFU admission. Their momentary references on A must never leave an "
        + "erased A behind: after erasing A the cache is empty.")
@Outcome(id = "ERASED, MISS;INSERTED, EMPTY", expect = ACCEPTABLE,
        desc = "Erase found A (before, between or during the other calls); whichever reference "
                + "was given back last freed it, and a re-inserted A was erased by the arbiter.")
@Outcome(id = ".*, .*, PHANTOM.*", expect = FORBIDDEN,
        desc = "PHANTOM: an erased A left in its slot, unreferenced and charged, after every "
                + "call returned.")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: erase missed A, the lookup of C hit, the insert was refused, an "
                + "exception, or a failed close.")
@State
public class FixedHccEraseVsMomentaryReference {
    private static final int C = FixedFixture.collidingKey(A);

    private final FixedHyperClockCache cache =
            FixedFixture.newCache(FixedFixture.ROOM_3, AdmissionPolicy.TINY_LFU);

    public FixedHccEraseVsMomentaryReference() {
        VersionedKeys.insert(cache, A, 0, Priority.LOW);
    }

    @Actor
    public void eraser(LLL_Result r) {
        r.r1 = VersionedKeys.eraseOutcome(cache, A);
    }

    @Actor
    public void toucher(LLL_Result r) {
        String lookup;
        try {
            long h = VersionedKeys.lookup(cache, C);
            lookup = h == Cache.MISS ? "MISS" : "HIT_" + VersionedKeys.read(cache, h);
            if (h != Cache.MISS) {
                cache.release(h);
            }
        } catch (RuntimeException | Error e) {
            lookup = Outcomes.failure(e);
        }
        String insert;
        try {
            insert = VersionedKeys.insert(cache, A, 0, Priority.LOW) ? "INSERTED" : "REFUSED";
        } catch (RuntimeException | Error e) {
            insert = Outcomes.failure(e);
        }
        r.r2 = lookup + ";" + insert;
    }

    @Arbiter
    public void arbiter(LLL_Result r) {
        String left;
        try {
            VersionedKeys.erase(cache, A);
            long entries = cache.entryCount();
            long usage = cache.usage();
            left = entries == 0 && usage == FixedFixture.METADATA ? "EMPTY"
                    : "PHANTOM_E" + entries + "_U" + usage;
        } catch (RuntimeException | Error e) {
            left = Outcomes.failure(e);
        }
        String closed = Outcomes.close(cache);
        r.r3 = closed.equals("OK") ? left : left + ";" + closed;
    }
}
