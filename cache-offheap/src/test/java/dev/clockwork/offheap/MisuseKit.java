package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.admission.Admission;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.function.ToIntFunction;

/**
 * Shared pieces of {@link MisuseFuzzTest} and {@link MisuseRaceTest} (the misuse contract: no
 * call sequence may crash the JVM or corrupt another caller's entry): caches of each
 * {@link CacheKind} with a known hash seed, built through their public builders only (the handle
 * layout is the cache's business, so nothing here decodes a handle); values that name their key
 * and version, so that every read can be checked; and what counts as a refused call.
 *
 * <h2>Values</h2>
 * A value is a whole number of 8-byte words: the key (tagged), the version, then words mixed from
 * both and the word's index. Its length depends on the key only ({@link #lengthOf}), and two
 * lengths are used that glibc serves from one size class, so a freed value's block tends to be
 * handed to the next insert of any key: a read of freed memory shows up as another key's (or
 * another version's) bytes, which {@link #versionOf} tells apart from the expected ones.
 * Versions are unique per inserted entry (each test draws them from one counter), so a version
 * names one entry instance, not just a key.
 */
final class MisuseKit {
    private static final long KEY_TAG = 0x6B65_7900_0000_0000L;
    private static final long KEY_MIX = 0x9E37_79B9_7F4A_7C15L;
    private static final long INDEX_MIX = 0xC2B2_AE3D_27D4_EB4FL;
    /** What {@link #versionOf} returns for bytes that are not a value of the key. */
    static final long NOT_THIS_KEY = -1;

    private MisuseKit() {
    }

    /** The seed every cache built here hashes keys with, so that tests can hash keys too. */
    static final long HASH_SEED = 0x6B65_7953_6565_6400L;

    /**
     * A cache of {@code kind} hashing with {@link #HASH_SEED}; {@code estimatedEntryCharge} sizes
     * a fixed table (the others ignore it).
     */
    static ShardedCache build(CacheKind kind, long capacity, long estimatedEntryCharge,
                              int shardBits) {
        return build(kind, capacity, estimatedEntryCharge, shardBits, Admission.ALWAYS);
    }

    /** As {@link #build(CacheKind, long, long, int)}, asking {@code admission} before evicting. */
    static ShardedCache build(CacheKind kind, long capacity, long estimatedEntryCharge,
                              int shardBits, Admission admission) {
        return kind.builder(capacity, estimatedEntryCharge).numShardBits(shardBits)
                .admission(admission).hashSeed(HASH_SEED).build();
    }

    /** The length of every value of {@code key}: {@code base} or {@code base + 8} bytes. */
    static int lengthOf(long key, int base) {
        return base + 8 * (int) (key & 1);
    }

    /** Writes the value of {@code key} and {@code version} into {@code dst[0, length)}. */
    static void stamp(byte[] dst, long key, long version, int length) {
        MemorySegment s = MemorySegment.ofArray(dst);
        for (int i = 0; i < length / 8; i++) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, 8L * i, word(key, version, i));
        }
    }

    /** A new array holding the value of {@code key} and {@code version}. */
    static byte[] value(long key, long version, int length) {
        byte[] v = new byte[length];
        stamp(v, key, version, length);
        return v;
    }

    private static long word(long key, long version, int index) {
        return switch (index) {
            case 0 -> KEY_TAG ^ key;
            case 1 -> version;
            default -> (key * KEY_MIX) ^ version ^ (index * INDEX_MIX);
        };
    }

    /**
     * The version of the value in {@code bytes}, if they are a whole, well-formed value of
     * {@code key} of the key's length; {@link #NOT_THIS_KEY} for anything else (another key's
     * bytes, a torn or freed value, a wrong length).
     */
    static long versionOf(MemorySegment bytes, long key, int length) {
        if (bytes.byteSize() != length || length < 16) {
            return NOT_THIS_KEY;
        }
        if (bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != word(key, 0, 0)) {
            return NOT_THIS_KEY;
        }
        long version = bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        for (int i = 2; i < length / 8; i++) {
            if (bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, 8L * i) != word(key, version, i)) {
                return NOT_THIS_KEY;
            }
        }
        return version < 0 ? NOT_THIS_KEY : version;
    }

    /** {@link #versionOf} of the first {@code length} bytes of an array. */
    static long versionOf(byte[] bytes, long key, int length) {
        return versionOf(MemorySegment.ofArray(bytes).asSlice(0, length), key, length);
    }

    /** A short description of what some bytes are, for failure messages. */
    static String describe(MemorySegment bytes) {
        if (bytes.byteSize() < 16) {
            return bytes.byteSize() + " bytes";
        }
        long tagged = bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        long key = tagged ^ KEY_TAG;
        long version = bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        int words = (int) (bytes.byteSize() / 8);
        int wrong = 0;
        for (int i = 2; i < words; i++) {
            if (bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, 8L * i) != word(key, version, i)) {
                wrong++;
            }
        }
        return bytes.byteSize() + " bytes, first words: key " + key + " (tagged "
                + Long.toHexString(tagged) + "), version " + version + "; " + wrong + " of the "
                + Math.max(0, words - 2) + " later words differ from that value's";
    }

    /** Inserts the value of {@code key} and {@code version}, charged its length, pinned. */
    static long insertPinned(Cache cache, long key, long version, int length) {
        byte[] v = value(key, version, length);
        return cache.insertPinned(key, ~key, v, 0, length, length, Priority.LOW);
    }

    /** Inserts the value of {@code key} and {@code version}, charged its length. */
    static boolean insert(Cache cache, long key, long version, int length) {
        byte[] v = value(key, version, length);
        return cache.insert(key, ~key, v, 0, length, length, Priority.LOW);
    }

    /**
     * Whether an exception is the way a refused call must fail: {@link IllegalStateException},
     * for every misused handle (stale, not pinned, made up, another cache's) and a closed cache
     * alike (Cache's "Misuse").
     */
    static boolean isRefusal(Throwable e) {
        return e instanceof IllegalStateException;
    }

    /**
     * How many made-up handles a cache may accept in {@code trials} tries: each passes with
     * probability at most 2^-30 (a 31-bit check, a generation in an order drawn per slot; a
     * flipped check bit is refused while its entry is there, a flipped location bit lands on a
     * slot whose generation matches with probability about 2^-31), so acceptances are at most
     * Poisson with mean {@code trials / 2^30}; the bound is that mean plus six standard
     * deviations plus 8, which a correct cache exceeds with a probability below 10^-6 for any
     * number of trials.
     */
    static long allowedForgeries(long trials) {
        double mean = trials / (double) (1L << 30);
        return (long) Math.ceil(mean + 6 * Math.sqrt(mean) + 8);
    }

    /** A handle in hex, for messages. */
    static String hex(long handle) {
        return "0x" + Long.toHexString(handle);
    }

    /**
     * A table of 100 picks in which each value stands as many times as its weight: a random index
     * into it draws the values with those weights (out of 100).
     *
     * @throws AssertionError if the weights do not add up to 100
     */
    static <E> E[] byPercent(E[] values, ToIntFunction<E> weight) {
        E[] table = Arrays.copyOf(values, 100);
        int i = 0;
        for (E value : values) {
            for (int w = weight.applyAsInt(value); w > 0; w--) {
                if (i == table.length) {
                    throw new AssertionError("weights add up to more than 100");
                }
                table[i++] = value;
            }
        }
        if (i != 100) {
            throw new AssertionError("weights add up to " + i);
        }
        return table;
    }
}
