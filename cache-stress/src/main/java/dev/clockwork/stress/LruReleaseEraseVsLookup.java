package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
 * LRU test (c): {@code release(h, eraseIfLastRef = true)} of the only handle to A races with
 * another thread's use of the key: a lookup ({@link Lookup}), or an erase and re-insert
 * ({@link Reinsert}, the situation of the FIXME in RocksDB's {@code FixedHyperClockTable::Release},
 * see {@link FixedHccReleaseEraseVsReinsert}).
 *
 * <p>In RocksDB's {@code LRUCacheShard::Release} the whole decision runs under the shard mutex:
 * drop the reference; if it was the last one and the entry is still in the cache, erase it (when
 * asked to, or when over capacity) or put it back on the list. Ours is the same, under the
 * shard's monitor, and a handle names its record by index and generation. So "last reference" is
 * judged at one instant, and the release can only ever erase the entry its handle names: the
 * clock caches' window between dropping the reference and taking the slot, in which another
 * thread's re-insert can be erased instead (RocksDB's rare availability loss), does not exist.
 *
 * <p>The cache has room for 3 entries, a high pool of half the capacity and no low pool. The
 * state inserts A_V0 (LOW) and takes the only handle to it with a lookup (so A is marked hit).
 */
public class LruReleaseEraseVsLookup {

    abstract static class Base {
        final LruCache cache = LruFixture.newCache(LruFixture.ROOM_3);
        final long handle;

        Base() {
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
    public static class Lookup extends Base {
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
            + "FixedHccReleaseEraseVsReinsert.)")
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
    public static class Reinsert extends Base {
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
