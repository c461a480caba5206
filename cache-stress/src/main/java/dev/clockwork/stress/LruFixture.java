package dev.clockwork.stress;

import static dev.clockwork.stress.Outcomes.close;
import static dev.clockwork.stress.Outcomes.failure;
import static dev.clockwork.stress.Outcomes.problems;
import static dev.clockwork.stress.VersionedKeys.A;
import static dev.clockwork.stress.VersionedKeys.CHARGE;
import static dev.clockwork.stress.VersionedKeys.F1;
import static dev.clockwork.stress.VersionedKeys.F2;
import static dev.clockwork.stress.VersionedKeys.F3;
import static dev.clockwork.stress.VersionedKeys.K1;
import static dev.clockwork.stress.VersionedKeys.K2;
import static dev.clockwork.stress.VersionedKeys.K3;
import static dev.clockwork.stress.VersionedKeys.P;
import static dev.clockwork.stress.VersionedKeys.erase;
import static dev.clockwork.stress.VersionedKeys.insert;
import static dev.clockwork.stress.VersionedKeys.label;
import static dev.clockwork.stress.VersionedKeys.peek;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.stress.Outcomes.Check;

/**
 * Tiny {@link LruCache}s for the stress tests, for the keys of {@link VersionedKeys}
 * ({@link VersionedKeys#read} names the key and version whose bytes a handle holds), and the
 * checks an arbiter makes of them (the LRU counterpart of {@link FixedFixture}, with the same
 * method names).
 *
 * <h2>Sizes</h2>
 * One shard, no metadata charge ({@code chargeMetadata(false)}: usage is exactly
 * {@link VersionedKeys#CHARGE} per entry, referenced or not), capacity a few entries:
 * {@link #ROOM_2} or
 * {@link #ROOM_3}. The pool ratios are each test's own; {@link #HIGH_RATIO} 0.5 and
 * {@link #LOW_RATIO} 0.0 (RocksDB's defaults) unless a test says otherwise. All state lives under
 * the shard's one monitor, so every operation is atomic with respect to the others: the tests
 * check that the rules of RocksDB's LRUCache hold in every interleaving, that a handle reads its
 * own bytes for as long as it is held, and that the accounting is exact afterwards.
 *
 * <h2>Pools</h2>
 * {@link #pools} labels {@link LruCache#poolUsage()} in entries, {@code H<n>L<n>B<n>}: the
 * unreferenced entries of the high, low and bottom pools. Arbiters read it before they look a key
 * up, because a lookup marks the entry as hit and its release moves it to the high pool.
 *
 * <h2>Labels</h2>
 * Outcome strings use {@code [A-Z0-9_;]} only (jcstress joins result fields with ", ").
 */
final class LruFixture {
        /** Room for exactly 2 entries: the 3rd insert must evict. */
    static final long ROOM_2 = 2 * CHARGE;
    /** Room for exactly 3 entries. */
    static final long ROOM_3 = 3 * CHARGE;
    static final double HIGH_RATIO = 0.5;
    static final double LOW_RATIO = 0.0;

    /** The keys {@link #drainAndClose} erases, inserts and erases again. */
    private static final int[] ALL_KEYS =
            {A, P, K1, K2, K3, F1, F2, F3};
    private static final Priority[] PRIORITIES = {Priority.HIGH, Priority.LOW, Priority.BOTTOM};

    private LruFixture() {
    }

    /** A one-shard LRU cache with the default test ratios. */
    static LruCache newCache(long room) {
        return newCache(room, HIGH_RATIO, LOW_RATIO);
    }

    /**
     * A one-shard LRU cache without metadata charge. Throws if it does not start empty with one
     * shard, so that the tests' arithmetic holds.
     */
    static LruCache newCache(long room, double highRatio, double lowRatio) {
        LruCache cache = LruCache.builder()
                .capacity(room)
                .numShardBits(0)
                .highPriPoolRatio(highRatio)
                .lowPriPoolRatio(lowRatio)
                .chargeMetadata(false)
                .admission(AdmissionPolicy.NONE)
                .build();
        if (cache.numShards() != 1 || cache.usage() != 0 || cache.entryCount() != 0) {
            int shards = cache.numShards();
            long usage = cache.usage();
            cache.close();
            throw new IllegalStateException("expected 1 shard and usage 0, got " + shards
                    + " shards, usage " + usage);
        }
        return cache;
    }

    /** Inserts version 0 of each key in the given order; throws if any is refused (set-up). */
    static void fill(LruCache cache, Priority priority, int... keys) {
        for (int key : keys) {
            if (!insert(cache, key, 0, priority)) {
                throw new IllegalStateException("set-up insert of " + label(key, 0)
                        + " refused");
            }
        }
    }

    /**
     * Whether version 0 of {@code key} is findable: PRESENT, GONE, or {@code READS_x} when the
     * lookup finds other bytes.
     */
    static String presence(Cache cache, int key) {
        String seen = peek(cache, key);
        return seen == null ? "GONE" : seen.equals(label(key, 0)) ? "PRESENT" : "READS_" + seen;
    }

    /** Version 0 of {@code key} must be findable: OK, or e.g. {@code P_GONE}, {@code P_READS_x}. */
    static String present(Cache cache, int key) {
        String p = presence(cache, key);
        return p.equals("PRESENT") ? "OK" : label(key, 0).replace("_V0", "") + "_" + p;
    }

    /** The pools' unreferenced entries: {@code H<n>L<n>B<n>} (or the raw bytes if not whole). */
    static String pools(LruCache cache) {
        LruCache.PoolUsage p = cache.poolUsage();
        if (p.high() % CHARGE != 0 || p.low() % CHARGE != 0 || p.bottom() % CHARGE != 0) {
            return "POOLS_H" + p.high() + "_L" + p.low() + "_B" + p.bottom();
        }
        return "H" + p.high() / CHARGE + "L" + p.low() / CHARGE + "B" + p.bottom() / CHARGE;
    }

    /**
     * Accounting with no handle held: usage is {@link VersionedKeys#CHARGE} per entry and within
     * capacity,
     * nothing is pinned (by {@code pinnedUsage()} and by the pools' view), the pools hold all of
     * the usage, and the high and low pools are within their shares of capacity. With
     * {@code expectedEntries >= 0} the entry count must match too.
     *
     * @return {@code OK}, or the numbers that do not add up
     */
    static String accounting(LruCache cache, double highRatio, double lowRatio,
                             long expectedEntries) {
        long usage = cache.usage();
        long entries = cache.entryCount();
        long pinned = cache.pinnedUsage();
        LruCache.PoolUsage p = cache.poolUsage();
        long capacity = cache.capacity();
        if (usage == CHARGE * entries && usage <= capacity && pinned == 0 && p.pinned() == 0
                && p.total() == usage && p.high() <= (long) (capacity * highRatio)
                && p.low() <= (long) (capacity * lowRatio)
                && (expectedEntries < 0 || entries == expectedEntries)) {
            return "OK";
        }
        return "ACCT_U" + usage + "_E" + entries + "_P" + pinned + "_H" + p.high() + "_L"
                + p.low() + "_B" + p.bottom() + "_PP" + p.pinned();
    }

    /** {@link #accounting} with the default ratios. */
    static String accounting(LruCache cache, long expectedEntries) {
        return accounting(cache, HIGH_RATIO, LOW_RATIO, expectedEntries);
    }

    /**
     * The arbiters' last word. Erases every test key; inserts six keys (K1..K3, F1..F3, cycling
     * HIGH, LOW, BOTTOM), which in a cache of room for 2 or 3 entries makes the later inserts
     * evict from the oldest end of the list, so a list left inconsistent by the race (an entry
     * freed but still linked, a pool cursor on a freed entry) is walked; erases them all again.
     * The cache must then be empty: usage 0, no entries, all pools 0. Then close.
     *
     * @return {@code OK}, or the problems found
     */
    static String drainAndClose(LruCache cache) {
        String drained;
        try {
            for (int key : ALL_KEYS) {
                erase(cache, key);
            }
            int refused = 0;
            for (int i = 2; i < ALL_KEYS.length; i++) {
                if (!insert(cache, ALL_KEYS[i], 0, PRIORITIES[i % PRIORITIES.length])) {
                    refused++;
                }
            }
            for (int key : ALL_KEYS) {
                erase(cache, key);
            }
            long usage = cache.usage();
            long entries = cache.entryCount();
            LruCache.PoolUsage p = cache.poolUsage();
            drained = usage == 0 && entries == 0 && p.total() == 0 && refused == 0 ? "OK"
                    : "STUCK_U" + usage + "_E" + entries + "_H" + p.high() + "_L" + p.low()
                    + "_B" + p.bottom() + "_PP" + p.pinned() + "_R" + refused;
        } catch (RuntimeException | Error e) {
            drained = failure(e);
        }
        return problems(drained, close(cache));
    }

    /** Runs the checks, then {@link #drainAndClose}, catching failures: OK or the problems. */
    static String checkDrainClose(LruCache cache, Check check) {
        String checks;
        try {
            checks = check.run();
        } catch (RuntimeException | Error e) {
            checks = failure(e);
        }
        return problems(checks, drainAndClose(cache));
    }
}
