package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.ValueReader;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.context.CallbackGuard;
import dev.clockwork.offheap.entry.ChargeWord;
import dev.clockwork.offheap.entry.ValueHeader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The read path of {@link ShardedCache#get} and {@link ShardedCache#read}: a seqlock read of the
 * key's entry without a reference while the cache allows it, and under a reference (the pinned
 * fallback) when it does not, or when the entry changed under each of {@link #TRIES} reads.
 * Apart from {@link ShardedCache} because it is one protocol, with its own proof (below), that
 * both calls follow step for step; the steps are written once here, as static methods on
 * primitive values (no allocation, no interface call on the path), and each call's loop only
 * puts its own action (a copy, or the caller's reader) between them.
 *
 * <p>The protocol, for a record that holds the entry with stamp {@code s}: read the value address
 * ({@link #valueAddressAcquire}, acquire), then the length word, whose high half is the record's
 * stamp ({@link #lengthWord}); go on only if it is {@code s} ({@link #names}). Then read the
 * value, then the length word again after a load-load fence ({@link #unchanged}): unchanged, the
 * entry was not freed before the last byte was read. Whoever frees an entry moves the stamp first,
 * then clears the address and frees the value, and a reused record is stamped before its new
 * fields are written. The whole stamp is compared, not a handle's check bits: an entry of another
 * key that took the record meanwhile must not pass. The read cannot fault however stale the
 * address: value memory stays mapped until the cache closes ({@code ValueSlabs}), and a read
 * racing close throws through the scoped view.
 *
 * <p>Codes, each with one meaning: a {@code findUnpinned} token is {@code >= 0}, or
 * {@link #NOT_FOUND} or {@link #PIN_TO_READ}; a {@link #copy} answers a length or
 * {@link #CHANGED}. Distinct values, so that no code can pass for another.
 */
final class OptimisticRead {
    /** {@code findUnpinned}'s answer for a key that is not in the cache. */
    static final long NOT_FOUND = -1L;
    /** {@code findUnpinned}'s answer for a cache that reads values only under a reference. */
    static final long PIN_TO_READ = -2L;
    /** {@link #copy}'s answer when the entry changed under the copy: find it again. */
    static final long CHANGED = -3L;

    /**
     * Reads without a reference a {@code get} or {@code read} tries before it takes one. Each
     * failed try saw the entry freed or rewritten under it; a record fought over that hard is
     * read under a reference, which ends the fight.
     */
    private static final int TRIES = 4;

    /** {@code (MemorySegment, long offset)} access, exact so that a wrong type throws. */
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle()
            .withInvokeExactBehavior();

    private OptimisticRead() {
    }

    // ---------------------------------------------------------------- the protocol's steps

    /**
     * A record's charge, read before {@link #lengthWord}, with acquire: the charge word's low
     * bits, without the entry's kind ({@link ChargeWord}).
     */
    static long chargeAcquire(MemorySegment all, long record) {
        return ChargeWord.charge((long) LONG.getAcquire(all, record + ValueHeader.CHARGE_OFFSET));
    }

    /** A record's value address, read before {@link #lengthWord}, with acquire. */
    static long valueAddressAcquire(MemorySegment all, long record) {
        // The access itself, not through a shared helper: one inlining level fewer on the hit path.
        return (long) LONG.getAcquire(all, record + ValueHeader.VALUE_ADDRESS_OFFSET);
    }

    /** A record's length word: the value length in its low half, the stamp in its high half. */
    static long lengthWord(MemorySegment all, long record) {
        return all.get(ValueLayout.JAVA_LONG, ValueHeader.lengthWordOffset(record));
    }

    /** Whether a length word's stamp half is {@code stamp}: the fields read before are its. */
    static boolean names(long word, int stamp) {
        return (int) (word >>> 32) == stamp;
    }

    /**
     * Whether the record's length word is still {@code word} after the value was read: the
     * value's loads stay before the second read (the fence), so an unchanged word means that
     * the entry was not freed before the last of them.
     */
    static boolean unchanged(MemorySegment all, long record, long word) {
        VarHandle.loadLoadFence();
        // The read itself, not through lengthWord: one inlining level fewer on the hit path.
        return all.get(ValueLayout.JAVA_LONG, ValueHeader.lengthWordOffset(record)) == word;
    }

    // ---------------------------------------------------------------- get

    /**
     * {@code get} of a hashed key into {@code segment} or {@code array} (the other null) at
     * {@code offset}, with {@code room} bytes there.
     */
    static long get(ShardedCache cache, long h0, long h1, MemorySegment segment, byte[] array,
                    long offset, long room) {
        MemorySegment all = cache.context.all();
        for (int i = 0; i < TRIES; i++) {
            long token = cache.findUnpinned(h0, h1);
            if (token == PIN_TO_READ) {
                break;
            }
            if (token == NOT_FOUND) {
                cache.countLookup(h0, false);
                return Cache.ABSENT;
            }
            long length = copy(all, cache.unpinnedRecord(h0, token), cache.unpinnedStamp(token),
                    segment, array, offset, room);
            if (length != CHANGED) {
                cache.countLookup(h0, true);
                return length;
            }
        }
        return getPinned(cache, h0, h1, segment, array, offset);
    }

    /**
     * Copies the value of the entry with {@code stamp} in {@code record}, holding no reference,
     * as the protocol above says.
     *
     * @return the value's length or {@link #CHANGED}
     * @throws IllegalArgumentException if the value does not fit in {@code room}
     */
    private static long copy(MemorySegment all, long record, int stamp, MemorySegment segment,
                             byte[] array, long offset, long room) {
        long address = valueAddressAcquire(all, record);
        long word = lengthWord(all, record);
        if (!names(word, stamp)) {
            return CHANGED;
        }
        int length = (int) word;
        Args.requireRoom(length, room, offset);
        if (segment != null) {
            MemorySegment.copy(all, address, segment, offset, length);
        } else {
            MemorySegment.copy(all, ValueLayout.JAVA_BYTE, address, array, (int) offset, length);
        }
        return unchanged(all, record, word) ? length : CHANGED;
    }

    /** {@link #get} under a reference. */
    private static long getPinned(ShardedCache cache, long h0, long h1, MemorySegment segment,
                                  byte[] array, long offset) {
        long handle = cache.lookupCounted(h0, h1);
        if (handle == Cache.MISS) {
            return Cache.ABSENT;
        }
        try {
            return segment != null ? cache.copyValue(handle, segment, offset)
                    : cache.copyValue(handle, array, (int) offset);
        } finally {
            cache.release(handle);
        }
    }

    // ---------------------------------------------------------------- read

    /**
     * {@code read} of a hashed key: the protocol with the reader in place of the copy. What it
     * returned, or threw, counts only if the length word is unchanged after it; the view stays
     * inside mapped slab memory whatever happens meanwhile (the address and length were checked
     * to be one entry's), and the arena's scope still makes a read racing close throw.
     */
    static long read(ShardedCache cache, long h0, long h1, ValueReader reader, long ifAbsent) {
        MemorySegment all = cache.context.all();
        for (int i = 0; i < TRIES; i++) {
            long token = cache.findUnpinned(h0, h1);
            if (token == PIN_TO_READ) {
                break;
            }
            if (token == NOT_FOUND) {
                cache.countLookup(h0, false);
                return ifAbsent;
            }
            long record = cache.unpinnedRecord(h0, token);
            long address = valueAddressAcquire(all, record);
            long word = lengthWord(all, record);
            if (!names(word, cache.unpinnedStamp(token))) {
                continue;
            }
            long result = 0;
            Throwable thrown = null;
            try {
                result = reader.read(cache.context.allReadOnly().asSlice(address, (int) word));
            } catch (Throwable e) {
                // Maybe from reading bytes of another entry, whatever it is (an Error, a checked
                // exception thrown sneakily): judged below like a result.
                thrown = e;
            }
            if (unchanged(all, record, word)) {
                cache.countLookup(h0, true);
                if (thrown != null) {
                    throw CallbackGuard.rethrow(thrown);
                }
                return result;
            }
        }
        return readPinned(cache, h0, h1, reader, ifAbsent);
    }

    /**
     * {@link #read} under a reference: for caches that read only so, and for an entry fought
     * over too hard to read without one. Apart so that {@link #read} stays small enough to
     * inline whichever way a cache reads.
     */
    private static long readPinned(ShardedCache cache, long h0, long h1, ValueReader reader,
                                   long ifAbsent) {
        long handle = cache.lookupCounted(h0, h1);
        if (handle == Cache.MISS) {
            return ifAbsent;
        }
        try {
            return reader.read(cache.value(handle));
        } finally {
            cache.release(handle);
        }
    }
}
