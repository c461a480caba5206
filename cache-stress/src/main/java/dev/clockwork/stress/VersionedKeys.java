package dev.clockwork.stress;

import static dev.clockwork.stress.Outcomes.failure;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The keys of the Fixed and LRU stress tests ({@link #A}, {@link #P}, {@link #K1}.. named by id)
 * and their self-describing values, with the cache calls by key id and the labels that name what
 * a reader saw. {@link FixedFixture} and {@link LruFixture} build their caches for these keys;
 * the Auto tests need keys whose home is chosen and have their own ({@link AutoFixture}).
 *
 * <h2>Values</h2>
 * Each value is 24 bytes: the two key words and a version number. A handle's bytes therefore
 * name the entry they came from, so a reader that was handed freed (and reused) memory, another
 * key's entry, or a half-written slot gets a label other than the one it expects. All values of
 * all keys have the same length, so malloc tends to hand a freed value's block to the next
 * insert, which makes a use-after-free show up as another key's bytes rather than stale ones.
 * Every entry is charged {@link #CHARGE}.
 */
final class VersionedKeys {
    static final long CHARGE = 64;
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

    private VersionedKeys() {
    }

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

    static long key0(int key) {
        return KEY0_BASE + key;
    }

    static long key1(int key) {
        return KEY1_BASE + key * 0x9E37L;
    }

    /** The bytes of a key's version, shared: a cache copies them, nothing changes them. */
    static byte[] value(int key, int version) {
        return VALUES[key][version];
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
            long seen = cache.read(key0(key), key1(key), VersionedKeys::codeOf, NOT_CACHED);
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
    static String peek(Cache cache, int key) {
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

    /**
     * Looks up {@code key}, reads its value and releases: "MISS", "HIT" (version 0 of the key),
     * "HIT_" + the label of other bytes, with "_FREED" appended if the release freed the entry;
     * or the failure's name.
     */
    static String lookupReadRelease(Cache cache, int key) {
        try {
            long h = lookup(cache, key);
            if (h == Cache.MISS) {
                return "MISS";
            }
            String seen = read(cache, h);
            boolean freed = cache.release(h);
            return (seen.equals(label(key, 0)) ? "HIT" : "HIT_" + seen) + (freed ? "_FREED" : "");
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
            List<String> seen = new ArrayList<>(4);
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
            Collections.sort(seen);
            return String.join(";", seen);
        } catch (RuntimeException | Error e) {
            return failure(e);
        }
    }
}
