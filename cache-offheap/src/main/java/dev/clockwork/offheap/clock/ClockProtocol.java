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
import static dev.clockwork.offheap.clock.ClockMeta.isUnderConstruction;
import static dev.clockwork.offheap.clock.ClockMeta.isVisible;
import static dev.clockwork.offheap.clock.ClockMeta.refCount;
import static dev.clockwork.offheap.clock.ClockMeta.releaseCount;

import dev.clockwork.offheap.ShardedCache;
import dev.clockwork.offheap.context.CloseGate;
import dev.clockwork.offheap.entry.EntryStamp;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The per-entry clock protocol: every change of a slot's meta word ({@link ClockMeta}), each next
 * to its atomic operation, for every table that keeps entries in {@link SlotLayout} slots (the
 * Fixed and Auto indexes extend it through {@link ClockShard}). The index decides which slot to
 * look at; only this class changes what a slot holds.
 *
 * <h2>States and transitions</h2>
 * <pre>
 *   EMPTY ── tryClaim (CAS) ──▶ UNDER CONSTRUCTION ── fillAndPublish (release store) ──▶ VISIBLE
 *   UNDER CONSTRUCTION ── freeValueAndMarkEmpty (release store) ──▶ EMPTY
 *   VISIBLE ───── eraseIfKey while referenced (CAS) ──▶ INVISIBLE
 *   VISIBLE ───── clockUpdate at 0, eraseIfKey unreferenced,
 *                 freeIfUnreferenced after a release that erases (CAS) ──▶ UNDER CONSTRUCTION
 *   INVISIBLE ─── freeIfUnreferenced after its last release (CAS) ──────▶ UNDER CONSTRUCTION
 * </pre>
 * <ul>
 *   <li><b>Empty</b>: free. Counter bits may hold stray increments from optimistic lookups; the
 *       claiming CAS overwrites the whole word.</li>
 *   <li><b>Under construction</b>: owned by one thread, which is filling or freeing the slot;
 *       every other thread leaves it alone. Lookups that add to its counters do no harm and
 *       must not undo (the owner overwrites the word).</li>
 *   <li><b>Visible</b>: findable; references are taken by one atomic add.</li>
 *   <li><b>Invisible</b>: erased while referenced; its last release frees it. Never visible
 *       again.</li>
 * </ul>
 * Within Visible and Invisible the counters move: a reference adds to the acquire counter
 * ({@link #tryReference}, {@link #ref}, {@link #referenceIfVisible}), a release adds to the
 * release counter or takes the acquire back ({@link #release}, {@link #undo}), a read without a
 * reference raises both while the countdown is low ({@link #markUsed}), a sweep lowers the
 * clock ({@link #clockUpdate}) and {@link #correctNearOverflow} keeps the counters in range.
 *
 * <h2>Access modes, and why</h2>
 * <ul>
 *   <li>Taking a reference is {@code getAndAdd} (volatile, one {@code lock xadd}): it acquires
 *       the fields the entry's publisher wrote before its release store, so they can be read
 *       plainly while the reference is held.</li>
 *   <li>Publishing is a {@code setRelease} of the whole word after plain writes of the fields,
 *       and freeing ends with one, so that the next owner's claim sees the slot's last writes.</li>
 *   <li>Every other change is a CAS from a word read before it (volatile
 *       {@code compareAndExchange}): a release's reads of the value happen before whoever sees
 *       the count drop and frees it, and the word's stamp tag ({@link ClockMeta#tagOf}) makes
 *       the CAS fail if the entry was freed and the slot reused meanwhile.</li>
 *   <li>The sweep's clock decrement alone is a plain weak CAS: it orders nothing, and a failure
 *       means the entry was just used, which is a reason to leave it.</li>
 *   <li>The stamp ({@link EntryStamp}) is a plain int beside the value length. Its writer moves
 *       it before the fields (store-store fence) and a reader without a reference reads it after
 *       them (load-load fence, {@link #stillHolds}), so a matching stamp proves the fields were
 *       that entry's.</li>
 * </ul>
 * The predicates of {@link ClockMeta} state each transition's precondition as an assertion
 * (tests run with {@code -ea}).
 *
 * <p>The slots' memory and the access to each field are {@link ClockSlots}'.
 */
public abstract class ClockProtocol extends ClockSlots {
    /**
     * Gives up an owned (under construction) slot's entry: unlinks it from the index, frees its
     * value, marks the slot empty and takes its charge off the shard. The caller is inside the
     * cache's {@link CloseGate}.
     */
    abstract void freeOwned(long slot);

    ClockProtocol(MemorySegment slots, ClockShardContext context) {
        super(slots, context);
    }

    // ---------------------------------------------------------------- filling and freeing

    /**
     * Fills a claimed (under construction) slot with an entry and publishes it with {@code meta}
     * (state and counters; the tag is added here) in one release store; returns
     * {@link FoundEntry} of the slot and the entry's stamp.
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
        assert isUnderConstruction(metaOpaque(slot)) : "only the slot's owner fills it";
        assert isVisible(meta) && (meta & ClockMeta.TAG_MASK) == 0 : "a new entry's word, untagged";
        // Odd from now on: handles of this entry carry this stamp, its word the stamp's tag.
        int stamp = EntryStamp.live(stamp(slot), context.stampSalt, identity(slot));
        INT.set(slots, SlotLayout.stampOffset(slot), stamp);
        VarHandle.storeStoreFence(); // the stamp is seen before any field below
        INT.set(slots, SlotLayout.valueLengthOffset(slot), valueLength);
        LONG.set(slots, SlotLayout.valueAddressOffset(slot), valueAddress);
        LONG.set(slots, SlotLayout.key0Offset(slot), h0);
        LONG.set(slots, SlotLayout.key1Offset(slot), h1);
        LONG.set(slots, SlotLayout.chargeOffset(slot), charge);
        publishMeta(slot, meta | ClockMeta.tagOf(stamp));
        return FoundEntry.of(slot, stamp);
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

    /**
     * Takes back references taken only to look (see {@link #giveBack}): no clock boost. If they
     * were the last of an entry erased meanwhile, frees it, as its last release would: an erase
     * that meets a reference only makes the entry invisible, and whoever drops the last one frees
     * it, or nobody would (the sweep does not ask admission about an invisible entry, but
     * counting on the sweep would leave it charged until one passes).
     */
    final void undo(long slot, int stamp, long count) {
        giveBackFreeing(slot, stamp, count, -ACQUIRE_ONE);
    }

    /**
     * {@link #giveBack}, then the freeing half of a release: if the references given back were
     * the last of an invisible (erased) entry, frees it ({@link #freeIfUnreferenced}). Every
     * give-back goes through here, so that no path leaves an erased entry unreferenced and
     * charged.
     *
     * @return the word before the give-back, as {@link #giveBack}
     */
    private long giveBackFreeing(long slot, int stamp, long count, long perReference) {
        long before = giveBack(slot, stamp, count, perReference);
        if (isInvisible(before)) {
            // The add giveBack made: as many references as it found, at most count.
            long after = before + Math.min(count, refCount(before)) * perReference;
            if (refCount(after) == 0) {
                freeIfUnreferenced(slot, before, after, stamp);
            }
        }
        return before;
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
        if (releaseCount(oldMeta) > OVERFLOW_THRESHOLD) {
            clearCounterTopBits(slot); // once per 2^25 releases: kept out of the release path
        }
    }

    private void clearCounterTopBits(long slot) {
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
        undo(slot, stamp, 1);
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
     * included, which only an entry a multiple of 512 entries later has: see ClockMeta), between
     * the check and the CAS. For a caller holding its
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
        assert isUnderConstruction(metaOpaque(slot)) : "the last release owns the slot";
        // Ours now. If close has begun, the gate refuses us and close frees the value
        // (freeAll: its address is still in the slot).
        int stripe = gate.enter();
        try {
            freeOwned(slot);
        } finally {
            gate.exit(stripe);
        }
        return true;
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
     * stamp; undoes it and returns 0 otherwise. Refused (given back, and an exception thrown) if
     * the entry held {@link ClockMeta#MAX_REFS} references already. The stamp is the one whose tag is the word's the
     * reference went to ({@link #stampOf}), so that an entry that took the slot after ours (ours
     * freed, our reference taken from us: see {@link #giveBack}) is not mistaken for it.
     */
    final int tryReference(long slot, long h0, long h1) {
        long old = getAndAddMeta(slot, ACQUIRE_ONE);
        if (isVisible(old) && key0(slot) == h0 && key1(slot) == h1) {
            if (refCount(old) >= MAX_REFS) {
                throw giveBackPastLimit(slot, old);
            }
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
        return tooManyRefs();
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
     * The stamp of the slot's entry if it is visible and of this key, found without taking a
     * reference (for reads that write nothing shared, {@link ShardedCache#get}); 0 (never a live
     * stamp) if not, or if the slot changed while it was read.
     *
     * <p>A seqlock read. The stamp first, then the meta word with acquire: an entry's stamp is
     * written before its fields and its word's release store publishes them, and freeing moves
     * the stamp before anything else, so a visible word whose tag is the stamp's is that entry's
     * (or a later one's with an equal tag, which only a new stamp can precede: the last check
     * sees it), and the keys read after it are at least that entry's. Then, after a load-load
     * fence, the stamp again ({@link #stillHolds}): unchanged, no write of a later entry was
     * among the reads. The caller reads the value the same way, checking the stamp after.
     */
    public final int stampIfKey(long slot, long h0, long h1) {
        int stamp = stampAcquire(slot);
        long word = metaAcquire(slot);
        if (!isVisible(word) || !EntryStamp.isLive(stamp)
                || ClockMeta.tagOf(stamp) != (word & ClockMeta.TAG_MASK)
                || key0(slot) != h0 || key1(slot) != h1 || !stillHolds(slot, stamp)) {
            return 0;
        }
        markUsed(slot, word);
        return stamp;
    }

    /**
     * The clock's "was used" signal for a read that takes no reference: raises an unreferenced
     * entry's countdown by one, as a lookup and its release together would, but only while it is
     * below {@link ClockMeta#MAX_COUNTDOWN}. An entry read over and over is then written once per
     * sweep that lowered it, not once per read, and readers on many cores leave its line shared.
     * A referenced entry is left alone: the sweep skips it, and its releases count as uses.
     */
    private void markUsed(long slot, long word) {
        long acquire = acquireCount(word);
        if (acquire == releaseCount(word) && acquire < MAX_COUNTDOWN) {
            // A plain weak CAS, as the sweep's decrement: it orders nothing, and it fails only if
            // the word moved, i.e. the entry was just used or changed, which is as good.
            boolean ignored = LONG.weakCompareAndSetPlain(slots, slot, word,
                    word + ACQUIRE_ONE + RELEASE_ONE);
        }
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
            // An erase may have made it invisible since our add: then ours may be the last
            // references, and giving them back frees it.
            long before = giveBackFreeing(slot, stamp, countdown, RELEASE_ONE);
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
                freeOwned(slot); // the caller (an erase) is inside the close gate
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
        assert isUnderConstruction(metaOpaque(slot)) : "only the slot's owner frees it";
        assert EntryStamp.isLive(stamp(slot)) : "a slot being freed holds an entry";
        long address = valueAddress(slot);
        int length = valueLength(slot);
        INT.set(slots, SlotLayout.stampOffset(slot), EntryStamp.dead(stamp(slot)));
        // A value read through a handle reads the stamp, the address (and the bytes), then the
        // stamp again, and throws if it moved (ShardedCache#value): so the stamp's store must be
        // seen before the address is cleared and before free writes into the value's memory.
        VarHandle.storeStoreFence();
        LONG.set(slots, SlotLayout.valueAddressOffset(slot), 0L);
        context.values.freeGuarded(address, length); // unscoped: cannot fail half way
        publishMeta(slot, ClockMeta.EMPTY);
    }

    /**
     * One clock step on a slot: skip it if it is not shareable or is referenced; otherwise either
     * decrement its countdown (a visible entry with time left) or take ownership to evict it.
     *
     * @return whether the caller now owns the slot (under construction) and must evict it
     */
    final boolean clockUpdate(long slot, EvictionData data) {
        if (data.rejected) {
            return false; // the policy kept a victim: this run takes nothing more
        }
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
        // Ask the policy before taking a visible entry. The key is read without a reference: if
        // the slot changed meanwhile the CAS below fails, and a stale key skews only this one
        // decision. An invisible entry (erased, its last reference given back before the erase
        // could free it) is taken unasked: nobody can find it, and a policy that kept it would
        // keep its charge for good.
        if (isVisible(meta) && data.admission != null && !data.admits(key0(slot))) {
            // Kept (or the policy threw): the insert fails. The candidate meets the first victim
            // the sweep chose, as in TinyLFU; offering it several (Ristretto samples five) admits
            // it against the least frequent of them, which measured worse on every
            // frequency-heavy trace.
            data.rejected = true;
            return false;
        }
        if (compareAndExchangeMeta(slot, meta, UNDER_CONSTRUCTION) == meta) {
            assert refCount(meta) == 0 : "the sweep takes only unreferenced entries";
            data.freedCharge += charge(slot);
            data.freedCount++;
            return true;
        }
        return false;
    }
}
