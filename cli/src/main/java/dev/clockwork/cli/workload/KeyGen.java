package dev.clockwork.cli.workload;

import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.cache.key.DbId;
import dev.clockwork.cache.key.FileCacheKey;
import dev.clockwork.cache.key.SessionId;
import dev.clockwork.cache.key.SessionIdGenerator;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * cache_bench's {@code KeyGen}: draws a skewed key number and turns it into a 16-byte cache key.
 * One instance per thread (it reuses a scratch buffer).
 *
 * <p>Key number: {@code raw} is the minimum (unsigned) of {@code skew + 1} random 64-bit values,
 * mapped onto {@code [0, maxKey)} by {@code FastRange64} (the high 64 bits of
 * {@code raw * maxKey}). Skew 0 is uniform; each extra draw pushes the distribution towards small
 * key numbers (the density is {@code (skew + 1) (1 - x)^skew} on {@code x = key / maxKey}).
 *
 * <p>Key bytes: cache_bench writes the key number little-endian three times into a 27-byte buffer
 * after the marker bytes 42, 11 and 4 ({@code [42][k][11][k][4][k]}) and takes the 16 bytes
 * starting at offset {@code key % 8}, to vary key contents and alignment. Clockwork keys are two
 * longs, so {@link #key0()} and {@link #key1()} are exactly those 16 bytes read as two
 * little-endian longs: the same key bytes RocksDB hashes.
 *
 * <p>Degenerate keys ({@code -degenerate_hash_bits=N}, N in 1..63), as cache_bench builds them:
 * the key number is mixed into a 64-bit {@code keyHash}; the wanted hashed key is
 * {@code h0 = keyHash} (so shard and probe step vary as usual) and
 * {@code h1 = 0x9e3779b97f4a7c13 ^ (keyHash << N)}, whose low N bits, the low bits of the home
 * slot, are the same for every key; the cache key is that hashed key run backwards through
 * {@link KeyHash} with the cache's hash seed. Distinct key numbers still give distinct keys, but
 * all their home slots fall in one 2^N-th of each table, so probe runs grow long. The cache must
 * be built with the same hash seed, else the keys are merely random.
 */
public final class KeyGen {
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** The constant part of a degenerate key's {@code h1} (cache_bench's). */
    public static final long DEGENERATE_H1_BASE = 0x9e3779b97f4a7c13L;

    private final byte[] data = new byte[27];
    private final int degenerateHashBits;
    private final long hashSeed;
    private long key0;
    private long key1;
    /** With file keys ({@link #fileKeys}): each file's base key, else null. */
    private final FileCacheKey[] files;
    private final long blocksPerFile;
    private final long blockBytes;

    /** Ordinary cache_bench keys. */
    public KeyGen() {
        this(0, 0);
    }

    /**
     * @param degenerateHashBits 0 for ordinary keys, else 1..63 hashed-key bits to fix
     * @param hashSeed the cache's hash seed (used only for degenerate keys)
     */
    public KeyGen(int degenerateHashBits, long hashSeed) {
        if (degenerateHashBits < 0 || degenerateHashBits > 63) {
            throw new IllegalArgumentException("degenerateHashBits " + degenerateHashBits);
        }
        this.degenerateHashBits = degenerateHashBits;
        this.hashSeed = hashSeed;
        this.files = null;
        this.blocksPerFile = 0;
        this.blockBytes = 0;
        data[0] = 42;
        data[9] = 11;
        data[18] = 4;
    }

    private KeyGen(FileCacheKey[] files, long blocksPerFile, long blockBytes) {
        this.degenerateHashBits = 0;
        this.hashSeed = 0;
        this.files = files;
        this.blocksPerFile = blocksPerFile;
        this.blockBytes = blockBytes;
    }

    /**
     * Keys of the stable scheme: key number {@code k} is block {@code k % blocksPerFile} of file
     * {@code k / blocksPerFile}, at byte offset {@code block * blockBytes}, its key derived from
     * the file's {@link FileCacheKey} (one database, one session, files numbered from 1).
     */
    public static KeyGen fileKeys(long maxKey, long blocksPerFile, long blockBytes) {
        int n = Math.toIntExact(Math.max(1, (maxKey + blocksPerFile - 1) / blocksPerFile));
        DbId db = new DbId(0x0123_4567_89ab_cdefL, 0x0fed_cba9_8765_4321L);
        SessionId session = new SessionIdGenerator(0x5eed, 0xc10c).next();
        FileCacheKey[] files = new FileCacheKey[n];
        for (int i = 0; i < n; i++) {
            files[i] = FileCacheKey.of(db, session, i + 1);
        }
        return new KeyGen(files, blocksPerFile, blockBytes);
    }

    /**
     * Draws a key number in {@code [0, maxKey)} (0 when maxKey is 0), consuming skew + 1 values.
     */
    public static long randomKey(Random64 rnd, long maxKey, long skew) {
        long raw = rnd.next();
        for (long i = 0; i < skew; i++) {
            long r = rnd.next();
            if (Long.compareUnsigned(r, raw) < 0) {
                raw = r;
            }
        }
        return Math.unsignedMultiplyHigh(raw, maxKey); // FastRange64
    }

    /** Sets {@link #key0()} and {@link #key1()} to the cache key for key number {@code key}. */
    public void encode(long key) {
        if (files != null) {
            FileCacheKey file = files[(int) (key / blocksPerFile)];
            key0 = file.key0();
            key1 = file.key1((key % blocksPerFile) * blockBytes);
            return;
        }
        if (degenerateHashBits != 0) {
            encodeDegenerate(key);
            return;
        }
        byte[] d = data;
        LONG_LE.set(d, 1, key);
        LONG_LE.set(d, 10, key);
        LONG_LE.set(d, 19, key);
        int off = (int) (key & 7);
        key0 = (long) LONG_LE.get(d, off);
        key1 = (long) LONG_LE.get(d, off + 8);
    }

    private void encodeDegenerate(long key) {
        long h0 = mixKeyNumber(key);
        long h1 = degenerateH1(h0, degenerateHashBits);
        long k1 = KeyHash.unhash1(h0, h1);
        key0 = KeyHash.unhash0FromKey1(h0, k1, hashSeed);
        key1 = k1;
    }

    /**
     * The wanted second hashed-key word for {@code keyHash}: its low {@code bits} bits are those
     * of {@link #DEGENERATE_H1_BASE}, the rest vary with {@code keyHash}.
     */
    public static long degenerateH1(long keyHash, int bits) {
        return DEGENERATE_H1_BASE ^ (keyHash << bits);
    }

    /**
     * A bijective 64-bit mix of a key number (in the role of cache_bench's {@code Hash64} of the
     * key), so that distinct key numbers give distinct degenerate keys.
     */
    public static long mixKeyNumber(long key) {
        long z = (key ^ 0x2545F4914F6CDD1DL) * 0x9E3779B97F4A7C15L; // key 0 does not map to 0
        z ^= z >>> 29;
        z *= 0xBF58476D1CE4E5B9L;
        z ^= z >>> 32;
        z *= 0x94D049BB133111EBL;
        return z ^ (z >>> 29);
    }

    /** Bytes 0..7 of the last encoded key, little-endian. */
    public long key0() {
        return key0;
    }

    /** Bytes 8..15 of the last encoded key, little-endian. */
    public long key1() {
        return key1;
    }
}
