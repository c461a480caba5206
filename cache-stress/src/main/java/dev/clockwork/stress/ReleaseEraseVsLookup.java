package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
 * {@code release(h, eraseIfLastRef=true)} of an entry's only handle races with a lookup of the
 * entry ({@code Lookup*}) or with its erase and the insert of a new version ({@code Reinsert*}),
 * in the fixed table and the LRU cache: "freed" must mean the entry is gone, "kept" that another
 * reference was held, and a new version must never be lost.
 */
public class ReleaseEraseVsLookup {

    /**
     * {@code release(h, eraseIfLastRef = true)} of the only handle to A races with a lookup
     * of A.
     *
     * <p>Result fields: r1 whether the erasing release freed A, r2 the reader, r3 whether A is
     * findable at the end and the table entries left, r4 accounting, drain check and close.
     *
     * <p>See {@link ReleaseEraseVsLookup.ReinsertFixed} for the FIXME in RocksDB's {@code
     * FixedHyperClockTable::Release} (erasing a replacement entry), which needs a third party that
     * re-inserts and so cannot happen here.
     */
    @JCStressTest
    @Description("The state holds the only handle to A (from a lookup). Actor 1 releases it with "
            + "eraseIfLastRef; actor 2 looks A up, reads it and releases normally. 'Erase if last "
            + "ref' is judged at one instant: if the reader holds a reference when the releaser "
            + "tries to take ownership, A is not erased and stays cached (an availability effect, "
            + "by design). Either way a hit must read A's bytes and A is freed at most once.")
    @Outcome(id = "FREED, MISS, GONE;E0, OK", expect = ACCEPTABLE,
            desc = "The erasing release freed A before the lookup, which missed.")
    @Outcome(id = "FREED, HIT, GONE;E0, OK", expect = ACCEPTABLE,
            desc = "The reader's lookup and release came first; the erasing release was then the "
                    + "last reference and freed A.")
    @Outcome(id = "KEPT, HIT, PRESENT;E1, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The reader held a reference when the releaser looked (before its fetch-add, or "
                    + "between its fetch-add and its CAS to under-construction), so this was not "
                    + "the last reference and nothing was erased; the reader's plain release never "
                    + "erases, so A stays visible. The eraseIfLastRef request is simply lost.")
    @Outcome(id = ".*, HIT_.*, .*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-FREE: the reader held a reference to A but read other bytes, or its "
                    + "plain release freed the entry (HIT_FREED).")
    @Outcome(id = "KEPT, MISS, .*, .*", expect = FORBIDDEN,
            desc = "The erasing release saw another reference, yet the only other party missed.")
    @Outcome(id = "FREED, .*, PRESENT.*, .*", expect = FORBIDDEN,
            desc = "The release reported freeing A, yet A is still findable.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: A kept but gone (or vice versa), accounting off (ACCT_*), a "
                    + "leftover eviction does not free (STUCK_*), or an exception.")
    @State
    public static class LookupFixed {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
        final long handle;

        public LookupFixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Actor
        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.release(cache, handle, true);
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r2 = VersionedKeys.lookupReadRelease(cache, A);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            String seen = VersionedKeys.peek(cache, A);
            String presence = seen == null ? "GONE"
                    : seen.equals(VersionedKeys.label(A, 0)) ? "PRESENT" : "PRESENT_" + seen;
            r.r3 = presence + ";E" + cache.entryCount();
            r.r4 = FixedFixture.checkDrainClose(cache, A);
        }
    }

    /**
     * {@code release(h, eraseIfLastRef = true)} of the only handle to A (version 0) races
     * with {@code erase(A)} followed by {@code insert(A, version 1)}: the situation of the FIXME in
     * RocksDB's {@code FixedHyperClockTable::Release} ("another thread could replace this entry and
     * we end up erasing the wrong one"). Clockwork checks before every CAS that the slot still
     * holds the generation of the releaser's handle and stands down otherwise. (Left open: a
     * newcomer whose meta word equals the released entry's, published between that check and the
     * CAS. Here A_V0's word after the release has counters 3 and A_V1's 2, so the first CAS fails
     * and the retry meets the check.)
     *
     * <p>Result fields: r1 the erasing release, r2 erase's return and the insert's, r3 what a
     * lookup finds at the end and the table entries left, r4 accounting, drain check and close.
     */
    @JCStressTest
    @Description("The state holds the only handle to A_V0. Actor 1: release(h, eraseIfLastRef). "
            + "Actor 2: erase(A), then insert(A_V1). In every serial order A_V1 survives, because "
            + "actor 1's handle names A_V0. But the releaser first drops its reference (fetch-add) "
            + "and only then CASes the slot to under-construction, retrying with whatever word it "
            + "finds: if actor 2 erases A_V0 and re-inserts A_V1 into the same slot in that "
            + "window, the releaser's retried CAS takes the unreferenced A_V1 and frees it: "
            + "RocksDB's rare availability loss (FIXME in FixedHyperClockTable::Release). "
            + "Clockwork checks the slot's generation before every CAS and stands down, so A_V1 "
            + "must survive.")
    @Outcome(id = "FREED, NOT_FOUND;INSERTED, A_V1;E1, OK", expect = ACCEPTABLE,
            desc = "Release-erase first (freed A_V0), then erase missed and A_V1 was inserted.")
    @Outcome(id = "FREED, ERASED;INSERTED, A_V1;E1, OK", expect = ACCEPTABLE,
            desc = "Erase made the referenced A_V0 invisible; the release was its last reference "
                    + "and freed it; A_V1 went in before or after that.")
    @Outcome(id = "KEPT, ERASED;INSERTED, A_V1;E1, OK", expect = ACCEPTABLE,
            desc = "The release dropped the last reference but erase took ownership first and "
                    + "freed A_V0; the releaser's CAS saw a non-shareable word and stood down, or "
                    + "(RocksDB's FIXME window) found A_V1's generation in the slot and stood "
                    + "down.")
    @Outcome(id = "KEPT, ERASED;INSERTED, A_V1;E2, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "RocksDB's Unref wart: erase saw two references and made A_V0 invisible, the "
                    + "release dropped one (not last), erase's own unref dropped the last without "
                    + "freeing. A_V1 went into the next slot; A_V0 stays charged until eviction "
                    + "(the drain check proves a sweep frees it).")
    @Outcome(id = "FREED, ERASED;INSERTED, MISS;E0, OK", expect = FORBIDDEN,
            desc = "RocksDB's FIXME: erase freed A_V0 and A_V1 reused its slot between the "
                    + "releaser's fetch-add and CAS; the releaser's CAS loop took the unreferenced "
                    + "A_V1 and freed it. Seen 4 times in 1.5 M samples before handles carried "
                    + "generations; the generation check before the retried CAS rules it out here.")
    @Outcome(id = ".*, .*, A_V0.*, .*", expect = FORBIDDEN,
            desc = "A_V0 was erased (by erase or by the release) but is still findable.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a wrong value found, A_V1 missing without the FIXME pattern "
                    + "(release FREED, erase ERASED), a refused insert, accounting off (ACCT_*), a "
                    + "leftover eviction does not free (STUCK_*), or an exception.")
    @State
    public static class ReinsertFixed {
        final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
        final long handle;

        public ReinsertFixed() {
            VersionedKeys.insert(cache, A, 0, Priority.LOW);
            handle = VersionedKeys.lookup(cache, A);
        }

        @Actor
        public void releaser(LLLL_Result r) {
            r.r1 = Outcomes.release(cache, handle, true);
        }

        @Actor
        public void replacer(LLLL_Result r) {
            try {
                String erased = VersionedKeys.erase(cache, A) ? "ERASED" : "NOT_FOUND";
                String inserted =
                        VersionedKeys.insert(cache, A, 1, Priority.LOW) ? "INSERTED" : "REFUSED";
                r.r2 = erased + ";" + inserted;
            } catch (RuntimeException | Error e) {
                r.r2 = Outcomes.failure(e);
            }
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            String seen = VersionedKeys.peek(cache, A);
            r.r3 = (seen == null ? "MISS" : seen) + ";E" + cache.entryCount();
            r.r4 = FixedFixture.checkDrainClose(cache, A);
        }
    }

    /*
     * {@code release(h, eraseIfLastRef = true)} of the only handle to A races with
     * another thread's use of the key: a lookup ({@link Lookup}), or an erase and re-insert ({@link
     * Reinsert}, the situation of the FIXME in RocksDB's {@code FixedHyperClockTable::Release}, see
     * {@link ReleaseEraseVsLookup.ReinsertFixed}).
     *
     * <p>In RocksDB's {@code LRUCacheShard::Release} the whole decision runs under the shard mutex:
     * drop the reference; if it was the last one and the entry is still in the cache, erase it
     * (when asked to, or when over capacity) or put it back on the list. Ours is the same, under
     * the shard's monitor, and a handle names its record by index and generation. So "last
     * reference" is judged at one instant, and the release can only ever erase the entry its handle
     * names: the clock caches' window between dropping the reference and taking the slot, in which
     * another thread's re-insert can be erased instead (RocksDB's rare availability loss), does not
     * exist.
     *
     * <p>The cache has room for 3 entries, a high pool of half the capacity and no low pool. The
     * state inserts A_V0 (LOW) and takes the only handle to it with a lookup (so A is marked hit).
     */
    abstract static class LruBase {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);
        final long handle;

        LruBase() {
            LruFixture.fill(cache, Priority.LOW, A);
            handle = VersionedKeys.lookup(cache, A);
        }

        void releaseErasing(LLLL_Result r) {
            r.r1 = Outcomes.release(cache, handle, true);
        }

        /** Pools first (a lookup would promote A), then what a lookup of A finds, entries. */
        String view() {
            String pools = LruFixture.pools(cache);
            long entries = cache.entryCount();
            String seen = VersionedKeys.peek(cache, A);
            return (seen == null ? "MISS" : seen) + ";E" + entries + ";" + pools;
        }

        void arbiter(LLLL_Result r, long expectedEntries) {
            try {
                r.r3 = view();
            } catch (RuntimeException | Error e) {
                r.r3 = Outcomes.failure(e);
            }
            r.r4 = LruFixture.checkDrainClose(cache,
                    () -> LruFixture.accounting(cache, expectedEntries));
        }
    }

    /**
     * Result fields: r1 the erasing release (FREED or KEPT), r2 the reader, r3 what a lookup of A
     * finds at the end, the entries (E) and the pools (read first), r4 accounting, drain, close.
     */
    @JCStressTest
    @Description("The state holds the only handle to A. Actor 1 releases it with "
            + "eraseIfLastRef; actor 2 looks A up, reads it and releases normally. 'Erase if "
            + "last ref' is judged under the shard's lock: if the reader holds a reference "
            + "then, this is not the last reference, nothing is erased, and the reader's plain "
            + "release puts A back on the list (the erase request is lost, as in RocksDB). A "
            + "hit must read A's bytes; A is freed at most once, and only by the erasing "
            + "release.")
    @Outcome(id = "FREED, MISS, MISS;E0;H0L0B0, OK", expect = ACCEPTABLE,
            desc = "The erasing release came first: last reference, so it erased and freed A; "
                    + "the lookup missed.")
    @Outcome(id = "FREED, HIT, MISS;E0;H0L0B0, OK", expect = ACCEPTABLE,
            desc = "The reader's lookup and release both came first (its release was not the "
                    + "last); the erasing release then held the last reference and freed A.")
    @Outcome(id = "KEPT, HIT, A_V0;E1;H1L0B0, OK", expect = ACCEPTABLE_INTERESTING,
            desc = "The reader held a reference when the erasing release ran, so that was not "
                    + "the last reference and nothing was erased (the RocksDB rule: "
                    + "erase_if_last_ref acts only on the last reference). The reader's plain "
                    + "release was the last one and put A back on the list, in the high pool "
                    + "since A was hit. The erase request is lost; A stays available.")
    @Outcome(id = ".*, HIT_.*, .*, .*", expect = FORBIDDEN,
            desc = "USE-AFTER-FREE: the reader held a reference to A but read other bytes, or "
                    + "its plain release freed A (HIT_FREED: it was not erased, and a "
                    + "3-entry cache holding one entry is not over capacity).")
    @Outcome(id = "KEPT, MISS, .*, .*", expect = FORBIDDEN,
            desc = "The erasing release saw another reference, yet the only other party missed.")
    @Outcome(id = "FREED, .*, A_V0.*, .*", expect = FORBIDDEN,
            desc = "The release reported freeing A, yet A is still findable.")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: A kept but gone, pools off, accounting off (ACCT_*), a list "
                    + "the drain cannot empty (STUCK_*), or an exception (EX_*: the handle was "
                    + "refused although it was held).")
    @State
    public static class LookupLru extends LruBase {
        @Actor
        public void releaser(LLLL_Result r) {
            releaseErasing(r);
        }

        @Actor
        public void reader(LLLL_Result r) {
            r.r2 = VersionedKeys.lookupReadRelease(cache, A);
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            arbiter(r, -1);
        }
    }

    /**
     * Result fields: r1 the erasing release, r2 erase's return and the insert's, r3 what a lookup
     * of A finds at the end, the entries and the pools, r4 accounting, drain, close.
     */
    @JCStressTest
    @Description("The state holds the only handle to A_V0. Actor 1: release(h, eraseIfLastRef). "
            + "Actor 2: erase(A), then insert(A_V1, LOW). The handle names A_V0's record and "
            + "generation, and the release decides under the shard's lock, so it can free "
            + "A_V0 only: A_V1 must survive in every interleaving. (In the clock caches the "
            + "release can erase A_V1 instead: RocksDB's FIXME, a rare availability loss; see "
            + "ReleaseEraseVsLookup.ReinsertFixed.)")
    @Outcome(id = "FREED, NOT_FOUND;INSERTED, A_V1;E1;H0L0B1, OK", expect = ACCEPTABLE,
            desc = "The erasing release came first and freed A_V0; erase found nothing; A_V1 "
                    + "went in (LOW, no low pool: bottom pool).")
    @Outcome(id = "FREED, ERASED;INSERTED, A_V1;E1;H0L0B1, OK", expect = ACCEPTABLE,
            desc = "Erase took the referenced A_V0 out of the index only; the release, its last "
                    + "reference, freed it (before or after A_V1 went in); A_V1 is untouched.")
    @Outcome(id = ".*, .*, MISS.*, .*", expect = FORBIDDEN,
            desc = "RocksDB's FIXME pattern: the release erased the re-inserted A_V1 (the "
                    + "release must only ever act on the entry its handle names).")
    @Outcome(id = ".*, .*, A_V0.*, .*", expect = FORBIDDEN,
            desc = "A_V0 was erased and released, yet it is still findable.")
    @Outcome(id = "KEPT, .*, .*, .*", expect = FORBIDDEN,
            desc = "The only reference was released, yet the release did not free A_V0 (it "
                    + "would leak or linger charged).")
    @Outcome(expect = FORBIDDEN,
            desc = "Anything else: a refused insert, E2 (A_V0 still indexed), pools off, "
                    + "accounting off (ACCT_*), a list the drain cannot empty (STUCK_*), or an "
                    + "exception.")
    @State
    public static class ReinsertLru extends LruBase {
        @Actor
        public void releaser(LLLL_Result r) {
            releaseErasing(r);
        }

        @Actor
        public void replacer(LLLL_Result r) {
            try {
                String erased = VersionedKeys.erase(cache, A) ? "ERASED" : "NOT_FOUND";
                String inserted = VersionedKeys.insert(cache, A, 1, Priority.LOW)
                        ? "INSERTED" : "REFUSED";
                r.r2 = erased + ";" + inserted;
            } catch (RuntimeException | Error e) {
                r.r2 = Outcomes.failure(e);
            }
        }

        @Arbiter
        public void arbiter(LLLL_Result r) {
            arbiter(r, 1);
        }
    }
}
