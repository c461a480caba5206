package dev.clockwork.stress;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.LruCache;

/**
 * Shared pieces of the {@code Lru*} stress tests: tiny {@link LruCache}s and checks that turn
 * what a thread saw into short outcome labels (the LRU counterpart of {@link Tiny}, whose keys
 * and self-describing 24-byte values these tests use: {@link Tiny#read} names the key and
 * version whose bytes a handle holds).
 *
 * <h2>Sizes</h2>
 * One shard, no metadata charge ({@code chargeMetadata(false)}: usage is exactly
 * {@link #CHARGE} per entry, referenced or not), capacity a few entries: {@link #ROOM_2} or
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
final class LruTiny {
    static final long CHARGE = Tiny.CHARGE;
    /** Room for exactly 2 entries: the 3rd insert must evict. */
    static final long ROOM_2 = 2 * CHARGE;
    /** Room for exactly 3 entries. */
    static final long ROOM_3 = 3 * CHARGE;
    static final double HIGH_RATIO = 0.5;
    static final double LOW_RATIO = 0.0;

    /** The keys {@link #drainAndClose} erases, inserts and erases again. */
    private static final int[] ALL_KEYS =
            {Tiny.A, Tiny.P, Tiny.K1, Tiny.K2, Tiny.K3, Tiny.F1, Tiny.F2, Tiny.F3};
    private static final Priority[] PRIORITIES = {Priority.HIGH, Priority.LOW, Priority.BOTTOM};

    private LruTiny() {
    }

    /** A one-shard LRU cache with the default test ratios. */
    static LruCache cache(long capacity) {
        return cache(capacity, HIGH_RATIO, LOW_RATIO);
    }

    /**
     * A one-shard LRU cache without metadata charge. Throws if it does not start empty with one
     * shard, so that the tests' arithmetic holds.
     */
    static LruCache cache(long capacity, double highRatio, double lowRatio) {
        LruCache cache = LruCache.builder()
                .capacity(capacity)
                .numShardBits(0)
                .highPriPoolRatio(highRatio)
                .lowPriPoolRatio(lowRatio)
                .chargeMetadata(false)
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
            if (!Tiny.insert(cache, key, 0, priority)) {
                throw new IllegalStateException("set-up insert of " + Tiny.label(key, 0)
                        + " refused");
            }
        }
    }

    /**
     * Looks up {@code key}, reads its value and releases: "MISS", "HIT" (version 0 of the key),
     * "HIT_" + the label of other bytes, with "_FREED" appended if the release freed the entry;
     * or the failure's name.
     */
    static String lookupReadRelease(LruCache cache, int key) {
        try {
            long h = Tiny.lookup(cache, key);
            if (h == Cache.MISS) {
                return "MISS";
            }
            String seen = Tiny.read(cache, h);
            boolean freed = cache.release(h);
            return (seen.equals(Tiny.label(key, 0)) ? "HIT" : "HIT_" + seen)
                    + (freed ? "_FREED" : "");
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** What a lookup of {@code key} finds now: the bytes' label, or null on a miss. */
    static String peek(Cache cache, int key) {
        long h = Tiny.lookup(cache, key);
        if (h == Cache.MISS) {
            return null;
        }
        String seen = Tiny.read(cache, h);
        cache.release(h);
        return seen;
    }

    /**
     * Whether version 0 of {@code key} is findable: PRESENT, GONE, or {@code READS_x} when the
     * lookup finds other bytes.
     */
    static String presence(Cache cache, int key) {
        String seen = peek(cache, key);
        return seen == null ? "GONE" : seen.equals(Tiny.label(key, 0)) ? "PRESENT" : "READS_" + seen;
    }

    /** Version 0 of {@code key} must be findable: OK, or e.g. {@code P_GONE}, {@code P_READS_x}. */
    static String present(Cache cache, int key) {
        String p = presence(cache, key);
        return p.equals("PRESENT") ? "OK" : Tiny.label(key, 0).replace("_V0", "") + "_" + p;
    }

    /** Releases a handle and labels the result: FREED, KEPT, or the failure's name. */
    static String release(Cache cache, long handle, boolean eraseIfLastRef) {
        try {
            if (handle == Cache.MISS) {
                return "SETUP_MISS";
            }
            return cache.release(handle, eraseIfLastRef) ? "FREED" : "KEPT";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
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
     * Accounting with no handle held: usage is {@link #CHARGE} per entry and within capacity,
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
                Tiny.erase(cache, key);
            }
            int refused = 0;
            for (int i = 2; i < ALL_KEYS.length; i++) {
                if (!Tiny.insert(cache, ALL_KEYS[i], 0, PRIORITIES[i % PRIORITIES.length])) {
                    refused++;
                }
            }
            for (int key : ALL_KEYS) {
                Tiny.erase(cache, key);
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
    static String checkDrainClose(LruCache cache, AutoHccTiny.Check check) {
        String checks;
        try {
            checks = check.run();
        } catch (RuntimeException | Error e) {
            checks = failure(e);
        }
        return problems(checks, drainAndClose(cache));
    }

    static String failure(Throwable t) {
        return Tiny.failure(t);
    }

    static String close(Cache cache) {
        return Tiny.close(cache);
    }

    /** Joins non-OK parts with ';', or returns {@code OK}. */
    static String problems(String... parts) {
        return Tiny.problems(parts);
    }
}
