package dev.clockwork.offheap.clock;

import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CloseGate;
import dev.clockwork.offheap.entry.EntryStamp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A table's slots ({@link SlotLayout}) and the access to each of their fields, in the mode each
 * needs: the meta word only atomically (its transitions are {@link ClockProtocol}'s), the other
 * fields plainly, as they are written only by a slot's owner and read under a reference or
 * checked by the stamp afterwards.
 *
 * <p>Slots are addressed by their byte offset in {@link #slots}, a segment scoped to the cache's
 * shared arena, so a call racing {@code close()} fails with an exception instead of touching
 * freed memory.
 */
public abstract class ClockSlots extends PaddedCounters {
    /** {@code (MemorySegment, long offset)} handles, exact so that a wrong type throws, not boxes. */
    public static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();

    /** The table's slots, scoped to the cache's arena. */
    public final MemorySegment slots;
    final int shardIndex;
    public final CacheContext context;
    /** The cache's close gate: calls that free or hand over values run inside it. */
    final CloseGate gate;

    ClockSlots(MemorySegment slots, ClockShardContext context) {
        this.slots = slots;
        this.shardIndex = context.shardIndex();
        this.context = context.context();
        this.gate = context.gate();
    }

    // ---------------------------------------------------------------- the meta word

    final long getAndAddMeta(long slot, long delta) {
        return (long) LONG.getAndAdd(slots, slot, delta);
    }

    /**
     * An undo or a release: it needs only release order (this thread's earlier reads of the
     * entry happen before it), but it is a volatile add: HotSpot compiles {@code getAndAdd} to
     * one {@code lock xadd} and {@code getAndAddRelease} to a CAS retry loop (only the volatile
     * form is an intrinsic), and the stronger order is always correct.
     */
    public final long getAndAddMetaRelease(long slot, long delta) {
        return (long) LONG.getAndAdd(slots, slot, delta);
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

    // ---------------------------------------------------------------- the entry's fields

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

    /**
     * The slot's stamp read with acquire, by a reader that holds no reference and has read nothing
     * of the slot yet ({@link ClockProtocol#stampIfKey}): the slot's later reads are not moved
     * before it.
     */
    final int stampAcquire(long slot) {
        return (int) INT.getAcquire(slots, SlotLayout.stampOffset(slot));
    }

    /** A number no other slot of the cache has, for seeding its stamps. */
    final long identity(long slot) {
        return ((long) shardIndex << EntryStamp.LOCATION_BITS) | (slot >>> SlotLayout.SLOT_SHIFT);
    }
}
