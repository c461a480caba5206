package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ClockMeta.ACQUIRE_ONE;
import static dev.clockwork.offheap.clock.ClockMeta.RELEASE_ONE;
import static dev.clockwork.offheap.clock.ClockMeta.isInvisible;
import static dev.clockwork.offheap.clock.ClockMeta.isShareable;
import static dev.clockwork.offheap.clock.ClockMeta.isVisible;
import static dev.clockwork.offheap.clock.ClockMeta.refCount;
import static dev.clockwork.offheap.clock.ClockMeta.releaseCount;
import static dev.clockwork.offheap.clock.SlotLayout.INT;
import static dev.clockwork.offheap.clock.SlotLayout.LONG;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_SHIFT;
import static dev.clockwork.offheap.clock.SlotLayout.key0;
import static dev.clockwork.offheap.clock.SlotLayout.key1;
import static dev.clockwork.offheap.clock.SlotLayout.stamp;

import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CloseGate;
import dev.clockwork.offheap.entry.ChargeWord;
import dev.clockwork.offheap.entry.EntryStamp;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * A clock table: its slots ({@link SlotLayout}) and every change of what a slot holds, each next
 * to its atomic operation (RocksDB's {@code BaseClockTable}). The two indexes extend it,
 * {@link FixedClockTable} and {@link AutoClockTable}: they decide which slot a key's entry is in
 * and keep their own words of the slot, and get one hook, {@link #unlink}, to take an entry this
 * class is freeing off the index. The shard ({@link ClockShard}) owns the charge; the free path
 * tells it what an entry gave back.
 *
 * <h2>States and transitions</h2>
 * The states are the meta word's ({@link ClockMeta}); the methods follow this order.
 * <pre>
 *   EMPTY ─────── claim: tryClaim (CAS) ──────────────────────────▶ UNDER CONSTRUCTION
 *   UNDER CONSTRUCTION ── publish: fillAndPublish (release store) ──▶ VISIBLE
 *   VISIBLE, INVISIBLE ── reference: tryReference, ref, referenceIfVisible (add),
 *                         markUsed (weak CAS) ──▶ the same state, counters moved
 *   VISIBLE, INVISIBLE ── release: release, undo (CAS) ──▶ the same state, or, from the last
 *                         reference of an invisible or erasing release, freeIfUnreferenced (CAS)
 *                         ──▶ UNDER CONSTRUCTION
 *   VISIBLE ───── erase: eraseIfKey, referenced (CAS) ──▶ INVISIBLE; unreferenced (CAS)
 *                 ──▶ UNDER CONSTRUCTION
 *   VISIBLE, INVISIBLE ── sweep: clockUpdate, countdown left (weak CAS) ──▶ VISIBLE, one lower;
 *                         else unreferenced (CAS) ──▶ UNDER CONSTRUCTION
 *   UNDER CONSTRUCTION ── free: freeOwned, evictOwned (release store) ──▶ EMPTY
 * </pre>
 * Why each atomic suffices:
 * <ul>
 *   <li>claim: a volatile CAS from an empty word: exactly one claimer wins, and it sees the last
 *       owner's writes, which that owner's release store of EMPTY published.</li>
 *   <li>publish: the fields are written plainly by the only owner, then one release store of the
 *       word makes them visible to whoever acquires the word (a reference, an acquire load).</li>
 *   <li>reference: a volatile add ({@code lock xadd}) pins whatever entry the word is, and acquires
 *       the fields its publisher wrote; a reference that missed is given back, never left.</li>
 *   <li>release: a volatile CAS from the very word whose state, count and stamp were checked
 *       (its tag makes it this entry's), so this thread's reads of the entry happen before
 *       whoever sees the count drop, and a slot reused meanwhile makes the CAS fail.</li>
 *   <li>erase: a volatile CAS from a word read with acquire, its tag, stamp and key checked.</li>
 *   <li>sweep: the countdown's decrement is a plain weak CAS: it orders nothing, and a failure
 *       means the entry was just used, a reason to leave it; the taking CAS is volatile.</li>
 *   <li>free: the owner alone writes; the stamp moves first (store-store fence) so no handle
 *       names the slot, then a release store of EMPTY hands the slot to the next claimer.</li>
 * </ul>
 * The stamp ({@link EntryStamp}) is a plain int beside the value length. Its writer moves it
 * before the fields (store-store fence) and a reader without a reference reads it after them
 * (load-load fence, {@link #stillHolds}), so a matching stamp proves the fields were that
 * entry's. Each transition asserts its precondition with the predicates of {@link ClockMeta}
 * (tests run with {@code -ea}).
 *
 * <h2>Memory</h2>
 * Slots are addressed by their byte offset in {@link #slots}, a segment scoped to the cache's
 * shared arena, so a call racing {@code close()} fails with an exception instead of touching
 * freed memory. Every access mode is in the name of the method that uses it; fields other than
 * the meta word are read plainly (see {@link SlotLayout} for why that is enough).
 */
public abstract class ClockProtocol {
    /** The table's slots, scoped to the cache's arena; {@link SlotLayout} reads their fields. */
    public final MemorySegment slots;
    /** Slots the table's memory can hold; handles are bounds-checked against it. */
    public final long slotCount;
    /** Where the slots start: the table's memory, owned by it (see {@link #releaseTableMemory}). */
    public final long rawAddress;
    final int shardIndex;
    final CacheContext context;
    /** The cache's close gate: calls that free or hand over values run inside it. */
    private final CloseGate gate;
    /** The shard whose charge the entries freed here give back. */
    final ClockShard shard;

    /**
     * @param rawAddress zeroed memory for {@code slotCount} slots, 64-byte aligned, owned by the
     *     table from now on (see {@link #releaseTableMemory})
     */
    ClockProtocol(long rawAddress, long slotCount, ClockShardContext context, ClockShard shard) {
        this.slots = MemorySegment.ofAddress(rawAddress).reinterpret(
                slotCount * SlotLayout.SLOT_BYTES, context.context().arena(), null);
        this.rawAddress = rawAddress;
        this.slotCount = slotCount;
        this.shardIndex = context.shardIndex();
        this.context = context.context();
        this.gate = context.gate();
        this.shard = shard;
    }

    // ---------------------------------------------------------------- the index (per table)

    /**
     * Finds a visible entry and takes a reference, which the caller keeps; returns
     * {@link FoundEntry} of its slot and stamp, or {@link FoundEntry#NONE}.
     *
     * @throws IllegalStateException if the entry already holds the most references it may,
     *     {@link ClockMeta#MAX_REFS} (the reference is given back first)
     */
    public abstract long lookup(long h0, long h1);

    /**
     * Finds a visible entry of the key without taking a reference: {@link FoundEntry} of its slot
     * and stamp, or {@link FoundEntry#NONE}. Reads only, apart from the clock's "was used" mark
     * (see {@link #stampIfKey}); the caller validates what it reads against the stamp afterwards.
     */
    public abstract long findUnreferenced(long h0, long h1);

    /**
     * Claims a slot and publishes the entry: {@link FoundEntry} of it, or a negative value.
     * {@code charge} is the slot's charge word, charge and kind ({@link ChargeWord}).
     */
    abstract long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                         long countdown, boolean keepRef);

    /** Erases a key; returns whether a visible entry was found. */
    public abstract boolean erase(long h0, long h1);

    /** Returns whether the table can hold {@code newOccupancy} entries (growing if it can). */
    abstract boolean growIfNeeded(long newOccupancy);

    /** Evicts unreferenced entries until {@code requested} charge is freed or effort runs out. */
    abstract void evict(long requested, EvictionData data);

    /**
     * The index's hook: takes an owned (under construction) entry off the index, before its slot
     * is freed. Index words only; the slot's entry is this class's to change.
     */
    abstract void unlink(long slot);

    /** Slots that may hold entries: those scans and close must visit (a prefix of the table). */
    public abstract long usedSlots();

    /** Most entries the table accepts at its current size. */
    public abstract long occupancyLimit();

    /** Gives the table's memory back; once, when the cache's arena is closed (see ClockShard). */
    abstract void releaseTableMemory();

    // ---------------------------------------------------------------- the slot's words

    /** Volatile (one {@code lock xadd}): acquires the fields the word's publisher wrote. */
    final long getAndAddMeta(long slot, long delta) {
        return (long) LONG.getAndAdd(slots, slot, delta);
    }

    /** Opaque: a recent word, for a look that a CAS or an add confirms. */
    final long getMetaOpaque(long slot) {
        return (long) LONG.getOpaque(slots, slot);
    }

    /** Acquire: the slot's fields (stamp included) read after it are at least as new as it. */
    final long getMetaAcquire(long slot) {
        return (long) LONG.getAcquire(slots, slot);
    }

    /** Volatile: orders this thread's reads of the entry before the change it makes. */
    final long compareAndExchangeMeta(long slot, long expected, long update) {
        return (long) LONG.compareAndExchange(slots, slot, expected, update);
    }

    /** Plain and weak: for the clock's hints, which order nothing and may fail. */
    final boolean weakCompareAndSetMetaPlain(long slot, long expected, long update) {
        return LONG.weakCompareAndSetPlain(slots, slot, expected, update);
    }

    /** Release: the fields written plainly before it are seen by whoever acquires the word. */
    final void setMetaRelease(long slot, long meta) {
        LONG.setRelease(slots, slot, meta);
    }

    // ---------------------------------------------------------------- claim and publish

    /**
     * Claims an empty slot by setting its occupied bit: EMPTY ▶ UNDER CONSTRUCTION, owned by us.
     * Occupied slots are passed over after an opaque look, without an atomic write: in a loaded
     * table most probes meet one. The CAS re-checks the word, and overwrites any stray counts.
     */
    final boolean tryClaim(long slot) {
        long meta = getMetaOpaque(slot);
        while (ClockMeta.isEmpty(meta)) {
            long witness = compareAndExchangeMeta(slot, meta, meta | ClockMeta.OCCUPIED);
            if (witness == meta) {
                assert !EntryStamp.isLive(stamp(slots, slot)) : "an empty slot holds no entry";
                return true;
            }
            meta = witness; // counters moved (a stray lookup) or someone claimed it
        }
        return false;
    }

    /**
     * Fills a claimed slot with an entry and publishes it with {@code meta} (state and counters;
     * the tag is added here) in one release store: UNDER CONSTRUCTION ▶ VISIBLE. Returns
     * {@link FoundEntry} of the slot and the entry's stamp.
     *
     * <p>The stamp moves first: a value read through a stale handle reads the value address,
     * then the stamp, so it must not see this entry's address beside the old entry's stamp.
     * The value passes to the slot with the write of its address (see {@link SlotLayout}), after
     * its length, which close needs to free it. Inserts run inside the cache's {@link CloseGate},
     * so close cannot stop this half way.
     */
    final long fillAndPublish(long slot, long h0, long h1, long valueAddress, int valueLength,
                              long charge, long meta) {
        assert ClockMeta.isUnderConstruction(getMetaOpaque(slot)) : "only its owner fills it";
        assert isVisible(meta) && (meta & ClockMeta.TAG_MASK) == 0 : "a new entry's word, untagged";
        // Seeded with a number no other slot of the cache has: its shard and index.
        long identity = ((long) shardIndex << EntryStamp.LOCATION_BITS) | (slot >>> SLOT_SHIFT);
        int stamp = EntryStamp.live(stamp(slots, slot), context.stampSalt, identity);
        INT.set(slots, SlotLayout.stampOffset(slot), stamp);
        VarHandle.storeStoreFence(); // the stamp is seen before any field below
        INT.set(slots, SlotLayout.valueLengthOffset(slot), valueLength);
        LONG.set(slots, SlotLayout.valueAddressOffset(slot), valueAddress);
        LONG.set(slots, SlotLayout.key0Offset(slot), h0);
        LONG.set(slots, SlotLayout.key1Offset(slot), h1);
        LONG.set(slots, SlotLayout.chargeOffset(slot), charge);
        setMetaRelease(slot, meta | ClockMeta.tagOf(stamp));
        return FoundEntry.of(slot, stamp);
    }

    // ---------------------------------------------------------------- reference

    /**
     * Takes a reference if the slot holds a visible entry of this key, and returns that entry's
     * stamp; undoes it and returns 0 otherwise. Refused (given back, and an exception thrown) if
     * the entry held {@link ClockMeta#MAX_REFS} references already. The stamp is the one whose
     * tag is the word's the reference went to ({@link #stampOf}), so that an entry that took the
     * slot after ours (ours freed, our reference taken from us: see {@link #giveBack}) is not
     * mistaken for it.
     */
    final int tryReference(long slot, long h0, long h1) {
        long old = getAndAddMeta(slot, ACQUIRE_ONE);
        if (isVisible(old) && key0(slots, slot) == h0 && key1(slots, slot) == h1) {
            if (refCount(old) >= ClockMeta.MAX_REFS) {
                throw giveBackPastLimit(slot, old);
            }
            shard.recordUse(h0, releaseCount(old));
            return stampOf(slot, old); // 0 if ours went meanwhile: nothing left to undo
        }
        undoStray(slot, old);
        return 0;
    }

    /**
     * Gives back a lookup's reference that took its entry past {@link ClockMeta#MAX_REFS}, and
     * returns the exception to throw. Lookups racing at the limit each see the count before their
     * own add, so together they pass it by at most their number; the counters have room for that.
     */
    private IllegalStateException giveBackPastLimit(long slot, long old) {
        releaseOwn(slot, stampOf(slot, old));
        return ClockHandle.tooManyRefs();
    }

    /**
     * Takes back a reference that went to another key's entry or to an erased one. Apart from
     * {@link #tryReference} so that the hit path stays small enough to inline.
     */
    private void undoStray(long slot, long old) {
        // Empty or under construction: the owner overwrites the word, stray increment and all.
        if (isShareable(old)) {
            undo(slot, stampOf(slot, old), 1);
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
            throw ClockHandle.notPinned();
        }
        int pinned = stampOf(slot, old); // the entry our reference went to
        if (pinned == stamp && refCount(old) != 0 && refCount(old) < ClockMeta.MAX_REFS) {
            return;
        }
        releaseOwn(slot, pinned);
        throw pinned == stamp && refCount(old) >= ClockMeta.MAX_REFS
                ? ClockHandle.tooManyRefs() : ClockHandle.notPinned();
    }

    /**
     * Takes a reference on the slot's entry if it is visible, the way a lookup does but without
     * comparing a key: for {@code forEachEntry}. Returns the entry's stamp (stable while the
     * reference is held; give it back with {@link #releaseOwn}), or 0 (never a live stamp) if
     * the slot holds no visible entry, in which case no reference is held.
     *
     * <p>An opaque look comes first, as on a lookup's further probes: a scan meets many empty
     * slots, and an atomic add on each would take every line of the table from the cores using
     * it. On an entry erased meanwhile (invisible) the reference is given back by
     * {@link #releaseOwn}: if the other holders let go meanwhile, ours is the last reference and
     * it frees the entry, instead of leaving it charged until an eviction sweep finds it.
     */
    public final int referenceIfVisible(long slot) {
        if (!isVisible(getMetaOpaque(slot))) {
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
     * The countdown clock of the slot's entry if it is visible, else -1: for a dump's ranking of
     * entries by heat. Read opaque, as the sweep reads it: a value of a moment ago will do, as
     * the entry's clock moves on anyway. Unreferenced, both counters hold the countdown; held,
     * the release counter still does (each release as a use adds to it, as to the clock).
     */
    public final int visibleCountdown(long slot) {
        long meta = getMetaOpaque(slot);
        return isVisible(meta) ? (int) Math.min(releaseCount(meta), ClockMeta.MAX_COUNTDOWN) : -1;
    }

    /**
     * The stamp of the slot's entry if it is visible and of this key, found without taking a
     * reference (for reads that write nothing shared); 0 (never a live stamp) if not, or if the
     * slot changed while it was read.
     *
     * <p>A seqlock read. The stamp first, then the meta word with acquire: an entry's stamp is
     * written before its fields and its word's release store publishes them, and freeing moves
     * the stamp before anything else, so a visible word whose tag is the stamp's is that entry's
     * (or a later one's with an equal tag, which only a new stamp can precede: the last check
     * sees it), and the keys read after it are at least that entry's. Then, after a load-load
     * fence, the stamp again ({@link #stillHolds}): unchanged, no write of a later entry was
     * among the reads. The caller reads the value the same way, checking the stamp after.
     */
    final int stampIfKey(long slot, long h0, long h1) {
        // Acquire, as this reader holds no reference: the slot's later reads stay after it.
        int stamp = (int) INT.getAcquire(slots, SlotLayout.stampOffset(slot));
        long word = getMetaAcquire(slot);
        if (!isVisible(word) || !EntryStamp.isLive(stamp)
                || ClockMeta.tagOf(stamp) != (word & ClockMeta.TAG_MASK)
                || key0(slots, slot) != h0 || key1(slots, slot) != h1 || !stillHolds(slot, stamp)) {
            return 0;
        }
        markUsed(slot, word, h0);
        return stamp;
    }

    /**
     * The clock's "was used" signal for a read that takes no reference: raises an unreferenced
     * entry's countdown by one, as a lookup and its release together would, but only while it is
     * below {@link ClockMeta#MAX_COUNTDOWN}. An entry read over and over is then written once per
     * sweep that lowered it, not once per read, and readers on many cores leave its line shared.
     * A referenced entry is left alone: the sweep skips it, and its releases count as uses.
     */
    private void markUsed(long slot, long word, long h0) {
        long acquire = ClockMeta.acquireCount(word);
        if (acquire == releaseCount(word) && acquire < ClockMeta.MAX_COUNTDOWN) {
            shard.recordUse(h0, acquire);
            assert isVisible(word) && refCount(word) == 0 : "only an idle visible entry is marked";
            // Plain weak CAS, as the sweep's: it fails only if the entry was just used or changed.
            boolean ignored = weakCompareAndSetMetaPlain(slot, word,
                    word + ACQUIRE_ONE + RELEASE_ONE);
        }
    }

    /**
     * The stamp of the entry a reference went to, given the word the reference's add returned:
     * the slot's stamp if its tag is that word's, else 0 (never a live stamp). The reference
     * keeps its entry in the slot unless a misused release took it; then the slot may already
     * hold another entry, whose stamp must not be taken for ours.
     */
    final int stampOf(long slot, long word) {
        int stamp = stamp(slots, slot);
        // Live too: freeing clears only the stamp's low bit, which the tag leaves out.
        boolean tagged = ClockMeta.tagOf(stamp) == (word & ClockMeta.TAG_MASK);
        return EntryStamp.isLive(stamp) && tagged ? stamp : 0;
    }

    /**
     * Whether the slot still holds the entry with {@code stamp}, checked after reads of its
     * fields: they were that entry's if so (its stamp moves before anything of it is freed).
     */
    public final boolean stillHolds(long slot, int stamp) {
        VarHandle.loadLoadFence(); // the field reads before stay before this read
        return stamp(slots, slot) == stamp;
    }

    /**
     * Checks a visible slot for the key being inserted, holding {@code countdown} references
     * while reading it. On a match the references are released as uses, which boosts the
     * existing entry's clock as the duplicate insert's priority asks.
     */
    final boolean sameKeyBoosting(long slot, long h0, long h1, long countdown) {
        long old = getAndAddMeta(slot, countdown * ACQUIRE_ONE);
        if (!isShareable(old)) {
            return false; // empty or under construction: the owner overwrites our increment
        }
        int stamp = stampOf(slot, old); // the entry our references went to
        if (isVisible(old) && key0(slots, slot) == h0 && key1(slots, slot) == h1) {
            // An erase may have made it invisible since our add: then ours may be the last
            // references, and giving them back frees it.
            correctNearOverflow(giveBack(slot, stamp, countdown, RELEASE_ONE), slot);
            return true;
        }
        undo(slot, stamp, countdown);
        return false;
    }

    // ---------------------------------------------------------------- release

    /**
     * Releases one reference of the entry a handle with {@code stamp} names, as a use: the
     * release counter advances, which raises the entry's clock. Frees the entry if this was its
     * last reference and it was erased, or if {@code eraseIfLastRef}.
     *
     * <p>A refused release changes nothing: the word is changed by a CAS from the very word whose
     * state, reference count and stamp were checked. The stamp is read after an acquire of that
     * word, so it is the stamp of the word's entry or of a later one: if it is the handle's, the
     * word is the handle's entry's, and a CAS from it cannot land on another entry unless that
     * entry was freed, and another published with a word equal in every bit (the stamp's tag
     * included, which only an entry a multiple of 512 entries later has: see ClockMeta), between
     * the check and the CAS. For a caller holding its reference that cannot happen (the
     * reference keeps the entry); for a stale or second release it is the one window left,
     * documented on {@code Cache.release}. A second release while others also hold the entry
     * cannot be told from theirs: the count is shared.
     *
     * @param stamp the stamp of the entry the caller's handle names: only that entry is released
     * @return whether this call freed the entry
     * @throws IllegalStateException if the entry is not pinned or not in the slot any more
     */
    public final boolean release(long slot, int stamp, boolean eraseIfLastRef) {
        long old = getMetaAcquire(slot);
        for (;;) {
            if (!isShareable(old) || refCount(old) == 0) {
                throw ClockHandle.notPinned();
            }
            if (stamp(slots, slot) != stamp) {
                throw ClockHandle.stale();
            }
            assert refCount(old + RELEASE_ONE) == refCount(old) - 1 : "one reference fewer";
            // Volatile: our reads of the value happen before anyone who sees the count drop
            // frees it (the freeing CAS pairs with this), and a failed CAS's witness is acquired.
            long witness = compareAndExchangeMeta(slot, old, old + RELEASE_ONE);
            if (witness == old) {
                break;
            }
            old = witness;
        }
        if (!eraseIfLastRef && !isInvisible(old)) {
            correctNearOverflow(old, slot);
            return false;
        }
        return freeIfUnreferenced(slot, old, old + RELEASE_ONE, stamp);
    }

    /**
     * Gives back a reference this thread took on the entry with {@code stamp} as if it had never
     * been taken (see {@link #giveBack}); if that was the last reference of an erased entry,
     * frees it, as its last release would have.
     */
    public final void releaseOwn(long slot, int stamp) {
        undo(slot, stamp, 1);
    }

    /**
     * Takes back references taken only to look (see {@link #giveBack}): no clock boost. If they
     * were the last of an entry erased meanwhile, frees it, as its last release would: an erase
     * that meets a reference only makes the entry invisible, and whoever drops the last one frees
     * it, or nobody would (counting on the sweep would leave it charged until one passes).
     */
    final void undo(long slot, int stamp, long count) {
        giveBack(slot, stamp, count, -ACQUIRE_ONE);
    }

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
     * <p>Then the freeing half of a release: if the references given back were the last of an
     * invisible (erased) entry, frees it ({@link #freeIfUnreferenced}). Every give-back goes
     * through here, so that no path leaves an erased entry unreferenced and charged.
     *
     * @return the word before the change, or {@link ClockMeta#EMPTY} (never a shareable word) if
     *     nothing was given back
     */
    private long giveBack(long slot, int stamp, long count, long perReference) {
        if (stamp == 0) {
            return ClockMeta.EMPTY; // the entry went before we could look (see stampOf)
        }
        long word = getMetaAcquire(slot);
        for (;;) {
            long held = Math.min(count, refCount(word));
            if (!isShareable(word) || held == 0 || stamp(slots, slot) != stamp) {
                return ClockMeta.EMPTY;
            }
            long after = word + held * perReference;
            assert refCount(after) == refCount(word) - held : "the count drops by what is given";
            // Volatile: our reads of the entry happen before anyone who sees the count drop.
            long witness = compareAndExchangeMeta(slot, word, after);
            if (witness == word) {
                if (isInvisible(word) && refCount(after) == 0) {
                    freeIfUnreferenced(slot, word, after, stamp);
                }
                return word;
            }
            word = witness;
        }
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
        if (releaseCount(oldMeta) > ClockMeta.OVERFLOW_THRESHOLD) {
            CounterOverflow.clearTopBits(this, slot); // once per 2^25 releases: out of line
        }
    }

    /**
     * The second half of a release that may free the entry: frees it if no reference is left,
     * unless someone else took it over first. {@code old} is the word our release changed and
     * {@code current} the word it left.
     *
     * <p>RocksDB's FIXME in {@code FixedHyperClockTable::Release}: between our release and our
     * CAS another thread may free the entry and an unreferenced newcomer take the slot; a CAS
     * retried with the word it finds would then take and free the newcomer. Before every CAS we
     * check that the slot still holds our handle's stamp and stand down if not. The check is a
     * hint, not a lock: if a newcomer whose word equals ours exactly is published between that
     * read and the CAS, the CAS still takes it, and it is freed as RocksDB frees it (a lost
     * entry, never a wrong one). Putting such a newcomer back is not an option: an erase meeting
     * the slot "under construction" meanwhile would have passed it by, and the newcomer would
     * survive an erase that came after its insert.
     */
    final boolean freeIfUnreferenced(long slot, long old, long current, int stamp) {
        for (;;) {
            if (refCount(current) != 0) {
                correctNearOverflow(old, slot);
                return false;
            }
            if (!isShareable(current)) {
                return false; // someone else took ownership
            }
            if (stamp(slots, slot) != stamp) {
                return false; // our entry is gone; the slot holds a newcomer (the FIXME above)
            }
            assert isShareable(current) && refCount(current) == 0 : "an unreferenced entry";
            long witness = compareAndExchangeMeta(slot, current, ClockMeta.UNDER_CONSTRUCTION);
            if (witness == current) {
                break;
            }
            current = witness;
        }
        // Ours now. If close has begun, the gate refuses us and close frees the value (its
        // address is still in the slot).
        int stripe = gate.enter();
        try {
            freeOwned(slot);
        } finally {
            gate.exit(stripe);
        }
        return true;
    }

    // ---------------------------------------------------------------- erase

    /**
     * Erases the slot's entry if it is visible and of this key, without taking a reference, and
     * returns whether it did: made invisible if referenced (its last release frees it), else
     * taken and freed at once. The caller (an erase) is inside the close gate.
     *
     * <p>RocksDB's erase references each entry it checks, as a lookup does. Here the word is
     * read (acquire), the stamp and key after it, and the change is a CAS from that word, whose
     * tag makes it this entry's: so an erase holds nothing that a misused release could take from
     * it (a second release of a handle whose entry only an erase held would otherwise be
     * accepted, see {@link #release}), and a slot reused meanwhile makes the CAS fail.
     */
    final boolean eraseIfKey(long slot, long h0, long h1) {
        long word = getMetaAcquire(slot);
        for (;;) {
            if (!isVisible(word) || stampOf(slot, word) == 0
                    || key0(slots, slot) != h0 || key1(slots, slot) != h1) {
                return false;
            }
            boolean held = refCount(word) != 0;
            assert isVisible(word) : "only a visible entry is erased";
            // Held: make it invisible, and its last release frees it. Else take it.
            long witness = compareAndExchangeMeta(slot, word,
                    held ? word & ~ClockMeta.VISIBLE : ClockMeta.UNDER_CONSTRUCTION);
            if (witness == word) {
                if (!held) {
                    freeOwned(slot);
                }
                return true;
            }
            word = witness;
        }
    }

    // ---------------------------------------------------------------- sweep

    /**
     * One clock step on a slot: skip it if it is not shareable or is referenced; otherwise either
     * decrement its countdown (a visible entry with time left) or take ownership to evict it,
     * counting its charge in {@code data}.
     *
     * @return whether the caller now owns the slot (under construction) and must evict it
     */
    final boolean clockUpdate(long slot, EvictionData data) {
        if (data.rejected) {
            return false; // the policy kept a victim: this run takes nothing more
        }
        long meta = getMetaOpaque(slot); // stale is fine: every decision is confirmed by a CAS
        if (!isShareable(meta)) {
            return false;
        }
        long acquire = ClockMeta.acquireCount(meta);
        if (acquire != releaseCount(meta)) {
            data.seenPinned++;
            return false;
        }
        if (isVisible(meta) && acquire > 0) {
            long count = Math.min(acquire - 1, ClockMeta.MAX_COUNTDOWN - 1);
            // No retry: a failure means the entry was just used, so leave it be.
            boolean ignored = weakCompareAndSetMetaPlain(slot, meta,
                    ClockMeta.withCounters(meta, count));
            return false;
        }
        // Ask the policy before taking a visible entry. The key is read without a reference: if
        // the slot changed meanwhile the CAS below fails, and a stale key skews only this one
        // decision. An invisible entry (erased, its last reference given back before the erase
        // could free it) is taken unasked: nobody can find it, and a policy that kept it would
        // keep its charge for good. The candidate meets the first victim the sweep chose, as in
        // TinyLFU; offering it several (Ristretto samples five) measured worse on every
        // frequency-heavy trace.
        if (isVisible(meta) && data.admission != null && !data.admits(key0(slots, slot))) {
            data.rejected = true; // kept (or the policy threw): the insert fails
            return false;
        }
        assert refCount(meta) == 0 : "the sweep takes only unreferenced entries";
        if (compareAndExchangeMeta(slot, meta, ClockMeta.UNDER_CONSTRUCTION) == meta) {
            long chargeWord = SlotLayout.chargeWord(slots, slot);
            data.freedCharge += ChargeWord.charge(chargeWord);
            data.freedCount++;
            if (ChargeWord.kind(chargeWord) != 0) {
                context.stats.kinds.freed(chargeWord); // tagged only when kinds are counted
            }
            return true;
        }
        return false;
    }

    // ---------------------------------------------------------------- free

    /**
     * Frees an entry this thread owns (under construction) outside a sweep: off the index, its
     * value freed, the slot empty, its charge and slot given back to the shard. The caller is
     * inside the cache's {@link CloseGate}.
     */
    private void freeOwned(long slot) {
        long chargeWord = SlotLayout.chargeWord(slots, slot);
        unlink(slot);
        freeValueAndMarkEmpty(slot);
        shard.entryFreed(ChargeWord.charge(chargeWord));
        context.stats.kinds.freed(chargeWord);
    }

    /**
     * Frees an entry a sweep took ({@link #clockUpdate}) and counts the eviction; its charge and
     * slot are the insert's to account for, in one step for the whole run ({@link ClockShard}).
     */
    final void evictOwned(long slot) {
        unlink(slot);
        freeValueAndMarkEmpty(slot);
        context.stats.evictions.increment();
    }

    /**
     * UNDER CONSTRUCTION ▶ EMPTY: the slot gives its value up first. Its stamp moves on (even: no
     * handle names the slot any more), then its value address is zeroed (non-zero exactly while
     * it owns a value), and only then is the value freed and the slot marked empty.
     */
    private void freeValueAndMarkEmpty(long slot) {
        assert ClockMeta.isUnderConstruction(getMetaOpaque(slot)) : "only its owner frees it";
        assert EntryStamp.isLive(stamp(slots, slot)) : "a slot being freed holds an entry";
        long address = SlotLayout.valueAddress(slots, slot);
        int length = SlotLayout.valueLength(slots, slot);
        INT.set(slots, SlotLayout.stampOffset(slot), EntryStamp.dead(stamp(slots, slot)));
        // A value read through a handle reads the stamp, the address (and the bytes), then the
        // stamp again, and throws if it moved: so the stamp's store must be seen before the
        // address is cleared and before free writes into the value's memory.
        VarHandle.storeStoreFence();
        LONG.set(slots, SlotLayout.valueAddressOffset(slot), 0L);
        context.values.freeGuarded(address, length); // unscoped: cannot fail half way
        setMetaRelease(slot, ClockMeta.EMPTY);
    }
}
