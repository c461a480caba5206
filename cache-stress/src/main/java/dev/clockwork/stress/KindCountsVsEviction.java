package dev.clockwork.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.CacheStats;
import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.KindStats;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.CacheOptions;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.ShardedCache;
import java.lang.foreign.MemorySegment;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * Per-kind usage and entries stay exact when one thread's insert evicts the entry another thread
 * stores: each kind is counted up on its inserting thread and down on whichever thread evicts it
 * (atomic adds to striped counters, {@code KindCounts}). A cache with room for one entry holds a
 * {@link EntryKind#DATA} entry; one actor inserts an {@link EntryKind#INDEX} entry, the other a
 * second DATA entry, each evicting what it must. Afterwards the per-kind figures must equal what a
 * visit of the cache finds, and make up {@code usage()}; then every key is erased and the
 * figures must be 0.
 *
 * <p>Result fields: r1 the entries left per kind ({@code D<data>I<index>}), r2 the check: OK, or
 * what was off.
 */
public class KindCountsVsEviction {
    private static final byte[] VALUE = new byte[8];

    /** Room for one entry of charge 1 (metadata not charged), one shard, no admission. */
    static ShardedCache newCache(CacheOptions<?> builder) {
        ShardedCache cache = builder.capacity(1).numShardBits(0).chargeMetadata(false)
                .admission(AdmissionPolicy.NONE).kinds(EntryKind.DATA, EntryKind.INDEX).build();
        cache.insert(1, 0, VALUE, 0, VALUE.length, 1, EntryKind.DATA);
        return cache;
    }

    static void insert(ShardedCache cache, long key, EntryKind kind) {
        cache.insert(key, 0, VALUE, 0, VALUE.length, 1, kind);
    }

    /** r1 and r2 as described above; closes the cache. */
    static void check(ShardedCache cache, LL_Result r) {
        try {
            long[] usage = new long[EntryKind.MAX_INDEX + 1];
            long[] entries = new long[EntryKind.MAX_INDEX + 1];
            cache.forEachEntry(new EntryVisitor() {
                @Override
                public void visit(long key0, long key1, MemorySegment value, long charge) {
                    throw new AssertionError("the kind-aware visit is called");
                }

                @Override
                public void visit(long key0, long key1, MemorySegment value, long charge,
                                  EntryKind kind) {
                    usage[kind.kindIndex()] += charge;
                    entries[kind.kindIndex()]++;
                }
            }, 16);
            CacheStats stats = cache.stats();
            KindStats data = stats.kind(EntryKind.DATA);
            KindStats index = stats.kind(EntryKind.INDEX);
            r.r1 = "D" + data.entries() + "I" + index.entries();
            String check = "OK";
            if (data.entries() != entries[1] || index.entries() != entries[2]
                    || data.usage() != usage[1] || index.usage() != usage[2]) {
                check = "VISIT_" + entries[1] + "_" + entries[2];
            } else if (data.usage() + index.usage() + usage[0] != cache.usage()) {
                check = "USAGE_" + cache.usage();
            }
            for (long key = 1; key <= 3; key++) {
                cache.erase(key, 0);
            }
            stats = cache.stats();
            if (check.equals("OK") && (stats.kind(EntryKind.DATA).entries() != 0
                    || stats.kind(EntryKind.INDEX).entries() != 0
                    || stats.kind(EntryKind.DATA).usage() != 0 || cache.usage() != 0)) {
                check = "STUCK";
            }
            r.r2 = check;
        } catch (RuntimeException | Error e) {
            r.r2 = Outcomes.failure(e);
        } finally {
            cache.close();
        }
    }

    @JCStressTest
    @Description("Fixed table: insert(INDEX) races with insert(DATA), each evicting; the per-kind"
            + " counts must match a visit and usage, and drop to 0 when every key is erased.")
    @Outcome(id = "D.*, OK", expect = ACCEPTABLE,
            desc = "The kinds' figures are exact, whichever entries survived.")
    @Outcome(expect = FORBIDDEN, desc = "A kind's count off (VISIT_, USAGE_, STUCK) or a throw.")
    @State
    public static class Fixed {
        final ShardedCache cache =
                newCache(HyperClockCache.builder().estimatedEntryCharge(1));

        @Actor
        public void index() {
            insert(cache, 2, EntryKind.INDEX);
        }

        @Actor
        public void data() {
            insert(cache, 3, EntryKind.DATA);
        }

        @Arbiter
        public void arbiter(LL_Result r) {
            check(cache, r);
        }
    }

    @JCStressTest
    @Description("Auto table: as Fixed.")
    @Outcome(id = "D.*, OK", expect = ACCEPTABLE,
            desc = "The kinds' figures are exact, whichever entries survived.")
    @Outcome(expect = FORBIDDEN, desc = "A kind's count off (VISIT_, USAGE_, STUCK) or a throw.")
    @State
    public static class Auto {
        final ShardedCache cache = newCache(HyperClockCache.builder().minAvgEntryCharge(1));

        @Actor
        public void index() {
            insert(cache, 2, EntryKind.INDEX);
        }

        @Actor
        public void data() {
            insert(cache, 3, EntryKind.DATA);
        }

        @Arbiter
        public void arbiter(LL_Result r) {
            check(cache, r);
        }
    }

    @JCStressTest
    @Description("LRU: as Fixed (under the shard's lock; the counters are the same).")
    @Outcome(id = "D.*, OK", expect = ACCEPTABLE,
            desc = "The kinds' figures are exact, whichever entries survived.")
    @Outcome(expect = FORBIDDEN, desc = "A kind's count off (VISIT_, USAGE_, STUCK) or a throw.")
    @State
    public static class Lru {
        final ShardedCache cache = newCache(LruCache.builder());

        @Actor
        public void index() {
            insert(cache, 2, EntryKind.INDEX);
        }

        @Actor
        public void data() {
            insert(cache, 3, EntryKind.DATA);
        }

        @Arbiter
        public void arbiter(LL_Result r) {
            check(cache, r);
        }
    }
}
