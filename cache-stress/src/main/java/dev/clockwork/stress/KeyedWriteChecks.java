package dev.clockwork.stress;

import static dev.clockwork.stress.Outcomes.failure;
import static dev.clockwork.stress.VersionedKeys.CHARGE;
import static dev.clockwork.stress.VersionedKeys.key0;
import static dev.clockwork.stress.VersionedKeys.key1;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;

/**
 * The calls and checks of the stress tests of the uniform writes ({@code put},
 * {@code putIfAbsent}, {@code clear}): each call as an outcome, and the arbiters' view of a key
 * and of the cache's accounting, alike for every cache type (a type differs only in the metadata
 * its usage starts from: {@link FixedFixture#METADATA} for the fixed table, 0 for the caches
 * built not to charge it).
 */
final class KeyedWriteChecks {
    private KeyedWriteChecks() {
    }

    /** {@code put} of a key's version: {@code T}, {@code F} (refused) or the failure's name. */
    static String put(Cache cache, int key, int version) {
        try {
            byte[] v = VersionedKeys.value(key, version);
            return cache.put(key0(key), key1(key), v, 0, v.length, CHARGE, Priority.LOW)
                    ? "T" : "F";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** {@code putIfAbsent} of a key's version: {@code T}, {@code F} or the failure's name. */
    static String putIfAbsent(Cache cache, int key, int version) {
        try {
            byte[] v = VersionedKeys.value(key, version);
            return cache.putIfAbsent(key0(key), key1(key), v, 0, v.length, CHARGE, Priority.LOW)
                    ? "T" : "F";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** {@code clear()}: {@code OK} or the failure's name. */
    static String clear(Cache cache) {
        try {
            cache.clear();
            return "OK";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** Through a pinned handle: the label of its bytes, or the failure's name. */
    static String readPinned(Cache cache, long handle) {
        try {
            return VersionedKeys.read(cache, handle);
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /**
     * What a lookup of {@code key} finds and how many entries of the key a walk of the cache
     * sees: {@code A_V1;C1}, {@code MISS;C0}. One entry per key is what the uniform writes keep.
     */
    static String keyState(Cache cache, int key) {
        try {
            String seen = VersionedKeys.peek(cache, key);
            long[] copies = {0};
            cache.forEachEntry((k0, k1, value, charge) -> {
                if (k0 == key0(key) && k1 == key1(key)) {
                    copies[0]++;
                }
            }, 1);
            return (seen == null ? "MISS" : seen) + ";C" + copies[0];
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /**
     * The accounting once nothing is pinned, holding {@code entries} entries of charge
     * {@link VersionedKeys#CHARGE} over {@code metadata} bytes; then the key erased, the cache
     * must be back to its metadata; then close. {@code OK} or what does not add up.
     */
    static String settleEraseClose(Cache cache, long metadata, long entries, int key) {
        String checks;
        try {
            long usage = cache.usage();
            long count = cache.entryCount();
            long pinned = cache.pinnedUsage();
            checks = usage == metadata + CHARGE * entries && count == entries && pinned == 0
                    ? "OK" : "ACCT_U" + usage + "_E" + count + "_P" + pinned;
            VersionedKeys.erase(cache, key);
            if (cache.usage() != metadata || cache.entryCount() != 0) {
                checks = Outcomes.problems(checks,
                        "LEFT_U" + cache.usage() + "_E" + cache.entryCount());
            }
        } catch (RuntimeException | Error e) {
            checks = failure(e);
        }
        return Outcomes.problems(checks, Outcomes.close(cache));
    }
}
