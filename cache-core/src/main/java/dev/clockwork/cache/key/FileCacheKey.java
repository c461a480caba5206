package dev.clockwork.cache.key;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.KeyPredicate;
import dev.clockwork.cache.hash.KeyHash;

/**
 * The base cache key of one file, from which the key of every block in it is derived for free:
 * {@code cache.lookup(file.key0(), file.key1(offset))}. RocksDB's {@code OffsetableCacheKey}
 * scheme (cache/cache_key.cc), with the same properties.
 *
 * <h2>Layout</h2>
 * A file is named by its database's {@link DbId}, the {@link SessionId} that wrote it and its file
 * number. Its internal id is two words: {@code s = session.lower} (counts up within a process) and
 * {@code f = H(db, session.upper) ^ fileNumber}, {@code H} a 64-bit hash. The key is
 * <pre>
 *   key0 = DI(s) ^ reverse(f)        (DI = {@link KeyBits#downwardInvolution})
 *   key1 = reverse(s) ^ offset
 * </pre>
 * which, low bits on the left, places the structured parts at opposite ends of each word:
 * <pre>
 *   key0: | DI(session random base) + DI(session counter) ....... | ..... fileNumber, reversed |
 *   key1: | offset ....................... | ....... session counter, reversed |
 *         (both words also carry the session's random bits and, key0, the hash of db and upper)
 * </pre>
 * So for one process (one {@link SessionIdGenerator}) and one database, keys are distinct by
 * construction as long as the bits of the largest session counter, file number and offset
 * together fit in 128: a counter below 2^a, file numbers below 2^b and offsets below 2^c with
 * a + b + c ≤ 128 give distinct keys, whatever a, b and c are, without knowing them. Across
 * processes and databases the random bits make keys distinct by chance. Every step is invertible
 * ({@link #fromInternalId} / {@link #toInternalId}).
 *
 * <h2>The value space</h2>
 * A file key's {@code key0} is never 0 (if the formula gives 0, the two words are swapped, which
 * stays invertible because {@code key1} of a file's base is never 0). Keys with {@code key0 == 0}
 * are left to {@link CacheKeys}: cache-lifetime ids in {@code key1} ∈ [1, 2^63), process-lifetime
 * ids in {@code key1} ∈ [2^63, 2^64). {@code (0, 0)} is no key. The three kinds never collide.
 *
 * <p>Immutable; deriving a block's key allocates nothing.
 */
public final class FileCacheKey {
    private final long key0;
    private final long base1;

    private FileCacheKey(long key0, long base1) {
        this.key0 = key0;
        this.base1 = base1;
    }

    /**
     * The base key of file {@code fileNumber} of database {@code db}, written in {@code session}.
     *
     * @param db the database the file belongs to
     * @param session the session that wrote the file
     * @param fileNumber the file's number in the database (any value; small ones keep keys
     *     distinct by construction, see above)
     * @return the file's base key
     */
    public static FileCacheKey of(DbId db, SessionId session, long fileNumber) {
        long f = KeyHash.hash0(db.high(), db.low(), session.upper()) ^ fileNumber;
        return fromInternalId(session.lower(), f);
    }

    /**
     * The base key of an internal id {@code (s, f)}; bijective where {@code s == 0} only if
     * {@code f == 0} (and then the key is empty: use {@link #of} for real files).
     *
     * @param s {@code session.lower} (see above); 0 is taken as {@code f}
     * @param f {@code H(db, session.upper) ^ fileNumber} (see above)
     * @return the file's base key
     */
    public static FileCacheKey fromInternalId(long s, long f) {
        if (s == 0) {
            s = f; // as RocksDB: keeps key0 non-zero for any non-empty id
        }
        long k0 = KeyBits.downwardInvolution(s) ^ KeyBits.reverse(f);
        long k1 = KeyBits.reverse(s);
        if (k0 == 0) { // then k1 != 0 (unless the id is empty): swap, still invertible
            return new FileCacheKey(k1, k0);
        }
        return new FileCacheKey(k0, k1);
    }

    /**
     * The internal id {@code {s, f}} this key was built from: {@link #fromInternalId}'s inverse.
     *
     * @return a new array {@code {s, f}}
     */
    public long[] toInternalId() {
        long a = key0;
        long b = base1;
        if (b == 0) {
            long t = a;
            a = b;
            b = t;
        }
        long s = KeyBits.reverse(b);
        long f = KeyBits.reverse(a ^ KeyBits.downwardInvolution(s));
        return new long[] {s, f};
    }

    /**
     * The first word of every key of this file (never 0 for a real file).
     *
     * @return {@code key0} of every block's key
     */
    public long key0() {
        return key0;
    }

    /**
     * The second word of the key of the block at {@code offset} (any offset, bytes or ids).
     *
     * @param offset the block's offset in the file, or any number that names it in the file
     * @return the base's second word xor {@code offset}
     */
    public long key1(long offset) {
        return base1 ^ offset;
    }

    /**
     * The second word for a record at byte {@code offset} of a file whose cached records are all
     * at least 5 bytes long: the offset's low two bits are dropped, which keeps keys distinct (no
     * two such records start within 4 bytes) and gives the offset two more bits of room.
     *
     * @param offset the record's byte offset in the file
     * @return the base's second word xor {@code offset >>> 2}
     */
    public long key1ForMinSizeRecord(long offset) {
        return base1 ^ (offset >>> 2);
    }

    /**
     * Picks the keys of this file's blocks at offsets below {@code offsetLimit}, for
     * {@link Cache#eraseIf}: {@code cache.eraseIf(file.blocksBelow(fileSize))} drops the file's
     * blocks, e.g. when the file is deleted. A key is picked when its first word is this file's
     * and its second word is {@link #key1(long)} of an offset below the limit (compared
     * unsigned).
     *
     * <p>Exactly this file's blocks, whenever the cache's keys are distinct by construction with
     * offsets below the limit (see "Layout": the bits of the session counter, the file number and
     * the limit fit in 128 together): a key of another file that passed the test would be the
     * key of one of this file's blocks too. Keys made with {@link #key1ForMinSizeRecord} are
     * picked for byte offsets below {@code 4 * offsetLimit}. Allocates one small object; the
     * predicate itself allocates nothing.
     *
     * @param offsetLimit one past the largest offset to pick, unsigned ({@code -1}: every offset
     *     below 2^64 - 1, which may also pick blocks of files whose first word is the same)
     * @return the predicate
     */
    public KeyPredicate blocksBelow(long offsetLimit) {
        long fileKey0 = key0;
        long fileBase1 = base1;
        return (k0, k1) -> k0 == fileKey0 && Long.compareUnsigned(k1 ^ fileBase1, offsetLimit) < 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileCacheKey k && k.key0 == key0 && k.base1 == base1;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(key0 * 31 + base1);
    }

    @Override
    public String toString() {
        return String.format("FileCacheKey[%016x, %016x]", key0, base1);
    }
}
