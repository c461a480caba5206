package dev.clockwork.stress;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.ClockProbe;

import dev.clockwork.offheap.FixedHyperClockCache;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Shared pieces of the stress tests: tiny {@link FixedHyperClockCache}s, self-describing values,
 * and checks that turn what a thread saw into short outcome labels.
 *
 * <h2>Sizes</h2>
 * Every cache here has one shard of 4 slots of 64 bytes, all charged as metadata
 * ({@link #METADATA} = 256 bytes of usage from the start), and entries of charge
 * {@link #CHARGE} = 64, the same as the estimated entry charge the table is sized with. The
 * occupancy limit of 4 slots is 3 entries. {@link #TWO_ENTRIES} leaves room for 2 entries before
 * an insert has to evict, {@link #THREE_ENTRIES} for 3.
 *
 * <h2>Values</h2>
 * Each value is 24 bytes: the two key words and a version number. A handle's bytes therefore
 * name the entry they came from, so a reader that was handed freed (and reused) memory, another
 * key's entry, or a half-written slot gets a label other than the one it expects. All values of
 * all keys have the same length, so malloc tends to hand a freed value's block to the next
 * insert, which makes a use-after-free show up as another key's bytes rather than stale ones.
 *
 * <h2>Labels</h2>
 * Outcome strings are made of {@code [A-Z0-9_;]} only (no commas: jcstress joins result fields
 * with ", ", and ids are regular expressions).
 */
final class Tiny {
    static final long CHARGE = 64;
    static final long SLOT_BYTES = 64;
    static final int SLOTS = 4;
    static final long METADATA = SLOTS * SLOT_BYTES;
    /** 4 slots; 256 metadata + 2 x 64 = 384 <= 400 < 448: the third entry evicts. */
    static final long TWO_ENTRIES = 400;
    /** 4 slots (448 / 108.8 rounds up to 8, but 512 bytes of slots exceed 448: back to 4). */
    static final long THREE_ENTRIES = 448;

    static final int VALUE_BYTES = 24;

    private static final long KEY0_BASE = 0xC10C_0000_0000_0000L;
    private static final long KEY1_BASE = 0x0000_5EED_0000_0000L;
    private static final long VERSION_BASE = 0x7E57_0000L;
    static final int MAX_KEYS = 16;
    static final int MAX_VERSIONS = 4;

    /** Names of the keys used by the tests; the index is the key id. */
    private static final String[] NAMES = {"A", "P", "K1", "K2", "K3", "F1", "F2", "F3"};
    static final int A = 0;
    static final int P = 1;
    static final int K1 = 2;
    static final int K2 = 3;
    static final int K3 = 4;
    static final int F1 = 5;
    static final int F2 = 6;
    static final int F3 = 7;

    private static final byte[][][] VALUES = new byte[MAX_KEYS][MAX_VERSIONS][];

    static {
        for (int key = 0; key < MAX_KEYS; key++) {
            for (int version = 0; version < MAX_VERSIONS; version++) {
                MemorySegment v = MemorySegment.ofArray(new byte[VALUE_BYTES]);
                v.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, key0(key));
                v.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, key1(key));
                v.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, VERSION_BASE + version);
                VALUES[key][version] = v.toArray(ValueLayout.JAVA_BYTE);
            }
        }
    }

    private Tiny() {
    }

    static long key0(int key) {
        return KEY0_BASE + key;
    }

    static long key1(int key) {
        return KEY1_BASE + key * 0x9E37L;
    }

    /**
     * A one-shard cache of exactly {@link #SLOTS} slots. Throws if the sizing rules ever change
     * so that the tests' arithmetic no longer holds.
     */
    static FixedHyperClockCache cache(long capacity) {
        return checked(FixedHyperClockCache.builder().capacity(capacity)
                .estimatedEntryCharge(CHARGE).numShardBits(0).build());
    }

    /** The seed {@link #cache(long, AdmissionPolicy)} hashes keys with. */
    static final long HASH_SEED = 0x7E57_5EED_0000_0001L;

    /**
     * As {@link #cache(long)}, asking {@code policy} before each eviction, and hashing keys with
     * {@link #HASH_SEED}, so that a test can tell which slot a key's lookups start at
     * ({@link #collidingKey}).
     */
    static FixedHyperClockCache cache(long capacity, AdmissionPolicy policy) {
        return checked(FixedHyperClockCache.builder().capacity(capacity)
                .estimatedEntryCharge(CHARGE).numShardBits(0).admission(policy)
                .hashSeed(HASH_SEED).build());
    }

    /**
     * A key id (never one with a value: never inserted) whose lookups in a cache of
     * {@link #cache(long, AdmissionPolicy)} start at the home slot of {@code key}: a lookup of it
     * takes a momentary reference on whatever entry sits there, and gives it back on seeing
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

    static boolean insert(Cache cache, int key, int version, Priority priority) {
        byte[] v = VALUES[key][version];
        return cache.insert(key0(key), key1(key), v, 0, v.length, CHARGE, priority);
    }

    /**
     * Inserts keys {@code from..to} (version 0, BOTTOM priority), as the evicting actors do:
     * {@code INSERTED}, {@code REFUSED<n>} or the failure's name.
     */
    static String insertAll(Cache cache, int from, int to) {
        try {
            int refused = 0;
            for (int key = from; key <= to; key++) {
                if (!insert(cache, key, 0, Priority.BOTTOM)) {
                    refused++;
                }
            }
            return refused == 0 ? "INSERTED" : "REFUSED" + refused;
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    static long insertPinned(Cache cache, int key, int version, Priority priority) {
        byte[] v = VALUES[key][version];
        return cache.insertPinned(key0(key), key1(key), v, 0, v.length, CHARGE, priority);
    }

    static long lookup(Cache cache, int key) {
        return cache.lookup(key0(key), key1(key));
    }

    static boolean erase(Cache cache, int key) {
        return cache.erase(key0(key), key1(key));
    }

    /** An erase as an outcome: {@code ERASED}, {@code NOT_FOUND} or the exception it threw. */
    static String eraseOutcome(Cache cache, int key) {
        try {
            return erase(cache, key) ? "ERASED" : "NOT_FOUND";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** Whether a key is findable after the actors, and the entry count: {@code GONE;E1}. */
    static String presence(FixedHyperClockCache cache, int key) {
        String seen = peek(cache, key);
        return (seen == null ? "GONE" : "PRESENT_" + seen) + ";E" + cache.entryCount();
    }

    /** The label of a key and version, e.g. {@code A_V1}. */
    static String label(int key, int version) {
        return name(key) + "_V" + version;
    }

    private static String name(int key) {
        return key < NAMES.length ? NAMES[key] : "KEY" + key;
    }

    /**
     * Reads the value behind a pinned handle straight from native memory and names it: the label
     * of the key and version whose bytes it holds, {@code GARBAGE} for bytes of no value, or
     * {@code LEN<n>} for a wrong length.
     */
    static String read(Cache cache, long handle) {
        return labelOf(cache.value(handle));
    }

    /** The label of the key and version whose bytes {@code v} holds (see {@link #read}). */
    static String labelOf(MemorySegment v) {
        return v.byteSize() != VALUE_BYTES ? "LEN" + v.byteSize() : nameOf(codeOf(v));
    }

    /** The label a {@link #codeOf} code stands for. */
    private static String nameOf(long code) {
        if (code == GARBAGE || code == WRONG_LENGTH) {
            return code == GARBAGE ? "GARBAGE" : "WRONG_LENGTH";
        }
        return label((int) (code / MAX_VERSIONS), (int) (code % MAX_VERSIONS));
    }

    /**
     * {@code get(key)} into a buffer of exactly {@link #VALUE_BYTES} bytes, named: the label of
     * the bytes copied (see {@link #read}), {@code MISS}, or the failure's name if it threw.
     */
    static String get(Cache cache, int key) {
        try {
            byte[] dst = new byte[VALUE_BYTES];
            int length = cache.get(key0(key), key1(key), dst, 0);
            if (length == Cache.ABSENT) {
                return "MISS";
            }
            return labelOf(MemorySegment.ofArray(dst).asSlice(0, length));
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    private static final long NOT_CACHED = -1;
    private static final long GARBAGE = -2;
    private static final long WRONG_LENGTH = -3;

    /**
     * {@code read(key)} with a reader that names the bytes in place ({@link #codeOf}); the label
     * of what the caller got back, {@code MISS}, or the failure's name if it threw.
     */
    static String readInPlace(Cache cache, int key) {
        try {
            long seen = cache.read(key0(key), key1(key), Tiny::codeOf, NOT_CACHED);
            return seen == NOT_CACHED ? "MISS" : nameOf(seen);
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /**
     * Names the bytes of a value as a number, for a {@code ValueReader} that allocates nothing:
     * key * MAX_VERSIONS + version, or a code for garbage or a wrong length.
     */
    private static long codeOf(MemorySegment v) {
        if (v.byteSize() != VALUE_BYTES) {
            return WRONG_LENGTH;
        }
        long key = v.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) - KEY0_BASE;
        long k1 = v.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        long ver = v.get(ValueLayout.JAVA_LONG_UNALIGNED, 16) - VERSION_BASE;
        if (key < 0 || key >= MAX_KEYS || k1 != key1((int) key) || ver < 0 || ver >= MAX_VERSIONS) {
            return GARBAGE;
        }
        return key * MAX_VERSIONS + ver;
    }

    /**
     * What a lookup of {@code key} finds now: the label of the bytes read (then released), null
     * on a miss, or the failure's name if anything threw.
     */
    static String peek(FixedHyperClockCache cache, int key) {
        try {
            long h = lookup(cache, key);
            if (h == Cache.MISS) {
                return null;
            }
            String seen = read(cache, h);
            cache.release(h);
            return seen;
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** Releases a handle taken in the state's constructor, erasing if last: FREED or KEPT. */
    static String releaseErasing(FixedHyperClockCache cache, long handle) {
        try {
            if (handle == Cache.MISS) {
                return "SETUP_MISS";
            }
            return cache.release(handle, true) ? "FREED" : "KEPT";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
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

    /**
     * A caller's double release: releases a handle holding one reference, then releases it
     * again; {@code first;second}, each FREED, KEPT or the failure's name (e.g.
     * {@code KEPT;EX_IllegalStateException}: the misuse was refused).
     */
    static String releaseTwice(Cache cache, long handle) {
        String first = release(cache, handle, false);
        return first + ";" + release(cache, handle, false);
    }

    /**
     * The arbiters' last word: accounting, the drain check of {@code key}, then close; OK or the
     * problems found.
     */
    static String checkAndClose(FixedHyperClockCache cache, int key) {
        String checks;
        try {
            checks = problems(accounting(cache), drain(cache, key));
        } catch (RuntimeException | Error e) {
            checks = failure(e);
        }
        return problems(checks, close(cache));
    }

    /**
     * Looks up key A, reads its value and releases the handle: "MISS", "HIT_A" (A's version-0
     * bytes), "HIT_" + the label of whatever bytes were read instead, with "_FREED" appended when
     * the release freed the entry; or the failure's name if anything threw.
     */
    static String lookupReadReleaseA(FixedHyperClockCache cache) {
        try {
            long h = lookup(cache, A);
            if (h == Cache.MISS) {
                return "MISS";
            }
            String seen = read(cache, h);
            boolean freed = cache.release(h);
            return "HIT_" + (seen.equals(label(A, 0)) ? "A" : seen) + (freed ? "_FREED" : "");
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
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
     * Visits every entry with {@code forEachEntry} (one entry per batch) and names what it saw:
     * the labels of the visited values, sorted and joined with ';' ({@code NONE} if nothing was
     * visited). A label gets {@code _KEY} appended when the key passed to the visitor is not the
     * one stamped in the value, and {@code _C<n>} when the charge is not {@link #CHARGE}; a
     * failure's name if anything threw.
     */
    static String visitAll(Cache cache) {
        try {
            java.util.List<String> seen = new java.util.ArrayList<>(4);
            cache.forEachEntry((key0, key1, value, charge) -> {
                String label = labelOf(value);
                if (value.byteSize() >= 16
                        && (value.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != key0
                        || value.get(ValueLayout.JAVA_LONG_UNALIGNED, 8) != key1)) {
                    label += "_KEY";
                }
                if (charge != CHARGE) {
                    label += "_C" + charge;
                }
                seen.add(label);
            }, 1);
            if (seen.isEmpty()) {
                return "NONE";
            }
            java.util.Collections.sort(seen);
            return String.join(";", seen);
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** The label of an exception a cache call threw, so that it shows as an outcome. */
    static String failure(Throwable t) {
        return "EX_" + t.getClass().getSimpleName();
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
     * fillers plus any zero-reference leftover exceed both the room for {@link #THREE_ENTRIES}
     * and the occupancy limit, so the third insert must evict, and an erased-but-unfreed
     * (invisible, unreferenced) leftover is the first thing a clock sweep frees. Afterwards the
     * cache must be empty: usage is metadata only.
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

    /** Closes the cache; returns {@code OK} or a failure label. */
    static String close(Cache cache) {
        try {
            cache.close();
            return "OK";
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }

    /** Joins non-OK parts with ';', or returns {@code OK}. */
    static String problems(String... parts) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            if (!"OK".equals(p) && !"DRAINED".equals(p)) {
                if (!sb.isEmpty()) {
                    sb.append(';');
                }
                sb.append(p);
            }
        }
        return sb.isEmpty() ? "OK" : sb.toString();
    }
}
