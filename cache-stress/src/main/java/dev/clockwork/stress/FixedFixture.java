package dev.clockwork.stress;

import static dev.clockwork.stress.Outcomes.close;
import static dev.clockwork.stress.Outcomes.failure;
import static dev.clockwork.stress.Outcomes.problems;
import static dev.clockwork.stress.VersionedKeys.CHARGE;
import static dev.clockwork.stress.VersionedKeys.F1;
import static dev.clockwork.stress.VersionedKeys.F3;
import static dev.clockwork.stress.VersionedKeys.MAX_KEYS;
import static dev.clockwork.stress.VersionedKeys.erase;
import static dev.clockwork.stress.VersionedKeys.insert;
import static dev.clockwork.stress.VersionedKeys.key0;
import static dev.clockwork.stress.VersionedKeys.key1;
import static dev.clockwork.stress.VersionedKeys.lookup;
import static dev.clockwork.stress.VersionedKeys.peek;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.ClockProbe;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.HyperClockCache;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * Tiny {@link FixedHyperClockCache}s for the stress tests, for the keys of
 * {@link VersionedKeys}, and the checks an arbiter makes of them.
 *
 * <h2>Sizes</h2>
 * Every cache here has one shard of 4 slots of 64 bytes, all charged as metadata
 * ({@link #METADATA} = 256 bytes of usage from the start), and entries of charge
 * {@link VersionedKeys#CHARGE} = 64, the same as the estimated entry charge the table is sized
 * with. The occupancy limit of 4 slots is 3 entries. {@link #ROOM_2} leaves room for 2 entries
 * before an insert has to evict, {@link #ROOM_3} for 3.
 */
final class FixedFixture {
    static final long SLOT_BYTES = 64;
    static final int SLOTS = 4;
    static final long METADATA = SLOTS * SLOT_BYTES;
    /** 4 slots; 256 metadata + 2 x 64 = 384 <= 400 < 448: the third entry evicts. */
    static final long ROOM_2 = 400;
    /** 4 slots (448 / 108.8 rounds up to 8, but 512 bytes of slots exceed 448: back to 4). */
    static final long ROOM_3 = 448;

    /** The seed {@link #newCache(long, AdmissionPolicy)} hashes keys with. */
    static final long HASH_SEED = 0x7E57_5EED_0000_0001L;

    private FixedFixture() {
    }

    /**
     * A one-shard cache of exactly {@link #SLOTS} slots with room for {@code room} bytes. Throws
     * if the sizing rules ever change so that the tests' arithmetic no longer holds.
     */
    static FixedHyperClockCache newCache(long room) {
        return checked(HyperClockCache.builder().capacity(room)
                .estimatedEntryCharge(CHARGE).numShardBits(0).admission(AdmissionPolicy.NONE)
                .build());
    }

    /**
     * As {@link #newCache(long)}, asking {@code policy} before each eviction, and hashing keys
     * with {@link #HASH_SEED}, so that a test can tell which slot a key's lookups start at
     * ({@link #collidingKey}).
     */
    static FixedHyperClockCache newCache(long room, AdmissionPolicy policy) {
        return checked(HyperClockCache.builder().capacity(room)
                .estimatedEntryCharge(CHARGE).numShardBits(0).admission(policy)
                .hashSeed(HASH_SEED).build());
    }

    /**
     * A key id (never one with a value: never inserted) whose lookups in a cache of
     * {@link #newCache(long, AdmissionPolicy)} start at the home slot of {@code key}: a lookup of
     * it takes a momentary reference on whatever entry sits there, and gives it back on seeing
     * another key.
     */
    static int collidingKey(int key) {
        long home = homeSlot(key);
        for (int k = MAX_KEYS; ; k++) {
            if (homeSlot(k) == home) {
                return k;
            }
        }
    }

    private static long homeSlot(int key) {
        return KeyHash.hash1(key0(key), key1(key), HASH_SEED) & (SLOTS - 1);
    }

    private static FixedHyperClockCache checked(FixedHyperClockCache cache) {
        if (cache.tableSlots() != SLOTS || cache.usage() != METADATA) {
            long slots = cache.tableSlots();
            long usage = cache.usage();
            cache.close();
            throw new IllegalStateException("expected " + SLOTS + " slots and " + METADATA
                    + " bytes of metadata, got " + slots + " slots, usage " + usage);
        }
        return cache;
    }

    /**
     * Whether a key is findable after the actors, and the entry count: {@code PRESENT_A_V0;E1},
     * {@code GONE;E1}.
     */
    static String presenceAndCount(FixedHyperClockCache cache, int key) {
        String seen = peek(cache, key);
        return (seen == null ? "GONE" : "PRESENT_" + seen) + ";E" + cache.entryCount();
    }

    /**
     * The counters of {@code key}'s entry, read white-box while holding one reference:
     * {@code C<n>_R<m>} with n the release counter (the countdown, or what near-overflow
     * correction left) and m the references held besides ours; {@code A_GONE} on a miss, or the
     * failure's name.
     */
    static String counters(FixedHyperClockCache cache, int key) {
        try {
            long h = lookup(cache, key);
            if (h == Cache.MISS) {
                return "A_GONE";
            }
            long meta = ClockProbe.meta(cache, h); // ours: acquire = release + 1
            cache.release(h);
            return "C" + ClockProbe.releaseCount(meta) + "_R" + (ClockProbe.refCount(meta) - 1);
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /**
     * The cache's accounting once no handle is held: every byte of usage is metadata, a charge
     * of a table entry, or a charge of a standalone entry, and nothing is pinned.
     *
     * @return {@code OK}, or the numbers that do not add up
     */
    static String accounting(FixedHyperClockCache cache) {
        long usage = cache.usage();
        long entries = cache.entryCount();
        long standalone = cache.standaloneUsage();
        long pinned = cache.pinnedUsage();
        if (usage == METADATA + CHARGE * entries + standalone && standalone == 0 && pinned == 0) {
            return "OK";
        }
        return "ACCT_U" + usage + "_E" + entries + "_S" + standalone + "_P" + pinned;
    }

    /**
     * Erases {@code key}, then inserts the three filler keys and erases them again. Three
     * fillers plus any zero-reference leftover exceed both the room for {@link #ROOM_3} and the
     * occupancy limit, so the third insert must evict, and an erased-but-unfreed (invisible,
     * unreferenced) leftover is the first thing a clock sweep frees. Afterwards the cache must be
     * empty: usage is metadata only.
     *
     * @return {@code DRAINED}, or what was left
     */
    static String drain(FixedHyperClockCache cache, int key) {
        erase(cache, key);
        for (int f = F1; f <= F3; f++) {
            if (!insert(cache, f, 0, Priority.HIGH)) {
                return "FILLER_REFUSED";
            }
        }
        for (int f = F1; f <= F3; f++) {
            erase(cache, f);
        }
        long usage = cache.usage();
        long entries = cache.entryCount();
        if (usage == METADATA && entries == 0) {
            return "DRAINED";
        }
        return "STUCK_U" + usage + "_E" + entries;
    }

    /**
     * The arbiters' last word: accounting, the drain check of {@code key}, then close; OK or the
     * problems found.
     */
    static String checkDrainClose(FixedHyperClockCache cache, int key) {
        String checks;
        try {
            checks = problems(accounting(cache), drain(cache, key));
        } catch (RuntimeException | Error e) {
            checks = failure(e);
        }
        return problems(checks, close(cache));
    }

    /**
     * A lookup, read and release of key {@link VersionedKeys#A} (version 0): {@code MISS},
     * {@code HIT_A}, or {@code HIT_} and whatever was read instead.
     */
    static String readA(Cache cache) {
        long h = VersionedKeys.lookup(cache, VersionedKeys.A);
        if (h == Cache.MISS) {
            return "MISS";
        }
        String seen = VersionedKeys.read(cache, h);
        cache.release(h);
        return "HIT_" + (seen.equals(VersionedKeys.label(VersionedKeys.A, 0)) ? "A" : seen);
    }

    /**
     * The arbiter's view of key {@link VersionedKeys#A} at the end into {@code r3}
     * ({@code A_GONE}, {@code A_PRESENT} or {@code A_READS_} and what it read), then the
     * accounting and close into {@code r4}.
     */
    static void arbitrateA(FixedHyperClockCache cache, LLLL_Result r) {
        String acct;
        try {
            String seen = readA(cache);
            r.r3 = seen.equals("MISS") ? "A_GONE"
                    : seen.equals("HIT_A") ? "A_PRESENT" : "A_READS_" + seen.substring(4);
            acct = accounting(cache);
        } catch (RuntimeException | Error e) {
            acct = failure(e);
        }
        r.r4 = problems(acct, close(cache));
    }
}
