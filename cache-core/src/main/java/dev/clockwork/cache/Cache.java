package dev.clockwork.cache;

import dev.clockwork.cache.internal.Args;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * An off-heap cache of byte values under 16-byte keys, shaped for storage engines.
 *
 * <h2>Keys</h2>
 * A key is 16 bytes given as two {@code long}s, e.g. a block's file number and offset, or a
 * 128-bit hash of an arbitrary key ({@link dev.clockwork.cache.hash.Murmur3}). The cache never
 * looks at key bytes beyond
 * these 128 bits, so two keys are the same entry exactly when both longs are equal.
 *
 * <h2>Handles</h2>
 * {@link #lookup} returns a primitive {@code long} handle that pins the entry: while pinned it is
 * never evicted or freed, and its value can be read through {@link #value(long)} without copying.
 * {@link #MISS} (0) means the key was not found. Every handle must be released exactly once with
 * {@link #release(long)}; a handle must not be used after its release. Handles cost nothing on the
 * Java heap.
 *
 * <h2>Not found</h2>
 * Each call says "not cached" in the type of what it returns, so the API has four spellings:
 * <ul>
 *   <li>{@link #lookup} and {@link #insertPinned} return {@link #MISS}, 0: a handle, and no
 *       handle is 0 (nor negative), so {@code h != MISS} is the test, as {@code nullptr} is for
 *       RocksDB's handles.</li>
 *   <li>{@link #get(long, long, byte[], int) get} returns {@link #ABSENT}, -1: a length, and 0
 *       is a length (an empty value is a value), so "absent" must be negative.</li>
 *   <li>{@link #read} returns the caller's {@code ifAbsent}: its result is whatever the
 *       {@link ValueReader} computes, any {@code long}, so the cache cannot reserve a value;
 *       the caller passes one its reader never returns ({@link #ABSENT} for a reader whose
 *       results are never negative).</li>
 *   <li>{@code CopyingCache.get(key)} returns {@code null}: it returns a new array, and no
 *       array is Java's "no object" ({@code Map.get}); its {@code get(key, dst, offset)} returns
 *       a length, so {@link #ABSENT}, as {@code get} here.</li>
 * </ul>
 * {@code MISS} and {@code ABSENT} are not one constant because they are never compared with the
 * same thing: one is tested against handles, the other against lengths, and each is a value its
 * own type cannot take. (-1 would do for handles too, but 0 is the null handle of C and RocksDB,
 * and one constant for both would suggest that a handle and a length could be compared.)
 *
 * <h2>Misuse</h2>
 * Misused handles are refused with an {@link IllegalStateException} and change nothing: the same
 * exception on every cache type, whether the handle is stale, released, another cache's or made
 * up (which of these a number is cannot be told from its bits, only that it names no entry it
 * may use). Other misuse throws as each method says: a bad size {@link IllegalArgumentException},
 * a null argument {@link NullPointerException}, a closed cache {@link IllegalStateException}.
 * No call sequence crashes the JVM or frees memory twice, and no call returns another key's
 * bytes: {@link #get(long, long, byte[], int) get} and {@link #read} return only the bytes (or a
 * reader's result on the bytes) of the key's entry, and {@link #copyValue} only those of the
 * entry its handle names (refusing other handles with the certainty listed below), throwing if
 * that entry is freed under them. A {@link #value} view is the exception: it is a window on
 * memory, not a copy, and read after its handle's release it may show another key's bytes (see
 * below). Every handle carries a 31-bit check: the generation its entry's slot was given, which
 * moves on whenever the slot takes an entry, through all 2^31 generations in an order drawn per
 * slot and per cache; every use compares it with the slot's, and reads through a handle compare
 * it again after reading, so an entry freed in between throws instead of returning freed
 * memory. What is refused, and with what certainty:
 * <ul>
 *   <li>a handle whose entry was freed: always, until its slot has been reused 2^31 times;</li>
 *   <li>a made-up number, another cache's handle, a handle with any bit changed: all but about
 *       one in 2^31 (one in two billion) per entry it meets, the chance that another slot's
 *       generation agrees;</li>
 *   <li>a second release, or a {@link #ref} after release, while no other reference to the
 *       entry is held: always (the count would go below zero);</li>
 *   <li>references past 2^24 - 1 on one entry: always
 *       (the call throws, so counts cannot wrap).</li>
 * </ul>
 * What cannot be detected: references are counted per entry, not per handle, so a second release
 * of a handle while other callers also hold the entry is indistinguishable from one of theirs. It
 * is accepted, and takes one of their references: the entry may then be evicted or freed while
 * one of them still reads it, whose next call on the handle throws. The harm stays with that
 * entry and its holders: the accounting stays exact, every byte is freed exactly once, and
 * {@link #copyValue} never returns bytes of an entry freed during the copy (it throws). A
 * {@link #value} view, however, is only as good as the reference behind it: read after the entry
 * is freed it may show another entry's bytes or zeros (the caches in
 * {@code dev.clockwork.offheap} keep value memory mapped until close, so it does not fault; a
 * read-after-release is the caller's bug; see docs/correctness.md). In HyperClock caches one more
 * window exists for a
 * release through a stale handle: if, between its check and its compare-and-set of the slot's
 * word (nanoseconds), the entry is freed and new entries published in the slot until one has a
 * word equal in every bit (counters, state and 9 bits of its stamp, which come back only every
 * 512th entry of a slot), the release lands on that entry, with the consequence above. {@code
 * CheckedCache} tracks each
 * pin and refuses all of these, for tests and debugging.
 *
 * <h2>Values and charges</h2>
 * {@link #insert} copies the value into native memory owned by the cache. The entry's charge
 * (usually the value size, but any number the caller chooses) counts against the capacity. Entry
 * metadata is charged as well unless the cache was built not to, so that capacity bounds real
 * memory.
 *
 * <h2>Threads</h2>
 * Every method is safe to call from any thread. Lookup and release of resident entries are
 * lock-free in the HyperClock caches, and take one shard's lock in the LRU cache.
 * {@link #close()} frees all native memory; calls racing with or following close either complete
 * before the memory is freed or throw {@link IllegalStateException}, and never touch freed
 * memory; a value that a racing insert, erase or eviction was handling is freed exactly once.
 *
 * <h2>Callbacks</h2>
 * An admission policy ({@link dev.clockwork.cache.admission.Admission}), an
 * {@link EntryVisitor}, a {@link ValueReader}, a {@link KeyPredicate} (run as a visitor is) and
 * a {@link ValueLoader} or {@link AsyncValueLoader} (see {@link #lookupOrLoad} for what a loader
 * may call) are the caller's code run inside a cache call. The caches in
 * {@code dev.clockwork.offheap} do not trust them:
 * <ul>
 *   <li>What a callback throws (any {@link Throwable}, a checked exception thrown sneakily too)
 *       reaches the caller of the call that ran it, after the cache has finished or undone its
 *       own part: what the call pinned is released, the value an insert copied in is freed
 *       unless it was stored, entries evicted before the throw stay evicted and counted, and
 *       usage and entry counts stay exact. A {@link ValueReader}'s exception reaches the caller
 *       only if the value was whole while the reader ran.</li>
 *   <li>A call back into a cache from inside a callback either works or throws
 *       {@link IllegalStateException}; it never hangs, frees twice or reads freed memory. Which
 *       calls throw: in an LRU cache, whose visitors and policies run with a shard's lock held,
 *       every call into that cache from its visitor or its policy (any shard: a lock taken in
 *       the opposite order by another thread could deadlock), except {@link #close()} from a
 *       visitor; in a HyperClock cache, an insert from inside its policy's {@code admit} (the
 *       insert that asked is still running); and {@link #close()} from inside any admission
 *       policy. Everything else works: a HyperClock visitor or reader, or a policy's
 *       {@code recordAccess} and {@code recordInsert}, may call the cache, close it
 *       included (the call that ran the callback then throws {@link IllegalStateException}).</li>
 * </ul>
 * The cache's own TinyLFU policy never calls back.
 */
public interface Cache extends AutoCloseable {

    /**
     * The handle {@link #lookup} returns for a key that is not in the cache (and
     * {@link #insertPinned} for a refused insert). No handle is 0; see "Not found" above for the
     * other calls' spellings.
     */
    long MISS = 0L;

    /**
     * A number no earlier call on this cache returned, counting up from 0 (thread-safe): for keys
     * unique for the cache's lifetime ({@link dev.clockwork.cache.key.CacheKeys}).
     *
     * @return the next id: 0 on the first call, one more on each call after
     */
    long newId();

    /**
     * Looks up a key; returns a pinned handle, or {@link #MISS}.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @return a handle that pins the entry, to be released once with {@link #release(long)}; or
     *     {@link #MISS} if the key is not in the cache
     * @throws IllegalStateException if the entry already holds the most references an entry may
     *     (see "Misuse" above)
     */
    long lookup(long key0, long key1);

    /**
     * As {@link #lookup(long, long)}, and counts the hit or miss under {@code kind} in
     * {@link CacheStats#kinds()} as well as in the totals: the caller says what kind of block it
     * looks for, as RocksDB's table reader counts its block cache's hits and misses per role (a
     * miss has no entry to tell its kind). The kind named is counted, whatever kind the entry
     * found was inserted with. This default counts nothing per kind: caches that count kinds
     * override it.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param kind the kind of entry looked for, declared on the cache's builder
     * @return as {@link #lookup(long, long)}
     * @throws NullPointerException if {@code kind} is null
     * @throws IllegalArgumentException if the cache counts kinds and was not built with
     *     {@code kind}; nothing is looked up then
     * @throws IllegalStateException as {@link #lookup(long, long)}
     */
    default long lookup(long key0, long key1, EntryKind kind) {
        Args.requireNonNull("kind", kind);
        return lookup(key0, key1);
    }

    /**
     * Inserts a copy of {@code value} under the key, without keeping a handle.
     *
     * <p>Returns {@code true} when the entry was accepted: it is in the cache, or it was
     * "inserted and immediately evicted" because there was no room for it (HyperClock caches: only
     * without a strict limit; LRU caches: with or without, as RocksDB's LRUCache). Returns
     * {@code false} when it was refused: a HyperClock cache's strict capacity limit could not be
     * met, a size limit below was reached, or the admission policy said no (all counted in
     * {@link #stats()}).
     *
     * <p>This is RocksDB's insert, whose meaning depends on the cache type; {@link #put} and
     * {@link #putIfAbsent} mean the same on every type. A key that is already present: an LRU
     * cache replaces its entry (a pinned old entry stays
     * readable through its handles until released). A HyperClock cache usually keeps the present
     * entry (and refreshes its clock); but when its search for a slot does not meet that entry
     * first (racing inserts of one key, or a free slot ahead of it), a second copy is stored,
     * which lookups find first. {@link #erase} removes every copy. (RocksDB's caches behave the
     * same ways.) An LRU insert dropped for lack of room (it returns {@code true}) leaves a present
     * entry of the key as it was.
     *
     * <p>Without a strict limit a HyperClock cache does not evict for an entry whose charge is
     * larger than the current usage (there is not that much to evict, most likely because it is
     * pinned): usage then exceeds capacity until later inserts evict it back down, as in RocksDB.
     *
     * <p>Size limits, which refuse an insert with or without a strict limit (counted as
     * {@code memoryLimitRejects}): usage is bounded so that it cannot overflow a {@code long}, and
     * an insert that would take usage past that bound is refused, as is a charge above it; the
     * off-heap caches bound each shard's usage by its even share of 2^56 bytes
     * ({@code CacheOptions.MAX_USAGE}), so only pinned entries held over capacity, or a capacity
     * set beyond 2^56, come near it. An LRU shard all of whose records (up to
     * {@code 2^(31 - numShardBits)}) hold pinned entries refuses as well.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param value the value: all of the segment, at most {@code Integer.MAX_VALUE} bytes; copied,
     *     so the caller may reuse or free it when the call returns
     * @param charge what the entry counts against capacity, {@code >= 0}
     * @param placement how hard to try to keep the entry: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry with its kind
     * @return {@code true} if the entry was accepted, {@code false} if it was refused (see above)
     * @throws IllegalArgumentException if {@code charge} is negative or larger than the capacity,
     *     the value is longer than {@code Integer.MAX_VALUE} bytes, or {@code placement} is a
     *     kind the cache was not built with
     * @throws NullPointerException if {@code value} or {@code placement} is null
     */
    boolean insert(long key0, long key1, MemorySegment value, long charge, Placement placement);

    /**
     * As {@link #insert(long, long, MemorySegment, long, Placement)}, copying from an array.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param value the array holding the value; copied
     * @param offset index in {@code value} of the value's first byte
     * @param length the value's length in bytes, {@code >= 0}
     * @param charge what the entry counts against capacity, {@code >= 0}
     * @param placement how hard to try to keep the entry: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry with its kind
     * @return {@code true} if the entry was accepted, {@code false} if it was refused
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside
     *     {@code value}
     * @throws IllegalArgumentException if {@code charge} is negative or larger than the capacity,
     *     or {@code placement} is a kind the cache was not built with
     * @throws NullPointerException if {@code value} or {@code placement} is null
     */
    boolean insert(long key0, long key1, byte[] value, int offset, int length, long charge,
                   Placement placement);

    /**
     * Inserts a copy of {@code value} and returns a pinned handle to it, or {@link #MISS} if the
     * insert was refused (strict capacity limit, admission). In a HyperClock cache, when the key
     * is already present or the table has no free slot, the handle refers to a standalone entry
     * that lookups do not find and that is freed on its last release; an LRU cache replaces the
     * present entry.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param value the value: all of the segment, at most {@code Integer.MAX_VALUE} bytes; copied
     * @param charge what the entry counts against capacity, {@code >= 0}
     * @param placement how hard to try to keep the entry: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry with its kind
     * @return a handle that pins the new entry, to be released once; or {@link #MISS} if the
     *     insert was refused
     * @throws IllegalArgumentException as {@link #insert(long, long, MemorySegment, long,
     * Placement)}
     * @throws NullPointerException if {@code value} or {@code placement} is null
     */
    long insertPinned(long key0, long key1, MemorySegment value, long charge, Placement placement);

    /**
     * As {@link #insertPinned(long, long, MemorySegment, long, Placement)}, from an array.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param value the array holding the value; copied
     * @param offset index in {@code value} of the value's first byte
     * @param length the value's length in bytes, {@code >= 0}
     * @param charge what the entry counts against capacity, {@code >= 0}
     * @param placement how hard to try to keep the entry: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry with its kind
     * @return a handle that pins the new entry, to be released once; or {@link #MISS} if the
     *     insert was refused
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside
     *     {@code value}
     * @throws IllegalArgumentException as {@link #insert(long, long, MemorySegment, long,
     * Placement)}
     * @throws NullPointerException if {@code value} or {@code placement} is null
     */
    long insertPinned(long key0, long key1, byte[] value, int offset, int length, long charge,
                      Placement placement);

    /**
     * Stores a copy of {@code value} under the key, replacing the key's value: the same meaning on
     * every cache type, unlike {@link #insert} (RocksDB's type-specific one, which may keep the
     * present entry). For a plan cache, or any value that changes.
     *
     * <ul>
     *   <li>Replaces: a lookup of any thread that starts after {@code put} returns finds the new
     *       value, or nothing if it was refused or evicted since; never the old one, nor a second
     *       copy. A lookup that overlaps the call may find the old value, nothing, or the new
     *       value, each whole.</li>
     *   <li>Readers keep what they pinned: a handle taken on the old entry still reads its bytes,
     *       intact, until released; the last release frees it.</li>
     *   <li>Refused is still gone: if the new value is refused (strict capacity limit, size limit
     *       or admission, counted in {@link #stats()} as an insert's refusal), {@code put} returns
     *       {@code false} and the key is absent: no lookup ever finds the old value again. The
     *       same if the call fails after its argument checks (the admission policy throws, native
     *       memory runs out, the cache closes): the key is left absent. Bad arguments change
     *       nothing.</li>
     *   <li>Atomic per key with {@link #putIfAbsent} and the other {@code put}s: they run one
     *       after another on one key (the off-heap caches hold a lock picked by the key's hash,
     *       one of a fixed set, for the erase and insert they make), so racing {@code put}s leave
     *       one entry holding one of their values. A racing plain {@link #insert} or
     *       {@link #erase} of the key is not ordered with them and keeps its own meaning.</li>
     * </ul>
     * {@code true} means stored; without a strict limit, when pinned entries leave no room, the
     * new entry is stored over capacity and evicted at once (so a lookup may miss, as after any
     * eviction). {@code false} means refused, on every type alike: a strict limit that cannot be
     * met is a refusal here also in an LRU cache (whose plain insert without a handle answers
     * {@code true} for it, "inserted and evicted at once"). Called from inside an admission
     * policy it throws {@link IllegalStateException} (the insert that asked may hold another
     * key's lock).
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param value the value: all of the segment, at most {@code Integer.MAX_VALUE} bytes; copied
     * @param charge what the entry counts against capacity, {@code >= 0}
     * @param placement how hard to try to keep the entry: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry with its kind
     * @return {@code true} if the new value was accepted, {@code false} if it was refused (the
     *     key is absent then)
     * @throws IllegalArgumentException as {@link #insert(long, long, MemorySegment, long,
     *     Placement)}, with nothing changed
     * @throws NullPointerException if {@code value} or {@code placement} is null
     */
    boolean put(long key0, long key1, MemorySegment value, long charge, Placement placement);

    /**
     * As {@link #put(long, long, MemorySegment, long, Placement)}, copying from an array.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param value the array holding the value; copied
     * @param offset index in {@code value} of the value's first byte
     * @param length the value's length in bytes, {@code >= 0}
     * @param charge what the entry counts against capacity, {@code >= 0}
     * @param placement how hard to try to keep the entry: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry with its kind
     * @return {@code true} if the new value was accepted, {@code false} if it was refused (the
     *     key is absent then)
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside
     *     {@code value}
     * @throws IllegalArgumentException if {@code charge} is negative or larger than the capacity
     * @throws NullPointerException if {@code value} or {@code placement} is null
     */
    boolean put(long key0, long key1, byte[] value, int offset, int length, long charge,
                Placement placement);

    /**
     * Stores a copy of {@code value} only if the key is absent; returns {@code true} if and only
     * if this call stored it. The same meaning on every cache type, ordered per key with
     * {@link #put} and the other {@code putIfAbsent}s (see there): of racing calls on an absent
     * key exactly one returns {@code true}, and lookups then find its value.
     *
     * <p>{@code false} means one of two things, which {@link #stats()} tells apart: the key was
     * present (its entry is left as it was, and nothing is counted), or the key was absent and
     * the value was refused (strict capacity limit, size limit or admission: counted as an
     * insert's refusal, {@code memoryLimitRejects} or {@code admissionRejects}). Finding the key
     * present is not counted as a lookup; in an LRU cache it is a use of the entry, as a hit
     * is. {@code true} and a refusal mean what they mean for {@link #put}. Called from inside an
     * admission policy it throws {@link IllegalStateException}, as {@link #put} does.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param value the value: all of the segment, at most {@code Integer.MAX_VALUE} bytes; copied
     * @param charge what the entry counts against capacity, {@code >= 0}
     * @param placement how hard to try to keep the entry: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry with its kind
     * @return {@code true} if this call stored the value
     * @throws IllegalArgumentException as {@link #insert(long, long, MemorySegment, long,
     *     Placement)}, with nothing changed
     * @throws NullPointerException if {@code value} or {@code placement} is null
     */
    boolean putIfAbsent(long key0, long key1, MemorySegment value, long charge,
                        Placement placement);

    /**
     * As {@link #putIfAbsent(long, long, MemorySegment, long, Placement)}, from an array.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param value the array holding the value; copied
     * @param offset index in {@code value} of the value's first byte
     * @param length the value's length in bytes, {@code >= 0}
     * @param charge what the entry counts against capacity, {@code >= 0}
     * @param placement how hard to try to keep the entry: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry with its kind
     * @return {@code true} if this call stored the value
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside
     *     {@code value}
     * @throws IllegalArgumentException if {@code charge} is negative or larger than the capacity
     * @throws NullPointerException if {@code value} or {@code placement} is null
     */
    boolean putIfAbsent(long key0, long key1, byte[] value, int offset, int length, long charge,
                        Placement placement);

    /**
     * A read-only view of a pinned entry's value. Valid until the handle is released; reading it
     * after {@link #close()} throws {@link IllegalStateException}.
     *
     * @param handle a pinned handle of this cache
     * @return a read-only segment of {@link #valueSize(long)} bytes over the value in place
     */
    MemorySegment value(long handle);

    /**
     * The size in bytes of a pinned entry's value.
     *
     * @param handle a pinned handle of this cache
     * @return the value's length in bytes (not its charge)
     */
    long valueSize(long handle);

    /**
     * Copies a pinned entry's value into {@code dst} at {@code offset}; returns the byte count.
     *
     * @param handle a pinned handle of this cache
     * @param dst where to copy the value
     * @param offset index in {@code dst} of the value's first byte
     * @return the number of bytes copied: the value's size
     * @throws IllegalArgumentException if the value does not fit in {@code dst} at
     *     {@code offset}; nothing is copied then
     */
    int copyValue(long handle, byte[] dst, int offset);

    /**
     * Copies a pinned entry's value into {@code dst} at {@code offset}; returns the byte count.
     * Unlike {@link #value(long)} this never creates an object, whatever the JIT inlines.
     *
     * @param handle a pinned handle of this cache
     * @param dst where to copy the value
     * @param offset byte offset in {@code dst} of the value's first byte
     * @return the number of bytes copied: the value's size
     * @throws IllegalArgumentException if the value does not fit in {@code dst} at
     *     {@code offset}; nothing is copied then
     */
    long copyValue(long handle, MemorySegment dst, long offset);

    /**
     * What {@link #get} returns for a key that is not in the cache: -1, as 0 is the length of an
     * empty value; see "Not found" above for the other calls' spellings.
     */
    int ABSENT = -1;

    /**
     * Copies the value of a key into {@code dst} at {@code offset}, without keeping a handle:
     * "look up, copy, let go" in one call. The off-heap HyperClock caches take no reference: the
     * copy is validated against the entry's stamp afterwards and retried if the entry changed
     * meanwhile, and a hit writes nothing other threads read but the clock's use mark, at most
     * once per sweep of the entry, so readers of one hot entry on many cores do not contend.
     * Values longer than the caches' slabs take (16 KiB), and other caches, pin the entry while
     * copying.
     * Counts as a lookup in {@link #stats()} and for admission, as {@link #lookup} does.
     *
     * <p>A copy overtaken by the entry's eviction or replacement is retried; the bytes it wrote
     * stay in {@code dst} if the retry then finds nothing ({@link #ABSENT}) or a value too long.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param dst where to copy the value
     * @param offset index in {@code dst} of the value's first byte
     * @return the value's length, or {@link #ABSENT} if the key is not cached
     * @throws IllegalArgumentException if the value does not fit in {@code dst} after
     *     {@code offset} (nothing is copied then, but see above)
     * @throws IndexOutOfBoundsException if {@code offset} is not in {@code [0, dst.length]}
     */
    default int get(long key0, long key1, byte[] dst, int offset) {
        Args.requireNonNull("dst", dst);
        Args.requireOffset(offset, dst.length, "dst.length");
        long handle = lookup(key0, key1);
        if (handle == MISS) {
            return ABSENT;
        }
        try {
            Args.requireRoom(valueSize(handle), dst.length - offset, offset);
            return copyValue(handle, dst, offset);
        } finally {
            release(handle);
        }
    }

    /**
     * As {@link #get(long, long, byte[], int)}, into a segment.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param dst where to copy the value
     * @param offset byte offset in {@code dst} of the value's first byte
     * @return the value's length, or {@link #ABSENT} if the key is not cached
     * @throws IllegalArgumentException if the value does not fit in {@code dst} after
     *     {@code offset}
     * @throws IndexOutOfBoundsException if {@code offset} is not in {@code [0, dst.byteSize()]}
     */
    default long get(long key0, long key1, MemorySegment dst, long offset) {
        Args.requireNonNull("dst", dst);
        Args.requireOffset(offset, dst.byteSize(), "dst.byteSize()");
        long handle = lookup(key0, key1);
        if (handle == MISS) {
            return ABSENT;
        }
        try {
            Args.requireRoom(valueSize(handle), dst.byteSize() - offset, offset);
            return copyValue(handle, dst, offset);
        } finally {
            release(handle);
        }
    }

    /**
     * Reads a key's value in place, without copying it: {@code reader} gets a read-only view of
     * the value and its result is returned. Like {@link #get(long, long, byte[], int)}, it holds
     * no reference afterwards. On the HyperClock caches it takes none at all: the reader runs on
     * the value optimistically and its result counts only if the entry did not change meanwhile,
     * else it runs again (at most a few times, then under a reference). So the reader may run more
     * than once and on bytes that are not the value's, and must follow {@link ValueReader}'s rules.
     * The interface's default method pins the entry for the call.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param reader reads the value; see {@link ValueReader} for what it may do
     * @param ifAbsent what to return if the key is not cached
     * @return the reader's result on the whole value, or {@code ifAbsent}
     * @throws NullPointerException if {@code reader} is null
     */
    default long read(long key0, long key1, ValueReader reader, long ifAbsent) {
        Args.requireNonNull("reader", reader);
        long handle = lookup(key0, key1);
        if (handle == MISS) {
            return ifAbsent;
        }
        try {
            return reader.read(value(handle));
        } finally {
            release(handle);
        }
    }

    /**
     * Looks up a key and, on a miss, loads it once: returns a pinned handle to the key's entry,
     * as {@link #lookup} does on a hit. On a miss, if a load of the key is in flight (a call of
     * this method, of {@link #getOrLoad} or of {@link #getOrLoadAsync} on this cache, from any
     * thread), the call waits for it and shares its result; otherwise it runs {@code loader} on
     * the calling thread, stores the value (charge: its size) and returns it. So concurrent misses
     * of one key run one loader between them, whoever asked (as Caffeine's {@code get(key,
     * loader)}).
     *
     * <p>The store never replaces an entry of the key that appeared while the loader ran (a
     * {@code put}, an insert, another load): the handle then names that entry, and the loaded
     * value is dropped. If the cache refuses the value (a strict capacity limit, admission), it
     * still reaches the callers: the handle names an entry outside the cache, as
     * {@link #insertPinned}'s standalone entries (found by no lookup, charged to usage while
     * pinned, over capacity if need be, freed by its last release; counted as a standalone
     * insert), and a later call loads again. Each caller sharing a load gets its own reference,
     * to release once.
     *
     * <p>The loader follows "Callbacks" above: what it throws (any {@link Throwable}) reaches this
     * caller and every caller waiting for the same load, as the same object, and leaves nothing
     * in the cache; a load of the same key from inside the loader (any of the three methods)
     * throws {@link IllegalStateException}, since it would wait for itself, and other keys work.
     * Loads that wait for each other across threads (A's loader waits for B's, whose loader
     * waits for A's) are the caller's to avoid, as with any two locks. A caller waiting for a
     * load when the cache is closed gets {@link IllegalStateException} (within about 10 ms),
     * and never hangs on a closed cache; waiting is not interruptible (the interrupt is kept).
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param loader loads the value on a miss: see {@link ValueLoader}
     * @param placement the priority a loaded entry is stored with: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry
     * @return a handle that pins the key's entry, to be released once; never {@link #MISS}
     * @throws NullPointerException if {@code loader} or {@code placement} is null, or the loader
     *     returned null
     * @throws IllegalArgumentException if the loader returned a value larger than the capacity
     *     or than {@code Integer.MAX_VALUE} bytes
     * @throws IllegalStateException if the cache is closed (also while waiting), if the loader
     *     loads its own key, on a miss from inside an admission policy (it may be running in a
     *     load's store), or if the refused value cannot be held even outside the cache
     */
    long lookupOrLoad(long key0, long key1, ValueLoader loader, Placement placement);

    /**
     * Copies the value of a key into {@code dst} at {@code offset}, loading it once on a miss: a
     * hit is {@link #get(long, long, byte[], int)}; a miss is
     * {@link #lookupOrLoad}'s, then a copy of the entry it pinned, then its release. A value the
     * cache refused is copied all the same. A value too long for {@code dst} is still loaded and
     * stored, and then refused with {@link IllegalArgumentException}, nothing copied.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param dst where to copy the value
     * @param offset index in {@code dst} of the value's first byte
     * @param loader loads the value on a miss: see {@link ValueLoader}
     * @param placement the priority a loaded entry is stored with: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry
     * @return the value's length
     * @throws IndexOutOfBoundsException if {@code offset} is not in {@code [0, dst.length]}
     * @throws IllegalArgumentException if the value does not fit in {@code dst} after
     *     {@code offset}; and as {@link #lookupOrLoad}
     * @throws NullPointerException if {@code dst} is null; and as {@link #lookupOrLoad}
     * @throws IllegalStateException as {@link #lookupOrLoad}
     */
    int getOrLoad(long key0, long key1, byte[] dst, int offset, ValueLoader loader,
                  Placement placement);

    /**
     * As {@link #getOrLoad(long, long, byte[], int, ValueLoader, Placement)}, into a segment.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param dst where to copy the value
     * @param offset byte offset in {@code dst} of the value's first byte
     * @param loader loads the value on a miss: see {@link ValueLoader}
     * @param placement the priority a loaded entry is stored with: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry
     * @return the value's length
     * @throws IndexOutOfBoundsException if {@code offset} is not in {@code [0, dst.byteSize()]}
     * @throws IllegalArgumentException if the value does not fit in {@code dst} after
     *     {@code offset}; and as {@link #lookupOrLoad}
     * @throws NullPointerException if {@code dst} is null; and as {@link #lookupOrLoad}
     * @throws IllegalStateException as {@link #lookupOrLoad}
     */
    long getOrLoad(long key0, long key1, MemorySegment dst, long offset, ValueLoader loader,
                   Placement placement);

    /**
     * The asynchronous get-or-load, for engines with asynchronous I/O: a future of a copy of the
     * key's value. A hit returns a completed future. A miss shares the key's load in flight,
     * synchronous or asynchronous, or starts one: {@code loader.load} runs on the calling thread
     * and returns a future of the value; the value is stored as {@link #lookupOrLoad} stores it,
     * on the thread that completes the loader's future, and every caller's future completes there
     * with its own copy (a refused value too), or exceptionally with the load's failure, as is.
     *
     * <p>The future holds no pin: its copy is made while the completing thread holds the entry.
     * So a caller may drop or cancel its future at any time without leaking anything;
     * cancelling does not stop the load, which other callers may share, and stores the value.
     * A load whose future never completes keeps its callers' futures pending (and synchronous
     * callers of the key waiting, until the cache is closed).
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @param loader starts loading the value on a miss: see {@link AsyncValueLoader}
     * @param placement the priority a loaded entry is stored with: a {@link Priority}, or an
     *     {@link EntryKind} declared on the cache, which also tags the entry
     * @return a future of a new array holding the value
     * @throws NullPointerException if {@code loader} or {@code placement} is null
     * @throws IllegalStateException if the cache is closed, if called from inside the
     *     loader of the same key, or on a miss from inside an admission policy
     */
    CompletableFuture<byte[]> getOrLoadAsync(long key0, long key1, AsyncValueLoader loader,
                                             Placement placement);

    /**
     * The charge a pinned entry counts against capacity (excluding metadata).
     *
     * @param handle a pinned handle of this cache
     * @return the {@code charge} the entry was inserted with
     */
    long charge(long handle);

    /**
     * Takes one more reference on an already pinned entry; release each separately.
     *
     * @param handle a pinned handle of this cache; the same handle is released once more
     * @throws IllegalStateException if the handle is not pinned, stale, or its entry already holds
     *     the most references an entry may (see "Misuse" above)
     */
    void ref(long handle);

    /**
     * Releases a handle. Returns {@code true} if this freed the entry. As
     * {@link #release(long, boolean)} without erasing.
     *
     * @param handle a pinned handle of this cache; not to be used again
     * @return {@code true} if this was the entry's last reference and the entry was freed: it
     *     was no longer in the cache (erased, replaced, or standalone), or, in an LRU cache, the
     *     cache was over capacity
     */
    default boolean release(long handle) {
        return release(handle, false);
    }

    /**
     * Releases a handle; with {@code eraseIfLastRef}, also erases the entry when this was its last
     * reference. Returns {@code true} if this freed the entry. A refused release changes nothing;
     * what a second release cannot be told from is described under "Misuse" above.
     *
     * @param handle a pinned handle of this cache; not to be used again
     * @param eraseIfLastRef whether to erase the entry if this is its last reference
     * @return {@code true} if this freed the entry
     * @throws IllegalStateException if the handle is not pinned (double release), stale, or not
     *     this cache's (see "Misuse" above)
     */
    boolean release(long handle, boolean eraseIfLastRef);

    /**
     * Removes a key. A pinned entry stays readable through its handles and is freed when the last
     * one is released. Returns {@code true} if the key was found.
     *
     * @param key0 the key's first 64 bits (any value)
     * @param key1 the key's second 64 bits (any value)
     * @return {@code true} if the key was in the cache
     */
    boolean erase(long key0, long key1);

    /**
     * Erases every entry: {@link #eraseIf} with a predicate that picks every key, and the same
     * guarantees (pinned entries stay readable until their last release; entries inserted
     * during the call may stay).
     *
     * @throws IllegalStateException if the cache is closed (or closes during the call)
     */
    void clear();

    /**
     * Erases every entry whose key {@code predicate} picks, as {@link #erase} would, one by one;
     * returns how many it erased.
     *
     * <h4>Which entries</h4>
     * Every entry that is in the cache for the whole call and whose key the predicate picks is
     * erased; no other entry present for the whole call is. An entry inserted, replaced or
     * evicted during the call may be erased or not (a key picked for an entry that is then
     * replaced may take the replacement with it). Which keys the predicate is asked about, and
     * how often, is what {@link #forEachEntry} visits.
     *
     * <h4>Readers</h4>
     * A pinned entry that is erased stays readable through its handles, whole, and is freed on
     * its last release, as after {@link #erase}.
     *
     * <h4>The predicate</h4>
     * It is the caller's code (see {@link KeyPredicate} and "Callbacks" above). If it throws, the
     * call stops and the exception reaches the caller: what was erased stays erased (every key it
     * picked before it threw is erased), nothing is left pinned and nothing leaks. Calls back into
     * the cache follow an {@link EntryVisitor}'s rules: they work in a HyperClock cache, and throw
     * {@link IllegalStateException} in an LRU cache, whose predicate runs with a shard's lock
     * held.
     *
     * <h4>Costs</h4>
     * One pass over every slot or record, as {@link #forEachEntry}; the off-heap caches erase as
     * they go (HyperClock) or after each batch of 256 records, outside the lock (LRU), so the heap
     * used does not grow with the number of entries (LRU: 4 KiB of keys per call).
     *
     * @param predicate picks the keys to erase
     * @return the number of keys erased (a key a HyperClock cache stored twice, through racing
     *     plain inserts, counts once)
     * @throws NullPointerException if {@code predicate} is null
     * @throws IllegalStateException if the cache is closed (or closes during the call)
     */
    long eraseIf(KeyPredicate predicate);

    /**
     * The capacity in bytes, as last set (see {@link #setCapacity}).
     *
     * @return the capacity in bytes, as given at build or to {@link #setCapacity}, even beyond
     *     what usage may reach
     */
    long capacity();

    /**
     * Changes the capacity. A smaller capacity is reached by later inserts' evictions in a
     * HyperClock cache, and at once (as far as entries are unpinned) in an LRU cache.
     *
     * <p>Any positive value is accepted, and the work it takes does not grow with the value. A
     * capacity beyond what usage may reach acts as that bound (the off-heap caches: 2^56 bytes,
     * see {@link #insert}), so {@code Long.MAX_VALUE} means "unbounded".
     *
     * @param capacity the new capacity in bytes, {@code > 0}
     * @throws IllegalArgumentException if {@code capacity} is not positive
     */
    void setCapacity(long capacity);

    /**
     * Bytes charged to the cache, including metadata and pinned entries.
     *
     * @return the sum of the entries' charges and of the charged metadata, in bytes
     */
    long usage();

    /**
     * Bytes charged by entries that are currently pinned by a handle (computed by a scan).
     *
     * @return the charges of the pinned entries, in bytes, part of {@link #usage()}
     */
    long pinnedUsage();

    /**
     * Whether the strict capacity limit is on; see {@link #setStrictCapacityLimit}.
     *
     * @return {@code true} if inserts that cannot make room are refused
     */
    boolean strictCapacityLimit();

    /**
     * With a strict limit, an insert that cannot make room (because too much is pinned) is refused;
     * without it, the insert goes ahead and usage may exceed capacity until pins are released.
     *
     * <p>A strict HyperClock cache may also refuse with nothing pinned: one eviction run sweeps
     * the table at most 3 times, lowering each entry's countdown once per sweep, so a run that
     * meets only entries of countdown 3 (fresh HIGH entries, or entries hit since the last sweep)
     * frees nothing and gives up, as RocksDB's does. The next insert's run starts where it ended
     * and finds them lowered.
     *
     * @param strict {@code true} to refuse inserts that cannot make room, {@code false} to let
     *     usage exceed capacity instead
     */
    void setStrictCapacityLimit(boolean strict);

    /**
     * Entries in the table (excluding standalone ones).
     *
     * @return the number of entries in the tables; a HyperClock cache counts the slots taken, so
     *     also inserts in flight and erased entries that are still pinned
     */
    long entryCount();

    /**
     * The cache's counters, summed over its shards.
     *
     * @return a snapshot, approximate under load (see {@link CacheStats})
     */
    CacheStats stats();

    /**
     * Calls {@code visitor} for the entries of the cache while it stays in use (RocksDB's
     * {@code ApplyToAllEntries}), e.g. to gather statistics of what it holds. Runs in the calling
     * thread and returns when every shard has been walked.
     *
     * <h4>Which entries</h4>
     * Every entry that is in the cache (findable by {@link #lookup}) for the whole call is visited
     * exactly once, and no entry that is absent for the whole call is visited. An entry inserted,
     * erased, replaced or evicted during the call may be visited or not (at most once). Entries
     * that were erased but are still pinned by a handle, and the standalone entries of a
     * HyperClock cache (see {@link #insertPinned}), are not in the cache and are not visited.
     * The order is unspecified (shard by shard, in memory order).
     *
     * <h4>Pinning</h4>
     * While {@code visitor} runs, its entry cannot be freed: a HyperClock cache holds a reference
     * on it (taken only if the entry is visible, as a lookup takes one, and released through the
     * normal release path without counting as a use, so the visit does not change what eviction
     * does and an entry erased meanwhile is freed by that release); an LRU cache holds the
     * entry's shard lock. The value view and the key are valid only during the call.
     *
     * <h4>Calling back into the cache</h4>
     * The visitor should not call this cache's methods. What happens if it does anyway (see
     * "Callbacks" above): in a HyperClock cache the calls work, and an {@link #erase} of the entry
     * being visited makes it unfindable at once but frees it only after the visitor returns (its
     * value stays readable until then); in an LRU cache, which runs the visitor with a shard's
     * lock held, every call into the cache throws {@link IllegalStateException}, whichever shard
     * it would reach. {@link #close()} from the visitor is safe in both: the visit then stops
     * with {@link IllegalStateException} once the visitor returns. An exception the visitor
     * throws ends the visit and reaches the caller, with nothing left pinned.
     *
     * <h4>entriesPerLock</h4>
     * In an LRU cache, the most records (live entries or free ones) examined, and so the most
     * entries visited, per acquisition of a shard's lock: the lock is released and taken again
     * between batches, so writers wait at most one batch (RocksDB's
     * {@code average_entries_per_lock}). HyperClock caches take no lock for a visit: there it is
     * the number of entries visited between two checks that the cache has not been closed.
     *
     * <h4>Close</h4>
     * A visit racing {@link #close()} either completes, or stops with
     * {@link IllegalStateException} (from this method, or from a read of the value view inside the
     * visitor); it never reads freed memory, and close frees every entry exactly once whatever
     * the visit was doing.
     *
     * <h4>Costs</h4>
     * One pass over every slot or record of every shard. Nothing is allocated on the Java heap
     * per entry, except the value view when the visitor reads values (see
     * {@link EntryVisitor#readsValues()}).
     *
     * @param visitor called once per visited entry
     * @param entriesPerLock the batch size described above, {@code >= 1} (RocksDB's
     *     {@code cache_bench} uses 256 by default)
     * @throws NullPointerException if {@code visitor} is null
     * @throws IllegalArgumentException if {@code entriesPerLock < 1}
     * @throws IllegalStateException if the cache is closed (or closes during the visit)
     */
    void forEachEntry(EntryVisitor visitor, int entriesPerLock);

    /**
     * Frees every native byte the cache holds, and returns only once it has. Idempotent. A
     * thread still reading a value view, or doing I/O on a value's {@code ByteBuffer} view
     * (which holds the memory for the whole read or write), is waited for.
     *
     * @throws IllegalStateException if called from inside an admission policy, or if the
     *     closing thread is interrupted while it waits for I/O on a value view: the cache is then
     *     closed to every call but not yet freed, and the next {@code close()} frees it
     */
    @Override
    void close();
}
