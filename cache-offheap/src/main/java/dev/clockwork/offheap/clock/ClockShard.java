package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ClockMeta.ACQUIRE_ONE;
import static dev.clockwork.offheap.clock.ClockMeta.COUNTER_TOP_BITS;
import static dev.clockwork.offheap.clock.ClockMeta.MAX_COUNTDOWN;
import static dev.clockwork.offheap.clock.ClockMeta.MAX_REFS;
import static dev.clockwork.offheap.clock.ClockMeta.OCCUPIED;
import static dev.clockwork.offheap.clock.ClockMeta.OVERFLOW_THRESHOLD;
import static dev.clockwork.offheap.clock.ClockMeta.RELEASE_ONE;
import static dev.clockwork.offheap.clock.ClockMeta.UNDER_CONSTRUCTION;
import static dev.clockwork.offheap.clock.ClockMeta.acquireCount;
import static dev.clockwork.offheap.clock.ClockMeta.isEmpty;
import static dev.clockwork.offheap.clock.ClockMeta.isInvisible;
import static dev.clockwork.offheap.clock.ClockMeta.isShareable;
import static dev.clockwork.offheap.clock.ClockMeta.isVisible;
import static dev.clockwork.offheap.clock.ClockMeta.refCount;
import static dev.clockwork.offheap.clock.ClockMeta.releaseCount;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_BYTES;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;
import dev.clockwork.offheap.CacheOptions;
import dev.clockwork.offheap.ShardedCache;
import dev.clockwork.offheap.memory.CacheMemory;
import dev.clockwork.offheap.memory.CloseGate;
import dev.clockwork.offheap.memory.EntryStamp;
import dev.clockwork.offheap.memory.NativeAllocator;

/**
 * One shard of a HyperClock cache: the per-entry clock protocol (see {@link ClockMeta}) and the
 * shard's capacity accounting, shared by every table layout. A subclass supplies the index: how a
 * key finds its slot, how an insert claims one, and the eviction sweep's order.
 *
 * <p>Slots are addressed by their byte offset in {@link #slots}. All accesses go through segments
 * scoped to the cache's shared arena, so a call racing with {@code close()} fails with an
 * exception instead of touching freed memory.
 */
public abstract class ClockShard extends PaddedCounters {
    /** {@code (MemorySegment, long offset)} handles, exact so that a wrong type throws, not boxes. */
    public static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();

    /** Results of {@link #insert} that are not a slot offset. */
    static final long INSERT_DROPPED = -1;   // not stored, nothing charged: free the value
    public static final long INSERT_REFUSED = -2;   // refused by a limit, nothing charged: free the value
    public static final long INSERT_STANDALONE = -3; // usage charged: make a standalone entry

    /*
     * What lookup, doInsert and insert return for an entry they hold a reference on: the slot and
     * the entry's stamp, found(slot, stamp) = (stamp >>> 1) << 32 | slot index, never negative
     * (a live stamp's low bit is 1 and is left out). The stamp is taken with the reference, so a
     * handle made from it names that entry even if a misused release takes the reference away at
     * once and the slot is reused: never the entry that took the slot after it.
     */

    /** Returned by {@link #lookup} when it finds nothing. */
    public static final long NOT_FOUND = -1;
    /** Returned by {@link #doInsert} when it stored nothing. */
    static final long NO_SLOT = -1;

    static long found(long slot, int stamp) {
        return ((long) (stamp >>> 1) << 32) | (slot >>> SlotLayout.SLOT_SHIFT);
    }

    public static long foundSlot(long found) {
        return (found & 0xFFFF_FFFFL) << SlotLayout.SLOT_SHIFT;
    }

    public static int foundStamp(long found) {
        return ((int) (found >>> 32) << 1) | 1;
    }

    /** Most slots a table may have, whatever the shard count: a handle's slot index is 32 bits. */
    static final long MAX_SLOTS = 1L << 32;

    /**
     * Most slots a table may have when there are {@code 2^shardBits} shards: a handle names a
     * slot and its shard in {@link CacheOptions#MAX_LOCATION_BITS} bits, the slot in at most 32.
     */
    public static long maxSlotsPerShard(int shardBits) {
        return Math.min(MAX_SLOTS, CacheOptions.maxLocationsPerShard(shardBits));
    }

    /** Thread-confined scratch for one eviction run, so eviction allocates nothing. */
    static final class EvictionData {
        long freedCharge;
        long freedCount;
        long seenPinned;
        /** Slots taken for eviction whose freeing is deferred (Auto: until a chain is unlocked). */
        long[] owned = new long[16];
        int ownedCount;

        EvictionData reset() {
            freedCharge = 0;
            freedCount = 0;
            seenPinned = 0;
            ownedCount = 0;
            return this;
        }

        void addOwned(long slot) {
            if (ownedCount == owned.length) {
                owned = java.util.Arrays.copyOf(owned, ownedCount * 2); // grows once, then reused
            }
            owned[ownedCount++] = slot;
        }
    }

    private static final ThreadLocal<EvictionData> EVICTION_DATA =
            ThreadLocal.withInitial(EvictionData::new);

    public final MemorySegment slots;
    /** Slots the table's memory can hold; handles are bounds-checked against it. */
    public final long slotCount;
    final int shardIndex;
    public final CacheMemory memory;
    public final long rawAddress;
    private final long metadataChargePerSlot;

    private volatile long capacity;
    /**
     * Most the shard's usage may reach: its share of {@link CacheOptions#MAX_USAGE}. An insert
     * that would pass it is refused (see {@link #insert}); capacity never exceeds it.
     */
    private final long usageLimit;
    private volatile boolean strict;
    private final int evictionEffortCap;
    /** Charge of this shard's standalone entries (part of {@link #usage()}); kept by the cache. */
    public final AtomicLong standaloneUsage = new AtomicLong();

    /**
     * @param rawAddress zeroed memory for {@code slotCount} slots, 64-byte aligned, owned by the
     *     table from now on (see {@link #releaseTableMemory})
     * @param capacity at most {@code usageLimit}
     * @param usageLimit the shard's share of {@link CacheOptions#MAX_USAGE}
     */
    ClockShard(long rawAddress, long slotCount, int shardIndex, long capacity, long usageLimit,
               boolean strict, int evictionEffortCap, boolean chargeMetadata,
               CacheMemory memory) {
        this.rawAddress = rawAddress;
        this.slotCount = slotCount;
        this.shardIndex = shardIndex;
        this.memory = memory;
        this.slots = MemorySegment.ofAddress(rawAddress).reinterpret(slotCount * SLOT_BYTES,
                memory.arena(), null);
        this.capacity = capacity;
        this.usageLimit = usageLimit;
        this.strict = strict;
        this.evictionEffortCap = evictionEffortCap;
        this.metadataChargePerSlot = chargeMetadata ? SLOT_BYTES : 0;
    }

    /** Adds the metadata charge of {@code count} slots put to use (nothing if not charged). */
    final void chargeSlots(long count) {
        if (metadataChargePerSlot != 0) {
            addUsage(count * metadataChargePerSlot);
        }
    }

    // ---------------------------------------------------------------- meta word access

    final long getAndAddMeta(long slot, long delta) {
        return (long) LONG.getAndAdd(slots, slot, delta);
    }

    /** An undo or a release: only needs to order this thread's earlier reads before it. */
    public final long getAndAddMetaRelease(long slot, long delta) {
        return (long) LONG.getAndAddRelease(slots, slot, delta);
    }

    public final long metaOpaque(long slot) {
        return (long) LONG.getOpaque(slots, slot);
    }

    /** Acquire: the slot's fields (stamp included) read after it are at least as new as it. */
    final long metaAcquire(long slot) {
        return (long) LONG.getAcquire(slots, slot);
    }

    public final long compareAndExchangeMeta(long slot, long expected, long update) {
        return (long) LONG.compareAndExchange(slots, slot, expected, update);
    }

    /** Publishes a slot's fields, written plainly before, with its new meta word. */
    final void publishMeta(long slot, long meta) {
        LONG.setRelease(slots, slot, meta);
    }

    public final long key0(long slot) {
        return (long) LONG.get(slots, SlotLayout.key0Offset(slot));
    }

    public final long key1(long slot) {
        return (long) LONG.get(slots, SlotLayout.key1Offset(slot));
    }

    public final long charge(long slot) {
        return (long) LONG.get(slots, SlotLayout.chargeOffset(slot));
    }

    public final long valueAddress(long slot) {
        return (long) LONG.get(slots, SlotLayout.valueAddressOffset(slot));
    }

    public final int valueLength(long slot) {
        return (int) INT.get(slots, SlotLayout.valueLengthOffset(slot));
    }

    /**
     * The slot's stamp ({@link EntryStamp}). Plain: it is written only by the slot's owner while
     * the slot is under construction and published by the meta word's release store, so a reader
     * holding a reference sees it stable. Readers without one (a release checking its handle, the
     * erasing release's check before its CAS) read it after an acquire of the meta word, which
     * makes it the stamp of that word's entry or a later one (see {@link #release}).
     */
    public final int stamp(long slot) {
        return (int) INT.get(slots, SlotLayout.stampOffset(slot));
    }

    /** A number no other slot of the cache has, for seeding its stamps. */
    private long identity(long slot) {
        return ((long) shardIndex << EntryStamp.LOCATION_BITS) | (slot >>> SlotLayout.SLOT_SHIFT);
    }

    /**
     * Fills a claimed (under construction) slot with an entry and publishes it with {@code meta}
     * (state and counters; the tag is added here) in one release store; returns
     * {@link #found} of the slot and the entry's stamp.
     *
     * <p>The stamp moves first: a value read through a stale handle reads the value address,
     * then the stamp (ShardedCache), so it must not see this entry's address beside the old
     * entry's stamp. Handles of the new entry are made only once it is published. The value
     * passes to the slot with the write of its address (see {@link SlotLayout}), after its
     * length, which close needs to free it. Inserts run inside the cache's {@link CloseGate}, so
     * close cannot stop this half way.
     */
    final long fillAndPublish(long slot, long h0, long h1, long valueAddress, int valueLength,
                              long charge, long meta) {
        // Odd from now on: handles of this entry carry this stamp, its word the stamp's tag.
        int stamp = EntryStamp.live(stamp(slot), memory.stampSalt, identity(slot));
        INT.set(slots, SlotLayout.stampOffset(slot), stamp);
        VarHandle.storeStoreFence(); // the stamp is seen before any field below
        INT.set(slots, SlotLayout.valueLengthOffset(slot), valueLength);
        LONG.set(slots, SlotLayout.valueAddressOffset(slot), valueAddress);
        LONG.set(slots, SlotLayout.key0Offset(slot), h0);
        LONG.set(slots, SlotLayout.key1Offset(slot), h1);
        LONG.set(slots, SlotLayout.chargeOffset(slot), charge);
        publishMeta(slot, meta | ClockMeta.tagOf(stamp));
        return found(slot, stamp);
    }

    // ---------------------------------------------------------------- per-entry protocol

    /**
     * Gives back {@code count} references this thread took on the entry with {@code stamp}, each
     * changing the word by {@code perReference}: {@code -ACQUIRE_ONE} to take it back as if never
     * taken, or {@code RELEASE_ONE} to release it as a use.
     *
     * <p>Not a plain add. A reference keeps its entry in the slot only while nobody releases it
     * for us, and a second release through another caller's handle can (a shared count cannot
     * tell, see {@link #release}): the entry may then be freed and the slot hold a newcomer. An
     * add would land on the newcomer's word and could take its count below zero, where it reads
     * as 2^26 references and the entry is never freed. So the change is a CAS from a word that
     * still belongs to our entry (same stamp, shareable), and gives back no more references than
     * the entry still holds: what was taken from us is not ours to give back, and what was not
     * must be, or the entry stays pinned for good.
     *
     * @return the word before the change, or {@link ClockMeta#EMPTY} (never a shareable word) if
     *     nothing was given back
     */
    private long giveBack(long slot, int stamp, long count, long perReference) {
        if (stamp == 0) {
            return ClockMeta.EMPTY; // the entry went before we could look (see stampOf)
        }
        long word = metaAcquire(slot);
        for (;;) {
            long held = Math.min(count, refCount(word));
            if (!isShareable(word) || held == 0 || stamp(slot) != stamp) {
                return ClockMeta.EMPTY;
            }
            // Volatile: our reads of the entry happen before anyone who sees the count drop.
            long witness = compareAndExchangeMeta(slot, word, word + held * perReference);
            if (witness == word) {
                return word;
            }
            word = witness;
        }
    }

    /**
     * The stamp of the entry a reference went to, given the word the reference's add returned:
     * the slot's stamp if its tag is that word's, else 0 (never a live stamp). The reference
     * keeps its entry in the slot unless a misused release took it; then the slot may already
     * hold another entry, whose stamp must not be taken for ours.
     */
    final int stampOf(long slot, long word) {
        int stamp = stamp(slot);
        // Live too: freeing clears only the stamp's low bit, which the tag leaves out.
        return EntryStamp.isLive(stamp) && ClockMeta.tagOf(stamp) == (word & ClockMeta.TAG_MASK)
                ? stamp : 0;
    }

    /** Takes back references taken only to look (see {@link #giveBack}): no clock boost. */
    final void undo(long slot, int stamp, long count) {
        giveBack(slot, stamp, count, -ACQUIRE_ONE);
    }

    /**
     * Keeps a much-referenced entry's counters from overflowing: once the release counter passes
     * half its range, clear the top bit of both counters. That preserves the reference count
     * (the acquire counter, at least as large and below 2^26, has its top bit set too) and the
     * logical countdown (all values above {@link ClockMeta#MAX_COUNTDOWN} read the same). The
     * bits are cleared by a CAS from a word that is itself past the threshold, whichever entry it
     * belongs to by then, so a late or duplicate correction does no harm.
     */
    final void correctNearOverflow(long oldMeta, long slot) {
        if (releaseCount(oldMeta) <= OVERFLOW_THRESHOLD) {
            return;
        }
        long word = metaOpaque(slot);
        while (isShareable(word) && releaseCount(word) > OVERFLOW_THRESHOLD) {
            long witness = compareAndExchangeMeta(slot, word, word & ~COUNTER_TOP_BITS);
            if (witness == word) {
                return;
            }
            word = witness;
        }
    }

    /**
     * Takes one more reference on the entry a handle with {@code stamp} names, which the caller
     * should hold already. The reference is taken first, as a lookup takes it: on a shareable
     * word it pins whatever entry the slot holds, so that entry's stamp is stable while the
     * handle is checked against it. A refused call gives the reference back, which is safe for
     * the same reason: the entry it pinned is still the one in the slot.
     *
     * @throws IllegalStateException if the handle's entry is not pinned (released already), not
     *     in the slot any more (stale), or already holds {@link ClockMeta#MAX_REFS} references
     */
    public final void ref(long slot, int stamp) {
        long old = getAndAddMeta(slot, ACQUIRE_ONE);
        if (!isShareable(old)) {
            // Empty or under construction: no entry to pin; the owner overwrites our increment.
            throw notPinned();
        }
        int pinned = stampOf(slot, old); // the entry our reference went to
        if (pinned == stamp && refCount(old) != 0 && refCount(old) < MAX_REFS) {
            return;
        }
        releaseOwn(slot, pinned);
        throw pinned == stamp && refCount(old) >= MAX_REFS ? tooManyRefs() : notPinned();
    }

    /**
     * Gives back a reference this thread took on the entry with {@code stamp} as if it had never
     * been taken (see {@link #giveBack}); if that was the last reference of an erased entry,
     * frees it, as its last release would have.
     */
    public final void releaseOwn(long slot, int stamp) {
        long old = giveBack(slot, stamp, 1, -ACQUIRE_ONE);
        if (isInvisible(old) && refCount(old) == 1) {
            freeIfUnreferenced(slot, old, old - ACQUIRE_ONE, stamp);
        }
    }

    /**
     * Releases one reference of the entry a handle with {@code stamp} names. A "useful" release
     * advances the release counter, which raises the entry's clock; a non-useful one takes back
     * the acquire as if the lookup never happened. Frees the entry if this was its last reference
     * and it was erased, or if asked to.
     *
     * <p>A refused release changes nothing: the word is changed by a CAS from the very word whose
     * state, reference count and stamp were checked. The stamp is read after an acquire of that
     * word, so it is the stamp of the word's entry or of a later one: if it is the handle's, the
     * word is the handle's entry's, and a CAS from it cannot land on another entry unless that
     * entry was freed, and another published with a word equal in every bit (the stamp's tag
     * included: one chance in 512), between the check and the CAS. For a caller holding its
     * reference that cannot happen (the reference keeps the entry); for a stale or second
     * release it is the one window left, documented on {@link dev.clockwork.cache.Cache#release}.
     * A second release while others also hold the entry cannot be told from theirs: the count is
     * shared.
     *
     * @param stamp the stamp of the entry the caller's handle names: only that entry is released
     * @return whether this call freed the entry
     * @throws IllegalStateException if the entry is not pinned or not in the slot any more
     */
    public final boolean release(long slot, int stamp, boolean useful, boolean eraseIfLastRef) {
        long delta = useful ? RELEASE_ONE : -ACQUIRE_ONE;
        long old = metaAcquire(slot);
        for (;;) {
            if (!isShareable(old) || refCount(old) == 0) {
                throw notPinned();
            }
            if (stamp(slot) != stamp) {
                throw stale();
            }
            // Volatile: our reads of the value happen before anyone who sees the count drop
            // frees it (the freeing CAS pairs with this), and a failed CAS's witness is acquired.
            long witness = compareAndExchangeMeta(slot, old, old + delta);
            if (witness == old) {
                break;
            }
            old = witness;
        }
        if (!eraseIfLastRef && !isInvisible(old)) {
            correctNearOverflow(old, slot);
            return false;
        }
        return freeIfUnreferenced(slot, old, old + delta, stamp);
    }

    // Exceptions are built out of line, to keep the hot methods small enough to inline.

    private static IllegalStateException notPinned() {
        return new IllegalStateException("handle is not pinned (released already, or stale)");
    }

    private static IllegalStateException stale() {
        return new IllegalStateException("handle is stale: its entry was freed");
    }

    static IllegalStateException tooManyRefs() {
        return new IllegalStateException("entry already holds " + MAX_REFS + " references");
    }

    /**
     * The second half of a release that may free the entry: frees it if no reference is left,
     * unless someone else took it over first. {@code old} is the word our release changed and
     * {@code current} the word it left.
     *
     * <p>RocksDB's FIXME in {@code FixedHyperClockTable::Release}: between our release and our
     * CAS another thread may free the entry and an unreferenced newcomer take the slot; a CAS
     * retried with the word it finds would then take and free the newcomer. Before every CAS we
     * check that the slot still holds our handle's stamp and stand down if not. The check
     * is a hint, not a lock: if a newcomer whose word equals ours exactly is published between
     * that read and the CAS, the CAS still takes it, and it is freed as RocksDB frees it (a lost
     * entry, never a wrong one). Putting such a newcomer back is not an option: an erase meeting
     * the slot "under construction" meanwhile would have passed it by, and the newcomer would
     * survive an erase that came after its insert.
     */
    public final boolean freeIfUnreferenced(long slot, long old, long current, int stamp) {
        for (;;) {
            if (refCount(current) != 0) {
                correctNearOverflow(old, slot);
                return false;
            }
            if (!isShareable(current)) {
                return false; // someone else took ownership
            }
            if (stamp(slot) != stamp) {
                return false; // our entry is gone; the slot holds a newcomer (the FIXME above)
            }
            long witness = compareAndExchangeMeta(slot, current, UNDER_CONSTRUCTION);
            if (witness == current) {
                break;
            }
            current = witness;
        }
        // Ours now. If close has begun, the gate refuses us and close frees the value
        // (freeAll: its address is still in the slot).
        int stripe = memory.gate.enter();
        try {
            long charge = charge(slot);
            removeOwned(slot);
            reclaim(charge);
        } finally {
            memory.gate.exit(stripe);
        }
        return true;
    }

    /**
     * A lookup for a caller who keeps the reference: {@link #lookup}, refused past
     * {@link ClockMeta#MAX_REFS} references. The count is read again after the reference is
     * taken (the line is in this core's cache by then), so lookups racing at the limit may each
     * pass it by one before they see it; the counters have room for that (see ClockMeta).
     *
     * @throws IllegalStateException if the entry already holds the most references it may (the
     *     reference is given back first)
     */
    public final long lookupToKeep(long h0, long h1) {
        long found = lookup(h0, h1);
        if (found != NOT_FOUND && refCount(metaOpaque(foundSlot(found))) > MAX_REFS) {
            releaseOwn(foundSlot(found), foundStamp(found));
            throw tooManyRefs();
        }
        return found;
    }

    /**
     * Whether the slot still holds the entry with {@code stamp}, checked after reads of its
     * fields: they were that entry's if so (its stamp moves before anything of it is freed).
     */
    public final boolean stillHolds(long slot, int stamp) {
        VarHandle.loadLoadFence(); // the field reads before stay before this read
        return stamp(slot) == stamp;
    }

    /**
     * Takes a reference if the slot holds a visible entry of this key, and returns that entry's
     * stamp; undoes it and returns 0 otherwise. The stamp is the one whose tag is the word's the
     * reference went to ({@link #stampOf}), so that an entry that took the slot after ours (ours
     * freed, our reference taken from us: see {@link #giveBack}) is not mistaken for it.
     */
    final int tryReference(long slot, long h0, long h1) {
        long old = getAndAddMeta(slot, ACQUIRE_ONE);
        if (isVisible(old)) {
            if (key0(slot) == h0 && key1(slot) == h1) {
                return stampOf(slot, old); // 0 if ours went meanwhile: nothing left to undo
            }
            undo(slot, stampOf(slot, old), 1);
        } else if (isInvisible(old)) {
            undo(slot, stampOf(slot, old), 1);
        }
        // Empty or under construction: the owner overwrites the word, stray increment and all.
        return 0;
    }

    /**
     * Takes a reference on the slot's entry if it is visible, the way a lookup does but without
     * comparing a key: for {@code forEachEntry}. Returns the entry's stamp (stable while the
     * reference is held; pass it to {@link #release} with {@code useful = false}), or 0 (never a
     * live stamp) if the slot holds no visible entry, in which case no reference is held.
     *
     * <p>A plain look comes first, as on a lookup's further probes: a scan meets many empty slots
     * and slots being written, and an atomic add on each would take every line of the table from
     * the cores using it. The reference, a volatile add, is what decides: it acquires the
     * entry's fields published with its meta word, and the word it returns says whether the
     * entry was still visible. On an empty or under-construction slot the add is left for the
     * owner to overwrite, as lookups leave it.
     *
     * <p>On an entry erased meanwhile (invisible) the reference is given back by
     * {@link #releaseOwn}, not a bare undo as a lookup's: if the other holders let go meanwhile,
     * ours is the last reference and it frees the entry, instead of leaving it unreferenced and
     * charged until an eviction sweep finds it.
     */
    public final int referenceIfVisible(long slot) {
        if (!isVisible(metaOpaque(slot))) {
            return 0;
        }
        long old = getAndAddMeta(slot, ACQUIRE_ONE);
        if (isVisible(old)) {
            return stampOf(slot, old); // 0 if our reference went with an entry freed meanwhile
        }
        if (isInvisible(old)) {
            releaseOwn(slot, stampOf(slot, old));
        }
        return 0;
    }

    /**
     * Claims an empty slot by setting its occupied bit (its state becomes "under construction",
     * owned by us). Occupied slots are passed over after a plain look, without an atomic write:
     * in a loaded table most probes meet one.
     */
    final boolean tryClaim(long slot) {
        // Opaque is enough: the CAS that claims the slot is volatile and re-checks the word.
        long meta = metaOpaque(slot);
        while (isEmpty(meta)) {
            long witness = compareAndExchangeMeta(slot, meta, meta | OCCUPIED);
            if (witness == meta) {
                return true;
            }
            meta = witness; // counters moved (a stray lookup) or someone claimed it
        }
        return false;
    }

    /**
     * Checks a visible slot for the key being inserted, holding {@code countdown} references
     * while reading it. On a match the references are released usefully, which boosts the
     * existing entry's clock as the duplicate insert's priority asks.
     */
    final boolean sameKeyBoosting(long slot, long h0, long h1, long countdown) {
        long old = getAndAddMeta(slot, countdown * ACQUIRE_ONE);
        if (!isShareable(old)) {
            return false; // empty or under construction: the owner overwrites our increment
        }
        int stamp = stampOf(slot, old); // the entry our references went to
        if (isVisible(old) && key0(slot) == h0 && key1(slot) == h1) {
            long before = giveBack(slot, stamp, countdown, RELEASE_ONE);
            correctNearOverflow(before, slot);
            return true;
        }
        undo(slot, stamp, countdown);
        return false;
    }

    /**
     * Erases the slot's entry if it is visible and of this key, without taking a reference, and
     * returns whether it did: made invisible if referenced (its last release frees it), else
     * taken and freed at once.
     *
     * <p>RocksDB's erase references each entry it checks, as a lookup does. Here the word is
     * read (acquire), the stamp and key after it, and the change is a CAS from that word, whose
     * tag makes it this entry's: so an erase holds nothing that a misused release could take from
     * it (a second release of a handle whose entry only an erase held would otherwise be
     * accepted, see {@link #release}), and a slot reused meanwhile makes the CAS fail.
     */
    final boolean eraseIfKey(long slot, long h0, long h1) {
        long word = metaAcquire(slot);
        for (;;) {
            if (!isVisible(word) || stampOf(slot, word) == 0
                    || key0(slot) != h0 || key1(slot) != h1) {
                return false;
            }
            if (refCount(word) != 0) {
                // Held: make it invisible; the last release frees it.
                long witness = compareAndExchangeMeta(slot, word, word & ~ClockMeta.VISIBLE);
                if (witness == word) {
                    return true;
                }
                word = witness;
                continue;
            }
            long witness = compareAndExchangeMeta(slot, word, ClockMeta.UNDER_CONSTRUCTION);
            if (witness == word) {
                long charge = charge(slot);
                removeOwned(slot);
                reclaim(charge);
                return true;
            }
            word = witness;
        }
    }

    /**
     * Frees an owned (under construction) entry's value and marks its slot empty. The slot gives
     * the value up first: its stamp moves on (even: no handle names the slot any more), then its
     * value address is zeroed (non-zero exactly while it owns a value, see {@link #freeAll}), and
     * only then is the value freed. Callers are inside the cache's {@link CloseGate}, so close
     * cannot stop this half way.
     */
    final void freeValueAndMarkEmpty(long slot) {
        long address = valueAddress(slot);
        int length = valueLength(slot);
        INT.set(slots, SlotLayout.stampOffset(slot), EntryStamp.dead(stamp(slot)));
        // A value read through a handle reads the stamp, the address (and the bytes), then the
        // stamp again, and throws if it moved (ShardedCache#value): so the stamp's store must be
        // seen before the address is cleared and before free writes into the value's memory.
        VarHandle.storeStoreFence();
        LONG.set(slots, SlotLayout.valueAddressOffset(slot), 0L);
        NativeAllocator.free(address, length); // unscoped: cannot fail half way
        publishMeta(slot, ClockMeta.EMPTY);
    }

    final void reclaim(long charge) {
        addOccupancy(-1);
        addUsage(-charge);
    }

    /**
     * One clock step on a slot: skip it if it is not shareable or is referenced; otherwise either
     * decrement its countdown (a visible entry with time left) or take ownership to evict it.
     *
     * @return whether the caller now owns the slot (under construction) and must evict it
     */
    final boolean clockUpdate(long slot, EvictionData data) {
        // A stale read is fine: every decision below is confirmed by a CAS.
        long meta = metaOpaque(slot);
        if (!isShareable(meta)) {
            return false;
        }
        long acquire = acquireCount(meta);
        if (acquire != releaseCount(meta)) {
            data.seenPinned++;
            return false;
        }
        if (isVisible(meta) && acquire > 0) {
            long count = Math.min(acquire - 1, MAX_COUNTDOWN - 1);
            // No retry: a failure means the entry was just used, so leave it be.
            boolean ignored =
                    LONG.weakCompareAndSetPlain(slots, slot, meta, ClockMeta.withCounters(meta, count));
            return false;
        }
        if (compareAndExchangeMeta(slot, meta, UNDER_CONSTRUCTION) == meta) {
            data.freedCharge += charge(slot);
            data.freedCount++;
            return true;
        }
        return false;
    }

    final boolean isEvictionEffortExceeded(EvictionData data) {
        if (strict) {
            // Strict limits must find room if it exists, so they ignore the cap. (A huge cap in
            // the product below overflowed once 4 entries were freed, and gave up.)
            return false;
        }
        return (data.freedCount + 1) * evictionEffortCap <= data.seenPinned;
    }

    // ---------------------------------------------------------------- insert and capacity

    /**
     * Charges usage for an entry and stores it in the table.
     *
     * <p>Refused ({@link #INSERT_REFUSED}) when the charge would take usage past
     * {@link #usageLimit}, strict limit or not: a charge above the limit at once (which also
     * keeps the sums below from overflowing), otherwise after eviction has freed what it could.
     *
     * @return {@link #found} of the new entry's slot and stamp ({@code >= 0}), or one of the
     *     {@code INSERT_*} codes
     */
    public final long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                      long countdown, boolean keepRef) {
        if (charge > usageLimit) {
            return INSERT_REFUSED;
        }
        long oldOccupancy = addOccupancy(1);
        boolean needEvictForOccupancy = !growIfNeeded(oldOccupancy + 1);
        if (strict) {
            if (!chargeUsageStrict(charge, needEvictForOccupancy)) {
                addOccupancy(-1);
                return INSERT_REFUSED;
            }
        } else {
            long charged = chargeUsageNonStrict(charge, needEvictForOccupancy);
            if (charged != CHARGED) {
                addOccupancy(-1);
                if (charged == OVER_LIMIT) {
                    return INSERT_REFUSED;
                }
                if (!keepRef) {
                    return INSERT_DROPPED; // as if inserted and evicted at once
                }
                return addUsageWithinLimit(charge) ? INSERT_STANDALONE : INSERT_REFUSED;
            }
        }
        long slot = doInsert(h0, h1, valueAddress, valueLength, charge, countdown, keepRef);
        if (slot != NO_SLOT) {
            return slot;
        }
        addOccupancy(-1);
        if (!keepRef) {
            addUsage(-charge);
            return INSERT_DROPPED;
        }
        return INSERT_STANDALONE;
    }

    private boolean chargeUsageStrict(long charge, boolean needEvictForOccupancy) {
        long cap = capacity;
        if (charge > cap) {
            return false;
        }
        long oldUsage;
        long newUsage;
        do {
            oldUsage = usage();
            newUsage = Math.min(cap, oldUsage + charge);
        } while (newUsage != oldUsage && !casUsage(oldUsage, newUsage));
        long needEvict = oldUsage + charge - newUsage;
        long request = needEvict == 0 && needEvictForOccupancy ? 1 : needEvict;
        if (request == 0) {
            return true;
        }
        EvictionData data = EVICTION_DATA.get().reset();
        evict(request, data);
        addOccupancy(-data.freedCount);
        if (data.freedCharge > needEvict) {
            addUsage(-(data.freedCharge - needEvict));
        } else if (data.freedCharge < needEvict || (needEvictForOccupancy && data.freedCount == 0)) {
            addUsage(-(data.freedCharge + (newUsage - oldUsage)));
            return false;
        }
        return true;
    }

    /** {@link #chargeUsageNonStrict} results. */
    private static final long CHARGED = 0;
    private static final long NO_ROOM = 1;    // nothing charged: no slot could be freed
    private static final long OVER_LIMIT = 2; // nothing charged: usage would pass usageLimit

    /**
     * Adds {@code delta} to usage unless that takes it past {@link #usageLimit}; then adds
     * nothing and returns false. Judged by the counter's new value, so that racing inserts cannot
     * pass the limit together (the counter holds their charges for an instant: see
     * {@link CacheOptions#MAX_USAGE} for why that cannot overflow).
     */
    private boolean addUsageWithinLimit(long delta) {
        long before = addUsage(delta);
        if (delta > 0 && before + delta > usageLimit) {
            addUsage(-delta);
            return false;
        }
        return true;
    }

    /** Charges usage without a strict limit, evicting first as needed; see the result codes. */
    private long chargeUsageNonStrict(long charge, boolean needEvictForOccupancy) {
        long oldUsage = usage();
        long cap = capacity;
        long needEvict;
        if (oldUsage + charge <= cap || charge > oldUsage) {
            // Fits, or there is not yet that much to evict (likely all pinned): go over.
            needEvict = 0;
        } else {
            needEvict = charge;
            if (oldUsage > cap) {
                // Already over: evict a little extra so racing inserts converge back to capacity.
                needEvict += Math.min(cap / 1024, charge) + 1;
            }
        }
        if (needEvictForOccupancy && needEvict == 0) {
            needEvict = 1;
        }
        long freedCharge = 0;
        if (needEvict > 0) {
            EvictionData data = EVICTION_DATA.get().reset();
            evict(needEvict, data);
            if (needEvictForOccupancy && data.freedCount == 0) {
                return NO_ROOM;
            }
            addOccupancy(-data.freedCount);
            freedCharge = data.freedCharge;
        }
        if (!addUsageWithinLimit(charge - freedCharge)) {
            addUsage(-freedCharge); // what eviction freed stays freed
            return OVER_LIMIT;
        }
        return CHARGED;
    }

    public final long capacity() {
        return capacity;
    }

    /** @param capacity at most {@link #usageLimit} ({@link ShardedCache#perShardCapacity}) */
    public final void setCapacity(long capacity) {
        this.capacity = capacity;
    }

    public final void setStrict(boolean strict) {
        this.strict = strict;
    }

    public final boolean strict() {
        return strict;
    }

    /** Usage charged for the table's slots in use: all of them, or 0 if not charged. */
    public final long metadataCharge() {
        return metadataChargePerSlot * usedSlots();
    }

    // ---------------------------------------------------------------- scans

    /** Bytes charged by referenced entries, counting each slot's metadata if charged. */
    public final long pinnedUsage() {
        long sum = 0;
        long end = usedSlots() * SLOT_BYTES;
        for (long slot = 0; slot < end; slot += SLOT_BYTES) {
            long meta = metaOpaque(slot);
            if (isShareable(meta) && refCount(meta) != 0) {
                sum += charge(slot) + metadataChargePerSlot;
            }
        }
        return sum;
    }

    /** What {@link #scanOccupancy} found in one table; windows and runs do not wrap around. */
    public static final class OccupancyScan {
        public long occupied;
        public long minWindowOccupied;
        public long maxWindowOccupied;
        public long maxOccupiedRun;
        public long maxEmptyRun;
    }

    /**
     * Reads every slot's meta word once (opaque) in index order and counts occupied (non-empty)
     * slots, the least and most occupied of all {@code window} consecutive slots, and the longest
     * runs of occupied and of empty slots. Racing writers make the result approximate.
     *
     * @param window at least 1 and at most {@link #usedSlots}
     */
    public final OccupancyScan scanOccupancy(int window) {
        OccupancyScan scan = new OccupancyScan();
        boolean[] recent = new boolean[window]; // the last window readings, as a ring
        long inWindow = 0;
        long minWindow = window;
        long maxWindow = 0;
        long run = 0; // > 0: occupied run length; < 0: empty run length
        long index = 0;
        long end = usedSlots() * SLOT_BYTES;
        for (long slot = 0; slot < end; slot += SLOT_BYTES, index++) {
            boolean occupied = !ClockMeta.isEmpty(metaOpaque(slot));
            int ring = (int) (index % window);
            if (index >= window && recent[ring]) {
                inWindow--;
            }
            recent[ring] = occupied;
            if (occupied) {
                inWindow++;
                scan.occupied++;
                run = run > 0 ? run + 1 : 1;
                scan.maxOccupiedRun = Math.max(scan.maxOccupiedRun, run);
            } else {
                run = run < 0 ? run - 1 : -1;
                scan.maxEmptyRun = Math.max(scan.maxEmptyRun, -run);
            }
            if (index + 1 >= window) {
                minWindow = Math.min(minWindow, inWindow);
                maxWindow = Math.max(maxWindow, inWindow);
            }
        }
        scan.minWindowOccupied = minWindow;
        scan.maxWindowOccupied = maxWindow;
        return scan;
    }

    /**
     * Frees every value left in the table and the table itself. Called by the cache's close after
     * its arena is closed, so no other thread can be touching the table through it any more.
     *
     * <p>Frees by value address, not by state: a slot owns a value exactly while its address is
     * non-zero. That includes a slot a racing release took for freeing (its CAS to "under
     * construction" done) but that the closed gate then stopped from freeing it.
     */
    public final void freeAll() {
        long end = usedSlots() * SLOT_BYTES;
        MemorySegment raw = MemorySegment.ofAddress(rawAddress).reinterpret(end);
        for (long slot = 0; slot < end; slot += SLOT_BYTES) {
            long address = raw.get(ValueLayout.JAVA_LONG, SlotLayout.valueAddressOffset(slot));
            if (address != 0) {
                NativeAllocator.free(address,
                        raw.get(ValueLayout.JAVA_INT, SlotLayout.valueLengthOffset(slot)));
            }
        }
        releaseTableMemory();
    }

    // ---------------------------------------------------------------- the index (per table type)

    /** Slots that may hold entries: those scans and close must visit (a prefix of the table). */
    public abstract long usedSlots();

    /** Gives the table's memory back; called once, by {@link #freeAll}. */
    abstract void releaseTableMemory();

    /** Most entries the table accepts at its current size. */
    public abstract long occupancyLimit();

    /** Returns whether the table can hold {@code newOccupancy} entries (growing if it can). */
    abstract boolean growIfNeeded(long newOccupancy);

    /** Claims a slot and publishes the entry; returns its offset, or a negative value if not. */
    abstract long doInsert(long h0, long h1, long valueAddress, int valueLength, long charge,
                           long countdown, boolean keepRef);

    /**
     * Finds a visible entry and takes a reference; returns {@link #found} of its slot and stamp,
     * or {@link #NOT_FOUND}.
     */
    abstract long lookup(long h0, long h1);

    /** Erases a key; returns whether a visible entry was found. */
    public abstract boolean erase(long h0, long h1);

    /** Evicts unreferenced entries until {@code requested} charge is freed or effort runs out. */
    abstract void evict(long requested, EvictionData data);

    /**
     * Unlinks an owned (under construction) entry from the index, frees its value and marks the
     * slot empty. Usage and occupancy are the caller's to update.
     */
    abstract void removeOwned(long slot);
}
