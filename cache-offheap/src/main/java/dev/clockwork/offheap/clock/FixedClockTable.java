package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ClockMeta.MAX_COUNTDOWN;
import static dev.clockwork.offheap.clock.ClockMeta.isVisible;
import static dev.clockwork.offheap.clock.SlotLayout.INT;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_SHIFT;
import static dev.clockwork.offheap.clock.SlotLayout.key0;
import static dev.clockwork.offheap.clock.SlotLayout.key1;

import dev.clockwork.offheap.memory.NativeAllocator;
import java.lang.foreign.MemorySegment;

/**
 * The fixed-size index: open addressing with double hashing over a power-of-two slot array sized
 * once from the capacity and an estimated entry charge.
 *
 * <p>A key's probe sequence starts at {@code h1 mod n} and steps by {@code h0 | 1}; the step is
 * odd, so the sequence visits every slot exactly once. Each slot counts its <em>displacements</em>:
 * how many entries' probe paths pass over it. An insert increments them along its path (and rolls
 * them back if it gives up); removing an entry rolls back its path. A lookup or erase stops at a
 * non-matching slot whose displacement count is zero: no entry lies beyond it on this path.
 *
 * <p>Occupancy is capped at {@link #STRICT_LOAD_FACTOR} of the slots; the target is
 * {@link #LOAD_FACTOR}, which sizing uses.
 *
 * <p>Index work only: the displacement counts are this class's, every change of an entry is
 * {@link ClockProtocol}'s, which calls {@link #unlink} to roll back a freed entry's path.
 */
public final class FixedClockTable extends ClockProtocol {
    /** Sizing target: expected entries per slot. */
    public static final double LOAD_FACTOR = 0.7;
    /** Hard cap on occupied slots per slot; beyond it an insert must evict or go standalone. */
    public static final double STRICT_LOAD_FACTOR = 0.84;
    /** Slots an eviction thread claims from the shared clock pointer at a time. */
    private static final int CLOCK_STEP = 4;

    private static final int CLOCK_POINTER = PaddedCounters.index(0);

    private final int lengthBits;
    private final long lengthMask;
    private final long occupancyLimit;
    /** Where the next eviction sweep starts; advanced in steps by concurrent evictors. */
    private final long[] clockPointer = PaddedCounters.allocate(1);

    FixedClockTable(int lengthBits, ClockShardContext context, ClockShard shard) {
        super(allocateZeroed(1L << lengthBits), 1L << lengthBits, context, shard);
        this.lengthBits = lengthBits;
        this.lengthMask = (1L << lengthBits) - 1;
        this.occupancyLimit = occupancyLimit(lengthBits);
    }

    /**
     * Slot count (as a power of two) for a shard: enough slots that entries of the estimated charge
     * fill capacity at {@link #LOAD_FACTOR}, counting each slot's metadata when it is charged.
     *
     * <p>RocksDB rounds that count up to a power of two. When the table is charged, rounding up
     * can hand it most of the capacity: with an estimate near the slot size (64-byte values) the
     * table alone is the whole capacity and the cache holds almost nothing. So, unlike RocksDB,
     * we step down to a smaller table while it lets at least as many entries of the estimated
     * charge fit. Realistic estimates (a few hundred bytes and up) keep RocksDB's size.
     *
     * <p>Not capped: the builder refuses a result above {@link ClockShard#maxSlotsPerShard}, and
     * one whose table holds no entry ({@link #occupancyLimit} 0).
     */
    public static int lengthBits(long capacity, long estimatedEntryCharge, boolean chargeMetadata) {
        double averageSlotCharge = estimatedEntryCharge * LOAD_FACTOR
                + (chargeMetadata ? SlotLayout.SLOT_BYTES : 0);
        long slots = Math.max(1L, (long) Math.ceil(capacity / averageSlotCharge));
        int bits = 64 - Long.numberOfLeadingZeros(slots - 1); // ceil(log2(slots)), at most 63
        if (chargeMetadata) {
            while (bits > 0 && entriesFitting(bits - 1, capacity, estimatedEntryCharge)
                    >= entriesFitting(bits, capacity, estimatedEntryCharge)) {
                bits--;
            }
        }
        return bits;
    }

    /**
     * Most entries a table of {@code 2^bits} slots accepts: {@link #STRICT_LOAD_FACTOR} of them,
     * rounded down; 0 for a one-slot table, which is useless.
     */
    public static long occupancyLimit(int bits) {
        return (long) ((1L << bits) * STRICT_LOAD_FACTOR);
    }

    /**
     * Entries of the estimated charge a charged table of {@code 2^bits} slots leaves room for:
     * bounded by the capacity left after the table and by the slots at {@link #LOAD_FACTOR}.
     */
    static double entriesFitting(int bits, long capacity, long estimatedEntryCharge) {
        double slots = (double) (1L << bits);
        double room = capacity - slots * SlotLayout.SLOT_BYTES;
        return Math.max(0, Math.min(slots * LOAD_FACTOR, room / estimatedEntryCharge));
    }

    private static long allocateZeroed(long slots) {
        long bytes = slots * SlotLayout.SLOT_BYTES;
        long address = NativeAllocator.allocateAligned(bytes, SlotLayout.SLOT_BYTES);
        MemorySegment.ofAddress(address).reinterpret(bytes).fill((byte) 0);
        return address;
    }

    @Override
    public long usedSlots() {
        return slotCount;
    }

    @Override
    void releaseTableMemory() {
        NativeAllocator.free(rawAddress, slotCount * SlotLayout.SLOT_BYTES);
    }

    @Override
    public long occupancyLimit() {
        return occupancyLimit;
    }

    private long slotAt(long index) {
        return (index & lengthMask) << SLOT_SHIFT;
    }

    private int displacements(long slot) {
        return (int) INT.getOpaque(slots, SlotLayout.displacementsOffset(slot));
    }

    private void addDisplacements(long slot, int delta) {
        // Volatile, though release would do: one lock xadd instead of a CAS loop (PaddedCounters).
        int unused = (int) INT.getAndAdd(slots, SlotLayout.displacementsOffset(slot), delta);
    }

    @Override
    boolean growIfNeeded(long newOccupancy) {
        return newOccupancy <= occupancyLimit;
    }

    @Override
    public long lookup(long h0, long h1) {
        long first = h1 & lengthMask;
        long slot = first << SLOT_SHIFT;
        // The home slot: reference first, look after (RocksDB's "optimistic" lookup). Most hits
        // are here, and when another core wrote the slot last, taking the line for writing at
        // once costs one coherence transfer where a read followed by the atomic costs two.
        int stamp = tryReference(slot, h0, h1);
        if (stamp != 0) {
            return FoundEntry.of(slot, stamp);
        }
        return lookupAway(h0, h1, first);
    }

    /**
     * The rest of a lookup's probe sequence, after its home slot. Apart from {@link #lookup} so
     * that the home-slot hit stays small enough for the JIT to inline into its callers.
     */
    private long lookupAway(long h0, long h1, long first) {
        long step = h0 | 1;
        long index = first;
        long slot = first << SLOT_SHIFT;
        while (displacements(slot) != 0) {
            index = (index + step) & lengthMask;
            if (index == first) {
                break;
            }
            slot = index << SLOT_SHIFT;
            // Further probes: look before referencing. In a loaded table most of them meet other
            // keys (a miss probes ~50 slots at the 0.84 occupancy limit once the table has
            // churned), and an atomic add per probe would serialize their cache misses. A plain
            // read of the key rejects strangers; the reference taken on a match is what makes the
            // answer safe, as the key is checked again while it is held.
            if (key0(slots, slot) == h0 && key1(slots, slot) == h1) {
                int stamp = tryReference(slot, h0, h1);
                if (stamp != 0) {
                    return FoundEntry.of(slot, stamp);
                }
            }
        }
        return FoundEntry.NONE;
    }

    /** The probe sequence is a lookup's, with a plain look at each key first. */
    @Override
    public long findUnreferenced(long h0, long h1) {
        long step = h0 | 1;
        long first = h1 & lengthMask;
        long index = first;
        for (;;) {
            long slot = index << SLOT_SHIFT;
            if (key0(slots, slot) == h0 && key1(slots, slot) == h1) {
                int stamp = stampIfKey(slot, h0, h1);
                if (stamp != 0) {
                    return FoundEntry.of(slot, stamp);
                }
            }
            if (displacements(slot) == 0) {
                return FoundEntry.NONE;
            }
            index = (index + step) & lengthMask;
            if (index == first) {
                return FoundEntry.NONE;
            }
        }
    }

    @Override
    long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                  long countdown, boolean keepRef) {
        long step = h0 | 1;
        long first = h1 & lengthMask;
        long index = first;
        for (;;) {
            long slot = index << SLOT_SHIFT;
            if (tryClaim(slot)) {
                // We own the slot: fill it, then publish with one release store.
                return fillAndPublish(slot, h0, h1, valueAddress, valueLength, charge,
                        ClockMeta.newEntry(countdown, keepRef, false));
            }
            // A plain look for our key first, as in lookup; sameKeyBoosting confirms under refs.
            if (key0(slots, slot) == h0 && key1(slots, slot) == h1 && isVisible(getMetaOpaque(slot))
                    && sameKeyBoosting(slot, h0, h1, countdown)) {
                rollback(h0, h1, slot);
                return FoundEntry.NONE; // duplicate: the caller falls back to a standalone entry
            }
            index = (index + step) & lengthMask;
            if (index == first) {
                rollback(h0, h1, slot);
                return FoundEntry.NONE;
            }
            addDisplacements(slot, 1);
        }
    }

    /** Undoes the displacement increments of a probe path from its start up to {@code slot}. */
    private void rollback(long h0, long h1, long slot) {
        long step = h0 | 1;
        long index = h1 & lengthMask;
        while (slotAt(index) != slot) {
            addDisplacements(slotAt(index), -1);
            index = (index + step) & lengthMask;
        }
    }

    @Override
    public boolean erase(long h0, long h1) {
        boolean found = false;
        long step = h0 | 1;
        long first = h1 & lengthMask;
        long index = first;
        do {
            long slot = index << SLOT_SHIFT;
            // A plain look rejects other keys; eraseIfKey confirms against the entry's word.
            if (key0(slots, slot) == h0 && key1(slots, slot) == h1 && eraseIfKey(slot, h0, h1)) {
                found = true;
            }
            // Keep going: in rare races a key can be in the table twice; erase them all.
            if (displacements(slot) == 0) {
                break;
            }
            index = (index + step) & lengthMask;
        } while (index != first);
        return found;
    }

    /** Rolls back the displacements of the path that led to the entry's slot. */
    @Override
    void unlink(long slot) {
        rollback(key0(slots, slot), key1(slots, slot), slot);
    }

    @Override
    void evict(long requested, EvictionData data) {
        long pointer = PaddedCounters.getAndAdd(clockPointer, CLOCK_POINTER, CLOCK_STEP);
        // Give up after every evictor together has swept the table MAX_COUNTDOWN times.
        long maxPointer = pointer + ((long) MAX_COUNTDOWN << lengthBits);
        for (;;) {
            for (int i = 0; i < CLOCK_STEP; i++) {
                long slot = slotAt(pointer + i);
                if (clockUpdate(slot, data)) {
                    evictOwned(slot);
                }
            }
            if (data.freedCharge >= requested || pointer >= maxPointer || data.rejected) {
                return;
            }
            if (data.giveUpOnEffort()) {
                return;
            }
            pointer = PaddedCounters.getAndAdd(clockPointer, CLOCK_POINTER, CLOCK_STEP);
        }
    }
}
