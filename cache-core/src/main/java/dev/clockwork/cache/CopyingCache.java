package dev.clockwork.cache;

import dev.clockwork.cache.hash.Murmur3;
import dev.clockwork.cache.internal.Args;
import java.lang.foreign.MemorySegment;

/**
 * A byte-array front end for any {@link Cache}, for callers who do not want handles: keys are
 * {@code byte[]} or {@link MemorySegment}s of any length, values are copied in on
 * {@link #put} and copied out on {@link #get}.
 *
 * <h2>Keys are 128-bit hashes</h2>
 * A key is hashed with MurmurHash3 x64-128 ({@link Murmur3}, seed {@link #DEFAULT_SEED} unless
 * given) and the two 64-bit halves of the digest become the cache key {@code (key0, key1)}. The
 * key bytes themselves are never stored, so two different keys share an entry only when their
 * 128-bit digests are equal. For {@code n} keys that are not chosen adversarially the chance of
 * any such collision is about {@code n^2 / 2^129} (birthday bound), e.g. ~2^-65 for four billion
 * keys, which is why storing and comparing key bytes can be skipped. Murmur3 is not a
 * cryptographic hash: if untrusted parties choose keys, they can build colliding keys and read or
 * overwrite each other's values; use a cryptographic digest and the handle API in that case.
 * A {@code byte[]} key and a {@code MemorySegment} key with the same bytes are the same key.
 *
 * <h2>Costs</h2>
 * Hashing uses a two-{@code long} scratch array per thread, so a call allocates nothing beyond
 * the {@code byte[]} that {@link #get(byte[])} returns. Copies into a caller's buffer are
 * {@link Cache#get}, which on the HyperClock caches takes no reference at all; {@link
 * #get(byte[])},
 * which must learn the size first, pins the entry while it copies and releases it in a
 * {@code finally} block.
 *
 * <p>Thread-safe whenever the wrapped cache is (all {@link Cache} implementations are).
 */
public final class CopyingCache implements AutoCloseable {

    /** The Murmur3 seed used when none is given (ASCII "clockwor"). */
    public static final long DEFAULT_SEED = 0x636c6f636b776f72L;

    private static final ThreadLocal<long[]> SCRATCH = ThreadLocal.withInitial(() -> new long[2]);

    private final Cache cache;
    private final long seed;

    /**
     * Wraps {@code cache}, hashing keys with {@link #DEFAULT_SEED}.
     *
     * @param cache the cache to store entries in; closing this closes it
     * @throws NullPointerException if {@code cache} is null
     */
    public CopyingCache(Cache cache) {
        this(cache, DEFAULT_SEED);
    }

    /**
     * Wraps {@code cache}, hashing keys with the given Murmur3 seed.
     *
     * @param cache the cache to store entries in; closing this closes it
     * @param seed the Murmur3 seed, all 64 bits used; wrappers of one cache must share it to
     *     find each other's entries
     * @throws NullPointerException if {@code cache} is null
     */
    public CopyingCache(Cache cache, long seed) {
        this.cache = Args.requireNonNull("cache", cache);
        this.seed = seed;
    }

    /**
     * The wrapped cache.
     *
     * @return the cache given to the constructor
     */
    public Cache cache() {
        return cache;
    }

    /**
     * The Murmur3 seed keys are hashed with.
     *
     * @return the seed given to the constructor, or {@link #DEFAULT_SEED}
     */
    public long seed() {
        return seed;
    }

    // ---------------------------------------------------------------- byte[] keys

    /**
     * A copy of the value stored under {@code key}, or {@code null} if it is not cached.
     *
     * @param key the key's bytes, any length
     * @return a new array holding the value, or {@code null} if the key is not cached
     * @throws IllegalStateException if the value is too long for a {@code byte[]}
     *     (more than {@code Integer.MAX_VALUE - 8} bytes)
     */
    public byte[] get(byte[] key) {
        Args.requireNonNull("key", key);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.length, seed, h);
        return copyOut(h[0], h[1]);
    }

    /**
     * Copies the value stored under {@code key} into {@code dst} at {@code offset}.
     *
     * @param key the key's bytes, any length
     * @param dst where to copy the value
     * @param offset index in {@code dst} of the value's first byte
     * @return the value's length, or {@code -1} if the key is not cached
     * @throws IllegalArgumentException if the value does not fit in {@code dst} after
     *     {@code offset}; nothing is copied then
     * @throws IndexOutOfBoundsException if {@code offset} is not in {@code [0, dst.length]}
     */
    public int get(byte[] key, byte[] dst, int offset) {
        Args.requireNonNull("key", key);
        checkDst(dst, offset);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.length, seed, h);
        return cache.get(h[0], h[1], dst, offset);
    }

    /**
     * {@link #put(byte[], byte[], Priority)} with {@link Priority#LOW}.
     *
     * @param key the key's bytes, any length
     * @param value the value; copied
     * @return {@code true} if the cache accepted the entry, {@code false} if it refused it
     */
    public boolean put(byte[] key, byte[] value) {
        return put(key, value, Priority.LOW);
    }

    /**
     * Stores a copy of {@code value} under {@code key}, charged at {@code value.length} bytes,
     * replacing any value the key had: {@link Cache#put}, with its meaning on every cache type
     * (a concurrent reader sees the old value, a miss, or the new value, never a mix; racing puts
     * of one key leave one entry; a refused value leaves the key absent).
     *
     * @param key the key's bytes, any length
     * @param value the value; copied
     * @param priority how hard the cache should try to keep the entry
     * @return {@code true} if the cache accepted the entry, {@code false} if it refused it (strict
     *     capacity limit or admission policy; the key is absent then)
     * @throws IllegalArgumentException if the value is larger than the cache's capacity; nothing
     *     is changed then
     */
    public boolean put(byte[] key, byte[] value, Priority priority) {
        Args.requireNonNull("key", key);
        Args.requireNonNull("value", value);
        Args.requireNonNull("priority", priority);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.length, seed, h);
        return cache.put(h[0], h[1], value, 0, value.length, value.length, priority);
    }

    /**
     * Stores a copy of {@code value} under {@code key}, charged at {@code value.length} bytes,
     * only if the key is absent: {@link Cache#putIfAbsent}.
     *
     * @param key the key's bytes, any length
     * @param value the value; copied
     * @param priority how hard the cache should try to keep the entry
     * @return {@code true} if this call stored the value; {@code false} if the key was present or
     *     the value was refused (the cache's stats tell which)
     * @throws IllegalArgumentException if the value is larger than the cache's capacity
     */
    public boolean putIfAbsent(byte[] key, byte[] value, Priority priority) {
        Args.requireNonNull("key", key);
        Args.requireNonNull("value", value);
        Args.requireNonNull("priority", priority);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.length, seed, h);
        return cache.putIfAbsent(h[0], h[1], value, 0, value.length, value.length, priority);
    }

    /**
     * Removes {@code key}; returns {@code true} if it was cached.
     *
     * @param key the key's bytes, any length
     * @return {@code true} if the key was cached
     */
    public boolean remove(byte[] key) {
        Args.requireNonNull("key", key);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.length, seed, h);
        return cache.erase(h[0], h[1]);
    }

    // ---------------------------------------------------------------- MemorySegment keys

    /**
     * As {@link #get(byte[])}, with the key's bytes in a segment (all of it).
     *
     * @param key the key's bytes: the whole segment, heap or native
     * @return a new array holding the value, or {@code null} if the key is not cached
     * @throws IllegalStateException if the value is too long for a {@code byte[]}
     */
    public byte[] get(MemorySegment key) {
        Args.requireNonNull("key", key);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.byteSize(), seed, h);
        return copyOut(h[0], h[1]);
    }

    /**
     * As {@link #get(byte[], byte[], int)}, with the key's bytes in a segment.
     *
     * @param key the key's bytes: the whole segment, heap or native
     * @param dst where to copy the value
     * @param offset index in {@code dst} of the value's first byte
     * @return the value's length, or {@code -1} if the key is not cached
     * @throws IllegalArgumentException if the value does not fit in {@code dst} after
     *     {@code offset}; nothing is copied then
     * @throws IndexOutOfBoundsException if {@code offset} is not in {@code [0, dst.length]}
     */
    public int get(MemorySegment key, byte[] dst, int offset) {
        Args.requireNonNull("key", key);
        checkDst(dst, offset);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.byteSize(), seed, h);
        return cache.get(h[0], h[1], dst, offset);
    }

    /**
     * Copies the value stored under {@code key} to the start of {@code dst}.
     *
     * @param key the key's bytes: the whole segment, heap or native
     * @param dst where to copy the value, from its first byte
     * @return the value's length, or {@code -1} if the key is not cached
     * @throws IllegalArgumentException if the value is larger than {@code dst}; nothing is copied
     *     then
     */
    public long get(MemorySegment key, MemorySegment dst) {
        Args.requireNonNull("key", key);
        Args.requireNonNull("dst", dst);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.byteSize(), seed, h);
        return cache.get(h[0], h[1], dst, 0);
    }

    /**
     * {@link #put(MemorySegment, MemorySegment, Priority)} with {@link Priority#LOW}.
     *
     * @param key the key's bytes: the whole segment, heap or native
     * @param value the value: the whole segment; copied
     * @return {@code true} if the cache accepted the entry, {@code false} if it refused it
     */
    public boolean put(MemorySegment key, MemorySegment value) {
        return put(key, value, Priority.LOW);
    }

    /**
     * As {@link #put(byte[], byte[], Priority)}, with key and value in segments; the charge is
     * {@code value.byteSize()}.
     *
     * @param key the key's bytes: the whole segment, heap or native
     * @param value the value: the whole segment, at most {@code Integer.MAX_VALUE} bytes; copied
     * @param priority how hard the cache should try to keep the entry
     * @return {@code true} if the cache accepted the entry, {@code false} if it refused it (the
     *     key is absent then)
     * @throws IllegalArgumentException if the value is larger than the cache's capacity, or
     *     longer than {@code Integer.MAX_VALUE} bytes; nothing is changed then
     */
    public boolean put(MemorySegment key, MemorySegment value, Priority priority) {
        Args.requireNonNull("key", key);
        Args.requireNonNull("value", value);
        Args.requireNonNull("priority", priority);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.byteSize(), seed, h);
        return cache.put(h[0], h[1], value, value.byteSize(), priority);
    }

    /**
     * As {@link #putIfAbsent(byte[], byte[], Priority)}, with key and value in segments; the
     * charge is {@code value.byteSize()}.
     *
     * @param key the key's bytes: the whole segment, heap or native
     * @param value the value: the whole segment, at most {@code Integer.MAX_VALUE} bytes; copied
     * @param priority how hard the cache should try to keep the entry
     * @return {@code true} if this call stored the value; {@code false} if the key was present or
     *     the value was refused
     * @throws IllegalArgumentException if the value is larger than the cache's capacity, or
     *     longer than {@code Integer.MAX_VALUE} bytes
     */
    public boolean putIfAbsent(MemorySegment key, MemorySegment value, Priority priority) {
        Args.requireNonNull("key", key);
        Args.requireNonNull("value", value);
        Args.requireNonNull("priority", priority);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.byteSize(), seed, h);
        return cache.putIfAbsent(h[0], h[1], value, value.byteSize(), priority);
    }

    /**
     * Removes {@code key}; returns {@code true} if it was cached.
     *
     * @param key the key's bytes: the whole segment, heap or native
     * @return {@code true} if the key was cached
     */
    public boolean remove(MemorySegment key) {
        Args.requireNonNull("key", key);
        long[] h = SCRATCH.get();
        Murmur3.hash128(key, 0, key.byteSize(), seed, h);
        return cache.erase(h[0], h[1]);
    }

    /** Closes the wrapped cache, freeing its native memory. */
    @Override
    public void close() {
        cache.close();
    }

    // ---------------------------------------------------------------- internals

    private byte[] copyOut(long key0, long key1) {
        long handle = cache.lookup(key0, key1);
        if (handle == Cache.MISS) {
            return null;
        }
        try {
            long size = cache.valueSize(handle);
            if (size > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException(
                        "value of " + size + " bytes does not fit in a byte[]");
            }
            byte[] out = new byte[(int) size];
            cache.copyValue(handle, out, 0);
            return out;
        } finally {
            cache.release(handle);
        }
    }

    private static void checkDst(byte[] dst, int offset) {
        Args.requireNonNull("dst", dst);
        Args.requireOffset(offset, dst.length, "dst.length");
    }
}
