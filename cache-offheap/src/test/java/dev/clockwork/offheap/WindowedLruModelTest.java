package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An LRU cache with an admission policy is W-TinyLFU: a window, then a main list of probation
 * (bottom pool) and protected (high pool, 0.8 of the main region) entries. This test replays
 * seeded random lookups and inserts of charges 1 to 3, one shard, nothing pinned, against a model
 * of those rules written with three {@link LinkedHashMap}s, and checks every hit, every insert's
 * result, the admission rejects and, at the end, which keys are cached. The policy is the test's
 * own, the same for both: it admits a candidate seen more often than the victim, and moves the
 * window's share every few hundred operations, through 0 (new entries judged at once) and 1 (all
 * window).
 */
class WindowedLruModelTest {
    private static final long CAPACITY = 64;
    private static final int KEYS = 200;
    private static final int OPS = 60_000;
    private static final double[] SHARES = {0.01, 0.2, 0, 0.5, 1, 0.05};
    private static final byte[] VALUE = new byte[4];

    /** Counts lookups per key; admits the more often seen; its window share is set by the test. */
    static final class CountingPolicy implements Admission {
        final Map<Long, Integer> seen = new HashMap<>();
        double share = SHARES[0];

        @Override
        public void recordAccess(long keyHash, boolean hit) {
            seen.merge(keyHash, 1, Integer::sum);
        }

        @Override
        public boolean admit(long candidateHash, long victimHash) {
            return seen.getOrDefault(candidateHash, 0) > seen.getOrDefault(victimHash, 0);
        }

        @Override
        public double windowShare() {
            return share;
        }
    }

    /** The rules, on the heap: each map oldest first, key to charge. */
    static final class Model {
        final CountingPolicy policy = new CountingPolicy();
        final LinkedHashMap<Long, Long> window = new LinkedHashMap<>();
        final LinkedHashMap<Long, Long> probation = new LinkedHashMap<>();
        final LinkedHashMap<Long, Long> protectedRegion = new LinkedHashMap<>();
        long usage;
        long windowUsage;
        long protectedUsage;
        long windowCapacity;
        long protectedCapacity;
        /** Window entries that lost their duel, and new entries refused. */
        long rejects;
        double share = Double.NaN;

        boolean lookup(long key) {
            boolean hit = usageOf(key) >= 0;
            policy.recordAccess(key, hit);
            if (window.containsKey(key)) {
                window.put(key, window.remove(key)); // to the window's newest end
            } else if (probation.containsKey(key)) {
                protect(key, probation.remove(key));
            } else if (protectedRegion.containsKey(key)) {
                long charge = protectedRegion.remove(key);
                protectedUsage -= charge;
                protect(key, charge);
            }
            return hit;
        }

        private long usageOf(long key) {
            Long c = window.get(key);
            if (c == null) {
                c = probation.get(key);
            }
            if (c == null) {
                c = protectedRegion.get(key);
            }
            return c == null ? -1 : c;
        }

        private void protect(long key, long charge) {
            protectedRegion.put(key, charge);
            protectedUsage += charge;
            demoteOverflow();
        }

        private void demoteOverflow() {
            while (protectedUsage > protectedCapacity) {
                Map.Entry<Long, Long> oldest = first(protectedRegion);
                protectedRegion.remove(oldest.getKey());
                protectedUsage -= oldest.getValue();
                probation.put(oldest.getKey(), oldest.getValue());
            }
        }

        /** Inserts an absent key; returns whether it was stored. */
        boolean insert(long key, long charge) {
            followShare();
            boolean intoWindow = charge <= windowCapacity;
            boolean full = usage + charge > CAPACITY;
            while (usage + charge > CAPACITY) {
                Map.Entry<Long, Long> victim = mainOldest();
                if (victim == null) {
                    if (window.isEmpty()) {
                        break;
                    }
                    evict(first(window).getKey());
                } else if (!window.isEmpty()
                        && windowUsage + (intoWindow ? charge : 0) > windowCapacity) {
                    long candidate = first(window).getKey();
                    if (policy.admit(candidate, victim.getKey())) {
                        evict(victim.getKey());
                        probation.put(candidate, removeFromWindow(candidate));
                    } else {
                        evict(candidate);
                        rejects++;
                    }
                } else if (!intoWindow) {
                    if (!policy.admit(key, victim.getKey())) {
                        rejects++;
                        return false;
                    }
                    evict(victim.getKey());
                } else {
                    evict(victim.getKey());
                }
            }
            if (!full) {
                while (windowUsage + (intoWindow ? charge : 0) > windowCapacity
                        && !window.isEmpty()) {
                    long oldest = first(window).getKey();
                    probation.put(oldest, removeFromWindow(oldest));
                }
            }
            usage += charge;
            if (intoWindow) {
                window.put(key, charge);
                windowUsage += charge;
            } else {
                probation.put(key, charge);
            }
            return true;
        }

        private void followShare() {
            if (policy.share != share) {
                share = policy.share;
                windowCapacity = (long) (CAPACITY * share);
                protectedCapacity = (long) ((CAPACITY - windowCapacity) * 0.8);
                demoteOverflow();
            }
        }

        private Map.Entry<Long, Long> mainOldest() {
            return !probation.isEmpty() ? first(probation)
                    : !protectedRegion.isEmpty() ? first(protectedRegion) : null;
        }

        private long removeFromWindow(long key) {
            long charge = window.remove(key);
            windowUsage -= charge;
            return charge;
        }

        private void evict(long key) {
            long charge;
            if (window.containsKey(key)) {
                charge = removeFromWindow(key);
            } else if (probation.containsKey(key)) {
                charge = probation.remove(key);
            } else {
                charge = protectedRegion.remove(key);
                protectedUsage -= charge;
            }
            usage -= charge;
        }

        private static Map.Entry<Long, Long> first(LinkedHashMap<Long, Long> map) {
            Iterator<Map.Entry<Long, Long>> it = map.entrySet().iterator();
            return it.next();
        }

        TreeSet<Long> keys() {
            TreeSet<Long> keys = new TreeSet<>(window.keySet());
            keys.addAll(probation.keySet());
            keys.addAll(protectedRegion.keySet());
            return keys;
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void theCacheAgreesWithTheModel(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Model model = new Model();
        // The cache's policy sees hashed keys; counting them per hash is the same as per key.
        CountingPolicy policy = new CountingPolicy();
        long before = NativeMemory.outstandingBytes();
        try (Cache cache = LruCache.builder().capacity(CAPACITY).numShardBits(0)
                .chargeMetadata(false).admission(policy).build()) {
            for (int op = 0; op < OPS; op++) {
                if (op % 700 == 0) {
                    policy.share = model.policy.share = SHARES[(op / 700) % SHARES.length];
                }
                long key = skewedKey(random);
                long charge = 1 + (key % 3);
                long h = cache.lookup(key, 0);
                boolean hit = h != Cache.MISS;
                if (hit) {
                    cache.release(h);
                }
                assertEquals(model.lookup(key), hit, "op " + op + ": lookup of " + key);
                if (!hit) {
                    boolean stored = cache.insert(key, 0, VALUE, 0, VALUE.length, charge,
                            Priority.LOW);
                    assertEquals(model.insert(key, charge), stored, "op " + op + ": insert " + key);
                }
                assertEquals(model.usage, cache.usage(), "op " + op + ": usage");
            }
            assertEquals(model.rejects, cache.stats().admissionRejects(),
                    "window entries that lost, and new entries refused");
            TreeSet<Long> cached = new TreeSet<>();
            for (long k = 0; k < KEYS; k++) {
                long h = cache.lookup(k, 0);
                if (h != Cache.MISS) {
                    cached.add(k);
                    cache.release(h);
                }
            }
            assertEquals(model.keys(), cached);
        }
        assertEquals(before, NativeMemory.outstandingBytes());
    }

    /** Keys 0..KEYS-1, low keys far more often: a frequency signal for the policy to use. */
    private static long skewedKey(SplittableRandom random) {
        double u = random.nextDouble();
        return (long) (KEYS * u * u * u);
    }
}
