package dev.clockwork.cli.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.LruCache;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The Clockwork caches as policies. */
class ClockworkPolicyTest {

    private static Trace randomTrace(long seed, int length, int keySpace, boolean sizes) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] keys = new long[length];
        int[] sz = sizes ? new int[length] : null;
        for (int i = 0; i < length; i++) {
            // skewed, so that there are hits at every capacity
            keys[i] = Math.min(random.nextInt(keySpace), random.nextInt(keySpace));
            if (sizes) {
                sz[i] = 1 + (int) (keys[i] * 37 % 500); // a key keeps its size
            }
        }
        return new Trace("random", keys, sz, null);
    }

    /** lru_cache with no pools, no admission, one shard, uncharged metadata: LRU exactly. */
    private static SimPolicy lruCacheWithoutPools(long capacityCharge, long unitCharge) {
        LruCache cache = LruCache.builder().capacity(capacityCharge).numShardBits(0)
                .chargeMetadata(false).highPriPoolRatio(0).lowPriPoolRatio(0)
                .admission(AdmissionPolicy.NONE).build();
        return new ClockworkPolicy(cache, unitCharge, capacityCharge);
    }

    @Test
    void lruCacheWithoutPoolsHitsExactlyAsTheReferenceLru() {
        Trace t = randomTrace(7, 50_000, 4000, false);
        for (long capacity : new long[] {1, 64, 500, 2000}) {
            long reference = Replay.replay(t, false, new LruPolicy(capacity), Progress.none(), "");
            long clockwork;
            try (SimPolicy p = lruCacheWithoutPools(capacity * ClockworkPolicy.ENTRY_CHARGE,
                    ClockworkPolicy.ENTRY_CHARGE)) {
                clockwork = Replay.replay(t, false, p, Progress.none(), "");
            }
            assertEquals(reference, clockwork, "capacity " + capacity);
        }
    }

    @Test
    void lruCacheWithoutPoolsHitsExactlyAsTheReferenceLruInBytes() {
        Trace t = randomTrace(11, 30_000, 3000, true);
        for (long capacity : new long[] {499, 20_000, 200_000}) {
            long reference = Replay.replay(t, true, new LruPolicy(capacity), Progress.none(), "");
            long clockwork;
            try (SimPolicy p = lruCacheWithoutPools(capacity, 1)) {
                clockwork = Replay.replay(t, true, p, Progress.none(), "");
            }
            assertEquals(reference, clockwork, "capacity " + capacity);
        }
    }

    @Test
    void everyRegisteredPolicyReplaysAndClosesInEntriesAndBytes() {
        PolicyRegistry registry = PolicyRegistry.standard();
        for (boolean bytes : new boolean[] {false, true}) {
            Trace t = randomTrace(3, 5_000, 800, bytes);
            long capacity = bytes ? 20_000 : 100;
            long opt = Replay.run(t, capacity, bytes, "opt", registry.factory("opt"),
                    Progress.none()).hits();
            for (String name : bytes ? registry.namesTakingBytes() : registry.names()) {
                SimResult r = Replay.run(t, capacity, bytes, name, registry.factory(name),
                        Progress.none());
                assertEquals(t.length(), r.accesses());
                assertTrue(r.hits() > 0, name);
                if (!bytes) { // with sizes the greedy OPT is a heuristic, not a bound
                    assertTrue(r.hits() <= opt, name + " " + r.hits() + " > opt " + opt);
                }
            }
        }
    }
}
