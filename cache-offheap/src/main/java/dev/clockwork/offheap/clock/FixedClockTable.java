package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ClockMeta.MAX_COUNTDOWN;
import static dev.clockwork.offheap.clock.ClockMeta.isVisible;
import static dev.clockwork.offheap.clock.SlotLayout.LONG;
import static dev.clockwork.offheap.clock.SlotLayout.SLOT_SHIFT;
import static dev.clockwork.offheap.clock.SlotLayout.key0;
import static dev.clockwork.offheap.clock.SlotLayout.key1;

import dev.clockwork.offheap.memory.NativeAllocator;
import java.lang.foreign.MemorySegment;

/**
 * The fixed-size index: open addressing with double hashing over a power-of-two slot array sized
 * once from the capacity and an estimated entry charge.
 *
 * <p>A key's probe sequence starts at its home, slot {@code h1 mod n}, and steps by
 * {@code h0 | 1}; the step is odd, so the sequence visits every slot exactly once. An insert
 * takes the first empty slot of its sequence. Each home keeps a {@link Reach} word: how many
 * entries homed there live, and how many steps from home the farthest of them may be. A lookup or
 * erase probes that far and no further; an insert updates its home's word before it publishes
 * the entry, and freeing an entry ({@link #unlink}) takes it out of its home's count.
 *
 * <p>Why a reach and not RocksDB's displacement counts (each slot counting the probe paths that
 * pass over it, a lookup stopping at a slot whose count is zero): at the 0.84 occupancy limit an
 * insert passes ~6 slots, so a churned table holds ~4.4 paths over an average slot and only ~2 %
 * of slots count zero: a miss probed ~50 random lines, an insert paid an atomic add on each line
 * it passed, and every free as many again to roll its path back. A reach is one word per home,
 * on the line a probe reads first: an insert and a free each change one word, with one CAS, and
 * a miss stops after the home when nothing homed there went further (48 % of the homes of a
 * table churned at that load; the mean reach is 4.5 slots). The price: a reach only grows while
 * entries stay homed, so a home that never empties may send misses further than its entries now
 * are.
 *
 * <p>Occupancy is capped at {@link #STRICT_LOAD_FACTOR} of the slots; the target is
 * {@link #LOAD_FACTOR}, which sizing uses.
 *
 * <p>Index work only: the reach words are this class's, every change of an entry is
 * {@link ClockProtocol}'s, which calls {@link #unlink} when it frees an entry.
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
    /** {@link #lengthMask} in bytes: slot offsets wrap with it. */
    private final long byteMask;
    private final long occupancyLimit;
    /** Where the next eviction sweep starts; advanced in steps by concurrent evictors. */
    private final long[] clockPointer = PaddedCounters.allocate(1);

    FixedClockTable(int lengthBits, ClockShardContext context, ClockShard shard) {
        super(allocateZeroed(1L << lengthBits), 1L << lengthBits, context, shard);
        this.lengthBits = lengthBits;
        this.lengthMask = (1L << lengthBits) - 1;
        this.byteMask = lengthMask << SLOT_SHIFT;
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
        // A large table aligned to the huge page it may be backed by (NativeAllocator).
        long alignment = bytes >= NativeAllocator.HUGE_PAGE ? NativeAllocator.HUGE_PAGE
                : SlotLayout.SLOT_BYTES;
        long address = NativeAllocator.adviseHugePages(
                NativeAllocator.allocateAligned(bytes, alignment), bytes);
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

    /**
     * The reach word of a home slot: how many entries live whose probe path starts here, and how
     * far along it the farthest of them may be. Volatile read, though only an atomic snapshot of
     * the word is needed: a lookup that starts after an insert completed must see that insert's
     * update, and on x86 a volatile load is a plain one.
     */
    private long reach(long home) {
        return (long) LONG.getVolatile(slots, SlotLayout.reachOffset(home));
    }

    /**
     * An entry homed at {@code home} now lives {@code distance} steps along its path: one more
     * homed entry, and the reach at least {@code distance}. Before the entry is published, so a
     * lookup that can see the entry can see how far to look for it.
     */
    private void addHomed(long home, long distance) {
        long offset = SlotLayout.reachOffset(home);
        long word = (long) LONG.getOpaque(slots, offset);
        for (;;) {
            long updated = Reach.withEntry(word, distance);
            // Volatile CAS: one lock cmpxchg on x86 whatever the mode (see PaddedCounters).
            long witness = (long) LONG.compareAndExchange(slots, offset, word, updated);
            if (witness == word) {
                return;
            }
            word = witness;
        }
    }

    /** An entry homed at {@code home} is gone; the last one's leaving resets the reach to 0. */
    private void removeHomed(long home) {
        long offset = SlotLayout.reachOffset(home);
        long word = (long) LONG.getOpaque(slots, offset);
        for (;;) {
            assert Reach.count(word) > 0 : "a homed entry is counted at its home";
            long witness = (long) LONG.compareAndExchange(slots, offset, word,
                    Reach.withoutEntry(word));
            if (witness == word) {
                return;
            }
            word = witness;
        }
    }

    @Override
    boolean growIfNeeded(long newOccupancy) {
        return newOccupancy <= occupancyLimit;
    }

    @Override
    public long lookup(long h0, long h1) {
        long home = (h1 & lengthMask) << SLOT_SHIFT;
        // The home slot: reference first, look after (RocksDB's "optimistic" lookup). Most hits
        // are here, and when another core wrote the slot last, taking the line for writing at
        // once costs one coherence transfer where a read followed by the atomic costs two.
        int stamp = tryReference(home, h0, h1);
        if (stamp != 0) {
            return FoundEntry.of(home, stamp);
        }
        long farthest = Reach.farthest(reach(home));
        return farthest == 0 ? FoundEntry.NONE : lookupAway(h0, h1, home, farthest);
    }

    /**
     * The rest of a lookup's probe sequence, after its home slot, as far as the home's reach.
     * Apart from {@link #lookup} so that the home-slot hit stays small enough for the JIT to
     * inline into its callers.
     */
    private long lookupAway(long h0, long h1, long home, long farthest) {
        long step = (h0 | 1) << SLOT_SHIFT;
        long slot = home;
        for (long d = 1; d <= farthest; d++) {
            slot = (slot + step) & byteMask;
            // Look before referencing: an atomic add per probe would serialize the probes'
            // cache misses. A plain read of the key rejects strangers; the reference taken on a
            // match is what makes the answer safe, as the key is checked again while it is held.
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
        long step = (h0 | 1) << SLOT_SHIFT;
        long home = (h1 & lengthMask) << SLOT_SHIFT;
        long slot = home;
        long farthest = 0;
        for (long d = 0; d <= farthest; d++) {
            if (key0(slots, slot) == h0 && key1(slots, slot) == h1) {
                int stamp = stampIfKey(slot, h0, h1);
                if (stamp != 0) {
                    return FoundEntry.of(slot, stamp);
                }
            }
            if (d == 0) {
                farthest = Reach.farthest(reach(home)); // the home's line, read already
            }
            slot = (slot + step) & byteMask;
        }
        return FoundEntry.NONE;
    }

    @Override
    long insert(long h0, long h1, long valueAddress, int valueLength, long charge,
                  long countdown, boolean keepRef) {
        long step = (h0 | 1) << SLOT_SHIFT;
        long home = (h1 & lengthMask) << SLOT_SHIFT;
        long slot = home;
        for (long d = 0; d <= lengthMask; d++) {
            if (tryClaim(slot)) {
                // We own the slot: count it at its home, fill it, publish with a release store.
                addHomed(home, d);
                return fillAndPublish(slot, h0, h1, valueAddress, valueLength, charge,
                        ClockMeta.newEntry(countdown, keepRef, false));
            }
            // A plain look for our key first, as in lookup; sameKeyBoosting confirms under refs.
            if (key0(slots, slot) == h0 && key1(slots, slot) == h1 && isVisible(getMetaOpaque(slot))
                    && sameKeyBoosting(slot, h0, h1, countdown)) {
                return FoundEntry.NONE; // duplicate: the caller falls back to a standalone entry
            }
            slot = (slot + step) & byteMask;
        }
        return FoundEntry.NONE; // every slot taken
    }

    @Override
    public boolean erase(long h0, long h1) {
        boolean found = false;
        long step = (h0 | 1) << SLOT_SHIFT;
        long home = (h1 & lengthMask) << SLOT_SHIFT;
        long farthest = Reach.farthest(reach(home));
        long slot = home;
        for (long d = 0; d <= farthest; d++) {
            // A plain look rejects other keys; eraseIfKey confirms against the entry's word.
            // Keep going after a match: in rare races a key can be in the table twice.
            if (key0(slots, slot) == h0 && key1(slots, slot) == h1 && eraseIfKey(slot, h0, h1)) {
                found = true;
            }
            slot = (slot + step) & byteMask;
        }
        return found;
    }

    /** A freed entry leaves its home's count. */
    @Override
    void unlink(long slot) {
        removeHomed((key1(slots, slot) & lengthMask) << SLOT_SHIFT);
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
