package dev.clockwork.bench;

import static dev.clockwork.bench.BenchPeer.ends;

import dev.clockwork.cache.ValueReader;
import dev.clockwork.cache.hash.KeyHash;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The floors between {@link ReadFloorBenchmark}'s FFM floor and a cache's read hit: the same two
 * memory levels, with one more of the cache's steps each, written as plainly as the step allows.
 *
 * <pre>
 *   hashed   the key hashed (KeyHash, as the caches hash it), its home slot from the hash, and
 *            the slots after it probed until the key (open addressing at half load, the fixed
 *            table's double-hashing step); the slot's address and length read plainly
 *   seqlock  the hashed floor read as a HyperClock read without a reference reads: the stamp
 *            and the meta word with acquire, the keys after them, the value address with
 *            acquire, the length word (stamp in its high half) checked, the value read through a
 *            ValueReader on a slice, then a load-load fence and the length word again
 * </pre>
 *
 * Slots are 64 bytes laid out as the clock tables' ({@code SlotLayout}): meta word, the two
 * hashed key words, value address, charge, length and stamp. Nothing here is written after setup,
 * so every check passes: what is measured is what the checks cost a hit, not what they catch.
 */
@State(Scope.Benchmark)
public class ProtocolFloor {
    static final long SLOT = 64;
    static final long KEY0 = 8;
    static final long KEY1 = 16;
    static final long ADDRESS = 24;
    static final long LENGTH_WORD = 40;
    static final long STAMP = 44;
    /** The meta word of a visible, unreferenced entry: only its top bit set. */
    static final long VISIBLE = Long.MIN_VALUE;
    static final long SEED = 0x2545_F491_4F6C_DD1DL;
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();

    Arena arena;
    MemorySegment slots;
    MemorySegment all;
    long slotMask;

    @Setup(Level.Trial)
    public void fill(ReadFloorBenchmark bench) {
        long n = bench.entries;
        int size = bench.valueBytes;
        long slotCount = Long.highestOneBit(2 * n - 1) << 1; // at most half full
        slotMask = slotCount - 1;
        arena = Arena.ofShared();
        slots = arena.allocate(slotCount * SLOT, SLOT);
        MemorySegment values = arena.allocate(n * size, SLOT);
        all = MemorySegment.NULL.reinterpret(Long.MAX_VALUE, arena, null);
        for (long i = 0; i < n; i++) {
            long h0 = KeyHash.hash0(i, ReadFloorBenchmark.KEY1, SEED);
            long h1 = KeyHash.hash1FromHash0(h0, ReadFloorBenchmark.KEY1);
            long slot = home(h1);
            while (slots.get(ValueLayout.JAVA_LONG, slot) != 0) {
                slot = next(slot, h0);
            }
            long offset = i * size;
            int stamp = (int) (2 * i + 1);
            slots.set(ValueLayout.JAVA_LONG, slot, VISIBLE);
            slots.set(ValueLayout.JAVA_LONG, slot + KEY0, h0);
            slots.set(ValueLayout.JAVA_LONG, slot + KEY1, h1);
            slots.set(ValueLayout.JAVA_LONG, slot + ADDRESS, values.address() + offset);
            slots.set(ValueLayout.JAVA_LONG, slot + LENGTH_WORD, ((long) stamp << 32) | size);
            values.set(ValueLayout.JAVA_BYTE, offset, (byte) i);
            values.set(ValueLayout.JAVA_BYTE, offset + size - 1, (byte) i);
        }
        for (int i = 0; i < n; i++) {
            long expected = ReadFloorBenchmark.expected(i);
            if (hashed(this, i) != expected || seqlock(this, i, null) != expected
                    || seqlock(this, i, ReadFloorBenchmark.ENDS) != expected) {
                throw new IllegalStateException("protocol floor lost key " + i);
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        arena.close();
    }

    long home(long h1) {
        return (h1 & slotMask) * SLOT;
    }

    long next(long slot, long h0) {
        return (slot + (h0 | 1) * SLOT) & (slotMask * SLOT + SLOT - 1);
    }

    /** The slot holding the hashed key, or -1: probes from its home until the key or a hole. */
    static long find(ProtocolFloor f, MemorySegment slots, long h0, long h1) {
        long slot = f.home(h1);
        while (true) {
            if (slots.get(ValueLayout.JAVA_LONG, slot + KEY0) == h0
                    && slots.get(ValueLayout.JAVA_LONG, slot + KEY1) == h1) {
                return slot;
            }
            if (slots.get(ValueLayout.JAVA_LONG, slot) == 0) {
                return -1;
            }
            slot = f.next(slot, h0);
        }
    }

    static long hashed(ProtocolFloor f, int key) {
        long h0 = KeyHash.hash0(key, ReadFloorBenchmark.KEY1, SEED);
        long h1 = KeyHash.hash1FromHash0(h0, ReadFloorBenchmark.KEY1);
        MemorySegment slots = f.slots;
        long slot = find(f, slots, h0, h1);
        if (slot < 0) {
            return -1;
        }
        long address = slots.get(ValueLayout.JAVA_LONG, slot + ADDRESS);
        long length = (int) slots.get(ValueLayout.JAVA_LONG, slot + LENGTH_WORD);
        MemorySegment all = f.all;
        return ends(all.get(ValueLayout.JAVA_BYTE, address),
                all.get(ValueLayout.JAVA_BYTE, address + length - 1));
    }

    /**
     * A hit read as a HyperClock read without a reference reads it; the value through
     * {@code reader}, or, if it is null, its first and last byte read directly.
     */
    static long seqlock(ProtocolFloor f, int key, ValueReader reader) {
        long h0 = KeyHash.hash0(key, ReadFloorBenchmark.KEY1, SEED);
        long h1 = KeyHash.hash1FromHash0(h0, ReadFloorBenchmark.KEY1);
        MemorySegment slots = f.slots;
        long slot = find(f, slots, h0, h1);
        if (slot < 0) {
            return -1;
        }
        int stamp = (int) INT.getAcquire(slots, slot + STAMP);
        long meta = (long) LONG.getAcquire(slots, slot);
        if (meta >= 0 || (stamp & 1) == 0
                || (long) LONG.get(slots, slot + KEY0) != h0
                || (long) LONG.get(slots, slot + KEY1) != h1) {
            return -1;
        }
        long address = (long) LONG.getAcquire(slots, slot + ADDRESS);
        long word = (long) LONG.get(slots, slot + LENGTH_WORD);
        if ((int) (word >>> 32) != stamp) {
            return -1;
        }
        MemorySegment all = f.all;
        long result = reader != null ? reader.read(all.asSlice(address, (int) word))
                : ends(all.get(ValueLayout.JAVA_BYTE, address),
                        all.get(ValueLayout.JAVA_BYTE, address + (int) word - 1));
        VarHandle.loadLoadFence();
        return (long) LONG.get(slots, slot + LENGTH_WORD) == word ? result : -1;
    }
}
