package dev.clockwork.offheap.clock;

import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CloseGate;
import dev.clockwork.offheap.entry.ChargeWord;
import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.entry.RecordSlab;
import dev.clockwork.offheap.entry.ValueHeader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A HyperClock cache's entries outside its tables: what a pinned insert gets when its key is
 * already in the table, or the table has no slot to give. Such an entry is born with the
 * inserter's reference, is never found by lookups, and is freed by its last release.
 *
 * <p>Records are carved from a {@link RecordSlab} and named like table slots, by index and stamp
 * ({@link ClockHandle#standalone}), so a handle is checked without trusting it: its index is
 * bounds-checked against the slab, whose memory stays mapped until close, and its check against
 * the record's stamp. Reading a value through a standalone handle is the table's code path
 * ({@code ShardedCache.value}).
 *
 * <p>One lock guards every reference change. Standalone entries are rare (a duplicate pinned
 * insert, a full table), and the lock makes misuse exact: of two releases racing for one
 * reference, the second finds the count at zero or the stamp moved, under the same lock that made
 * it so; and the record leaves the live set (its stamp moves on) in the same step that decides
 * it is freed, so exactly one caller frees it. The charges are their shards' ({@link ClockShard}
 * counts them as standalone, and takes them back, when told here).
 *
 * <pre>
 *  record (64 bytes: a ValueHeader, the count of references before it, the shard after it):
 *   0  references (int; a free record's next free index)   8  h0   16  h1
 *  24  value address   32  charge word (ChargeWord: charge, kind)   40  value length
 *  44  stamp   48  shard (int)
 * </pre>
 */
public final class StandaloneEntries {
    /** Everything, unscoped: records are read and written under the lock, or at close. */
    private static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final long REFS_OFFSET = 0;
    private static final long SHARD_OFFSET = ValueHeader.END_OFFSET;
    /** Or'ed into record identities for stamp seeds: above every table slot's identity. */
    private static final long IDENTITY_BASE = 1L << 62;

    private final CacheContext context;
    private final ClockShard[] shards;
    /**
     * Made by the first standalone entry (most caches never have one, and a slab starts with a
     * 64 KiB chunk). Volatile for the unlocked {@link #recordAddress}: a handle naming a record
     * comes after the slab that made it.
     */
    private volatile RecordSlab slab;

    public StandaloneEntries(CacheContext context, ClockShard[] shards) {
        this.context = context;
        this.shards = shards;
    }

    /**
     * Stores an entry with one reference and returns its handle. {@code chargeWord} is its charge
     * and kind ({@link ChargeWord}), as its record keeps them. Its charge is already part of
     * the shard's usage (the table insert charged it); here it is counted as standalone too. If
     * no record can be had, the shard takes the charge back and the error is thrown on: nothing
     * is stored, and the caller frees the value.
     */
    public long add(long h0, long h1, long valueAddress, int length, long chargeWord,
                    int shard) {
        long charge = ChargeWord.charge(chargeWord);
        try {
            long handle = store(h0, h1, valueAddress, length, chargeWord, shard);
            shards[shard].standaloneAdded(charge);
            return handle;
        } catch (OutOfMemoryError | IllegalStateException e) {
            shards[shard].standaloneRefused(charge);
            throw e;
        }
    }

    private synchronized long store(long h0, long h1, long valueAddress, int length,
                                    long chargeWord, int shard) {
        RecordSlab slab = this.slab;
        if (slab == null) {
            slab = new RecordSlab(context.all(), RAW, context.stampSalt, IDENTITY_BASE,
                    RecordSlab.MAX_CHUNKS);
            this.slab = slab;
        }
        int index = slab.allocate();
        long record = slab.address(index);
        RAW.set(INT, record + REFS_OFFSET, 1);
        RAW.set(LONG, record + ValueHeader.KEY0_OFFSET, h0);
        RAW.set(LONG, record + ValueHeader.KEY1_OFFSET, h1);
        RAW.set(LONG, record + ValueHeader.VALUE_ADDRESS_OFFSET, valueAddress);
        RAW.set(LONG, record + ValueHeader.CHARGE_OFFSET, chargeWord);
        RAW.set(INT, record + ValueHeader.VALUE_LENGTH_OFFSET, length);
        RAW.set(INT, record + SHARD_OFFSET, shard);
        return ClockHandle.standalone(index, slab.stamp(record));
    }

    /**
     * The record a standalone handle's index names, for reading its value without the lock; the
     * caller checks the stamp ({@code ShardedCache}). Bounds-checked, so any handle reads only
     * slab memory.
     */
    public long recordAddress(long handle) {
        long index = ClockHandle.standaloneIndex(handle);
        RecordSlab slab = this.slab;
        long record = slab == null || index > Integer.MAX_VALUE || !EntryStamp.isWellFormed(handle)
                ? -1 : slab.addressOf((int) index);
        if (record < 0) {
            throw notOurs(handle);
        }
        return record;
    }

    /** Adds a reference to a pinned standalone entry. */
    public synchronized void ref(long handle) {
        long record = pinnedRecord(handle);
        int refs = RAW.get(INT, record + REFS_OFFSET);
        if (refs >= ClockMeta.MAX_REFS) {
            throw ClockHandle.tooManyRefs();
        }
        RAW.set(INT, record + REFS_OFFSET, refs + 1);
    }

    /**
     * Drops a reference; the last one frees the entry and gives its charge back to its shard.
     * The caller is inside the cache's {@link CloseGate}, so close waits for the free or, if it
     * has begun, the entry stays live and close frees it.
     *
     * @return whether the entry was freed
     */
    public boolean release(long handle) {
        long valueAddress;
        int length;
        long chargeWord;
        int shard;
        synchronized (this) {
            long record = pinnedRecord(handle);
            int refs = RAW.get(INT, record + REFS_OFFSET) - 1;
            RAW.set(INT, record + REFS_OFFSET, refs);
            if (refs != 0) {
                return false;
            }
            valueAddress = RAW.get(LONG, record + ValueHeader.VALUE_ADDRESS_OFFSET);
            length = RAW.get(INT, record + ValueHeader.VALUE_LENGTH_OFFSET);
            chargeWord = RAW.get(LONG, record + ValueHeader.CHARGE_OFFSET);
            shard = RAW.get(INT, record + SHARD_OFFSET);
            slab.free(slab.indexOf(record)); // the stamp moves on: ours alone to free from here
        }
        context.values.freeGuarded(valueAddress, length); // inside the close gate
        shards[shard].standaloneFreed(ChargeWord.charge(chargeWord));
        context.stats.kinds.freed(chargeWord);
        return true;
    }

    /**
     * The record of a handle that names a live entry; throws otherwise. A live standalone entry
     * is always referenced: its last release frees it.
     */
    private long pinnedRecord(long handle) {
        long record = recordAddress(handle);
        if (!EntryStamp.names(handle, slab.stamp(record))) {
            throw new IllegalStateException("standalone handle " + handle
                    + " is not pinned (released, and its entry freed) or not from this cache");
        }
        assert RAW.get(INT, record + REFS_OFFSET) > 0 : "a live standalone entry is referenced";
        return record;
    }

    /** Handle misuse is always an IllegalStateException (Cache, "Misuse"), whatever the bits. */
    private static IllegalStateException notOurs(long handle) {
        return new IllegalStateException("handle " + handle + " is not a handle of this cache"
                + " (made up, or from another cache)");
    }

    /**
     * Native bytes of the records (not the values): none until the first standalone entry, then
     * the slab's chunks, kept until close.
     */
    public synchronized long recordBytes() {
        return slab == null ? 0 : slab.nativeBytes();
    }

    /**
     * Frees the records; for close, when no call is inside. Live entries' values go with the
     * value slabs' chunks, which close frees last.
     */
    public synchronized void freeAll() {
        if (slab != null) {
            slab.freeAll();
        }
    }
}
