package dev.clockwork.stress;

import static dev.clockwork.stress.Outcomes.close;
import static dev.clockwork.stress.Outcomes.failure;
import static dev.clockwork.stress.Outcomes.problems;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.ChainReport;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.stress.Outcomes.Check;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Tiny {@link AutoHyperClockCache}s for the stress tests, keys whose home chain is chosen,
 * self-describing values, and the checks an arbiter makes (the Auto counterpart of
 * {@link FixedFixture} and {@link VersionedKeys}, with the same method names).
 *
 * <h2>Sizes</h2>
 * One shard, no metadata charge ({@code chargeMetadata(false)}: usage is exactly
 * {@link #CHARGE} per entry), capacity at most 4096 bytes, so the table starts with 4 homes
 * (shift 2) and an occupancy limit of ceil(4 x 0.6) = 3. The 4th entry makes the inserting thread
 * grow the table before it links its entry: 5 homes still allow only ceil(3.0) = 3 entries, so it
 * grows twice, to 6 homes (limit 4): it splits home 0 into homes 0 and 4 (by bit 2 of h1), then
 * home 1 into 1 and 5. The 5th entry needs 7 homes (limit 5): a split of home 2 into 2 and 6. The
 * reservation is one page (64 slots), far more than any test uses, so growth never fails.
 *
 * <h2>Keys</h2>
 * {@link KeyHash} is a bijection, so a key is built backwards from the hashed key wanted: the low
 * 3 bits of {@code h1} are chosen, the rest is mixed from the key's id, and
 * {@code (key0, key1)} is recovered with the inverse functions for the fixed {@link #SEED}. Keys
 * are named by a letter and those 3 low bits in decimal: {@code A4} is the first key whose
 * {@code h1} ends in binary 100, so its home is 0 while the table has 4 homes and 4 once home 0
 * is split; {@code A0} (binary 000) stays at home 0.
 *
 * <h2>Values</h2>
 * Each value is 24 bytes: the two key words and a stamp carrying the key id, so a reader handed
 * another key's entry or freed (and reused) memory reads bytes it can name. All values have the
 * same length, so malloc tends to hand a freed value's block to the next insert.
 *
 * <h2>Labels</h2>
 * Outcome strings use {@code [A-Z0-9_;]} only (jcstress joins result fields with ", ").
 */
final class AutoFixture {
    /** The hash seed of every cache here (set explicitly: the keys are built for it). */
    static final long SEED = 0x5EED_A070_C10C_0001L;
    static final long CHARGE = 64;
    static final int START_HOMES = 4;
    static final long START_LIMIT = 3;
    /** Room for 16 entries: no test that uses it ever evicts. */
    static final long ROOM_16 = 16 * CHARGE;
    /** Room for exactly 3 entries: the 4th insert must evict (and grow the table). */
    static final long ROOM_3 = 3 * CHARGE;

    static final int VALUE_BYTES = 24;
    private static final long STAMP_BASE = 0x7E57_A070_0000_0000L;

    // Key ids. The digit is h1 & 7: homes (4 homes) 0 = {0, 4}, 1 = {1, 5}, 2 = {2}, 3 = {3}.
    static final int A0 = 0;
    static final int B0 = 1;
    static final int C0 = 2;
    static final int D0 = 3;
    static final int A4 = 4;
    static final int B4 = 5;
    static final int C4 = 6;
    static final int D4 = 7;
    static final int A1 = 8;
    static final int B1 = 9;
    static final int A5 = 10;
    static final int A2 = 11;
    static final int A3 = 12;

    private static final String[] NAMES =
            {"A0", "B0", "C0", "D0", "A4", "B4", "C4", "D4", "A1", "B1", "A5", "A2", "A3"};
    private static final int[] LOW3 = {0, 0, 0, 0, 4, 4, 4, 4, 1, 1, 5, 2, 3};
    private static final long[] KEY0 = new long[NAMES.length];
    private static final long[] KEY1 = new long[NAMES.length];
    private static final long[] H1 = new long[NAMES.length];
    private static final byte[][] VALUES = new byte[NAMES.length][];

    static {
        for (int id = 0; id < NAMES.length; id++) {
            long h0 = mix((id + 1) * 0x9E37_79B9_7F4A_7C15L);
            long h1 = (mix(h0 ^ 0xA5A5_5A5A_C3C3_3C3CL) & ~7L) | LOW3[id];
            long key1 = KeyHash.unhash1(h0, h1);
            long key0 = KeyHash.unhash0FromKey1(h0, key1, SEED);
            if (KeyHash.hash0(key0, key1, SEED) != h0
                    || KeyHash.hash1FromHash0(h0, key1) != h1) {
                throw new IllegalStateException("KeyHash inverse does not round-trip for " + id);
            }
            KEY0[id] = key0;
            KEY1[id] = key1;
            H1[id] = h1;
            MemorySegment v = MemorySegment.ofArray(new byte[VALUE_BYTES]);
            v.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, key0);
            v.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, key1);
            v.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, STAMP_BASE + id);
            VALUES[id] = v.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private AutoFixture() {
    }

    /** splitmix64's finalizer. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    static String name(int key) {
        return NAMES[key];
    }

    /** The low bits of the key's hashed {@code h1} (what picks its home). */
    static long h1(int key) {
        return H1[key];
    }

    /**
     * A one-shard Auto cache with 4 homes, no metadata charge and {@link #SEED}. Throws if the
     * sizing rules ever change so that the tests' arithmetic no longer holds.
     */
    static AutoHyperClockCache newCache(long room) {
        AutoHyperClockCache cache = HyperClockCache.builder()
                .capacity(room)
                .numShardBits(0)
                .chargeMetadata(false)
                .hashSeed(SEED)
                .admission(AdmissionPolicy.NONE)
                .build();
        if (cache.tableSlots() != START_HOMES || cache.usage() != 0
                || cache.occupancyLimit() != START_LIMIT || cache.numShards() != 1) {
            long homes = cache.tableSlots();
            long usage = cache.usage();
            long limit = cache.occupancyLimit();
            cache.close();
            throw new IllegalStateException("expected " + START_HOMES + " homes, usage 0, limit "
                    + START_LIMIT + "; got " + homes + " homes, usage " + usage + ", limit "
                    + limit);
        }
        return cache;
    }

    /** Inserts in the given order; throws if any is refused (state set-up). */
    static void fill(AutoHyperClockCache cache, Priority priority, int... keys) {
        for (int key : keys) {
            if (!insert(cache, key, priority)) {
                throw new IllegalStateException("set-up insert of " + name(key) + " refused");
            }
        }
    }

    static boolean insert(Cache cache, int key, Priority priority) {
        byte[] v = VALUES[key];
        return cache.insert(KEY0[key], KEY1[key], v, 0, v.length, CHARGE, priority);
    }

    /** Inserts the key's value pinned; returns the handle or {@link Cache#MISS}. */
    static long insertPinned(Cache cache, int key, Priority priority) {
        byte[] v = VALUES[key];
        return cache.insertPinned(KEY0[key], KEY1[key], v, 0, v.length, CHARGE, priority);
    }

    /** Inserts and labels the result: INSERTED, REFUSED or the failure. */
    static String insertOutcome(Cache cache, int key, Priority priority) {
        try {
            return insert(cache, key, priority) ? "INSERTED" : "REFUSED";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    static long lookup(Cache cache, int key) {
        return cache.lookup(KEY0[key], KEY1[key]);
    }

    static boolean erase(Cache cache, int key) {
        return cache.erase(KEY0[key], KEY1[key]);
    }

    /** An erase as an outcome: {@code ERASED}, {@code NOT_FOUND} or the exception it threw. */
    static String eraseOutcome(Cache cache, int key) {
        try {
            return erase(cache, key) ? "ERASED" : "NOT_FOUND";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /**
     * Names the bytes behind a pinned handle, read from native memory: a key's name, GARBAGE for
     * bytes of no value, or {@code LEN<n>} for a wrong length.
     */
    static String read(Cache cache, long handle) {
        return labelOf(cache.value(handle));
    }

    /** The label of the bytes in {@code v} (see {@link #read}). */
    static String labelOf(MemorySegment v) {
        if (v.byteSize() != VALUE_BYTES) {
            return "LEN" + v.byteSize();
        }
        long k0 = v.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        long k1 = v.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        long id = v.get(ValueLayout.JAVA_LONG_UNALIGNED, 16) - STAMP_BASE;
        if (id < 0 || id >= NAMES.length || KEY0[(int) id] != k0 || KEY1[(int) id] != k1) {
            return "GARBAGE";
        }
        return NAMES[(int) id];
    }

    /**
     * Looks up {@code key}, reads the value and releases: "HIT" (the key's own bytes), "MISS",
     * "HIT_" + the label of other bytes read, with "_FREED" appended if the release freed the
     * entry; or the failure's name.
     */
    static String lookupReadRelease(Cache cache, int key) {
        try {
            long h = lookup(cache, key);
            if (h == Cache.MISS) {
                return "MISS";
            }
            String seen = read(cache, h);
            boolean freed = cache.release(h);
            return (seen.equals(name(key)) ? "HIT" : "HIT_" + seen) + (freed ? "_FREED" : "");
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /**
     * {@code get(key)} into a buffer of {@code VALUE_BYTES}: "HIT" (the key's own bytes),
     * "MISS", "HIT_" + the label of other bytes copied, or the failure's name.
     */
    static String get(Cache cache, int key) {
        try {
            byte[] dst = new byte[VALUE_BYTES];
            int length = cache.get(KEY0[key], KEY1[key], dst, 0);
            if (length == Cache.ABSENT) {
                return "MISS";
            }
            MemorySegment v = MemorySegment.ofArray(dst).asSlice(0, length);
            String seen = labelOf(v);
            return seen.equals(name(key)) ? "HIT" : "HIT_" + seen;
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** What a lookup of {@code key} finds now: the bytes' label, or null on a miss. */
    static String peek(Cache cache, int key) {
        long h = lookup(cache, key);
        if (h == Cache.MISS) {
            return null;
        }
        String seen = read(cache, h);
        cache.release(h);
        return seen;
    }

    /** Every key must be found with its own bytes: OK, or {@code MISS_x} / {@code x_READS_y}. */
    static String present(Cache cache, int... keys) {
        String[] parts = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            String seen = peek(cache, keys[i]);
            parts[i] = seen == null ? "MISS_" + name(keys[i])
                    : seen.equals(name(keys[i])) ? "OK" : name(keys[i]) + "_READS_" + seen;
        }
        return problems(parts);
    }

    /** No key may be found: OK, or {@code FOUND_x}. */
    static String absent(Cache cache, int... keys) {
        String[] parts = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            parts[i] = peek(cache, keys[i]) == null ? "OK" : "FOUND_" + name(keys[i]);
        }
        return problems(parts);
    }

    /**
     * Accounting with no handle held: usage is {@link #CHARGE} per table entry, nothing standalone
     * or pinned, the entries on the chains are exactly the entries counted, and the occupancy
     * limit covers them. With {@code expectedEntries >= 0} the entry count must match too.
     */
    static String accounting(AutoHyperClockCache cache, long expectedEntries) {
        long usage = cache.usage();
        long entries = cache.entryCount();
        long standalone = cache.standaloneUsage();
        long pinned = cache.pinnedUsage();
        ChainReport chains = cache.chainReport();
        long limit = cache.occupancyLimit();
        if (usage == CHARGE * entries && standalone == 0 && pinned == 0
                && chains.entries() == entries && entries <= limit
                && (expectedEntries < 0 || entries == expectedEntries)) {
            return "OK";
        }
        return "ACCT_U" + usage + "_E" + entries + "_C" + chains.entries() + "_S" + standalone
                + "_P" + pinned + "_L" + limit + "_H" + chains.homes();
    }

    /** Lookup restarts so far: R0 or RN (one or more). */
    static String restarts(AutoHyperClockCache cache) {
        return cache.chainReport().lookupRestarts() == 0 ? "R0" : "RN";
    }

    /** Waits (for a chain lock or a parent split) so far: Y0 or YN (one or more). */
    static String yields(AutoHyperClockCache cache) {
        return cache.chainReport().yieldCount() == 0 ? "Y0" : "YN";
    }

    /**
     * The arbiters' last word: erases {@code keys} (every key the test used), then the cache must
     * be empty (usage 0, no entries, no chain entries); then close. OK or the problems found.
     */
    static String drainAndClose(AutoHyperClockCache cache, int... keys) {
        String drained;
        try {
            for (int key : keys) {
                erase(cache, key);
            }
            long usage = cache.usage();
            long entries = cache.entryCount();
            long onChains = cache.chainReport().entries();
            drained = usage == 0 && entries == 0 && onChains == 0 ? "OK"
                    : "STUCK_U" + usage + "_E" + entries + "_C" + onChains;
        } catch (RuntimeException | Error e) {
            drained = failure(e);
        }
        return problems(drained, close(cache));
    }

    /** Runs the checks, then {@link #drainAndClose}, catching failures: OK or the problems. */
    static String checkDrainClose(AutoHyperClockCache cache, Check check, int... keys) {
        String checks;
        try {
            checks = check.run();
        } catch (RuntimeException | Error e) {
            checks = failure(e);
        }
        return problems(checks, drainAndClose(cache, keys));
    }
}
