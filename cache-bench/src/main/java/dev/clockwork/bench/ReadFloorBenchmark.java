package dev.clockwork.bench;

import static dev.clockwork.bench.BenchPeer.ends;

import com.github.benmanes.caffeine.cache.Cache;
import dev.clockwork.bench.LookupHitBenchmark.ClockworkState;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueReader;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.ShardedCache;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * A read hit against its floors, in nanoseconds per hit: every key drawn is resident (uniform
 * over {@code entries}, the shared sequence of {@link BenchRandom#uniformKeys} walked by
 * {@link KeyCursor}), and every hit reads its value's first and last byte, or copies it out.
 *
 * <ul>
 *   <li><b>The two-level floor, FFM</b> ({@code floorFfm}): {@code entries} 64-byte slots in one
 *       native segment, slot {@code k} holding key {@code (k, KEY1)}, the value's address and its
 *       length; the values, {@code valueBytes} each, in a second native segment. A hit computes
 *       the slot from the key (no hash, no probe), compares both key words, loads the address and
 *       length, and reads the value's first and last byte through a segment over all memory
 *       scoped to the (shared) arena, as the cache reads its values. No atomic, no fence, no
 *       stamp, no stats, no heap object but the segments. It is the reference because a cache
 *       that keeps its index and its values apart in native memory cannot do less: the slot's
 *       line, then, depending on it, the value's line (or two, first and last byte). Variants,
 *       each one change: {@code floorFfmSized} reads the value by offset through the sized value
 *       segment (bounds checked against its size); {@code floorFfmUnaligned} reads the slot's
 *       words with {@code JAVA_LONG_UNALIGNED}; {@code floorFfmDirect} computes the value's
 *       address from the key (the slot is still read and its key compared, but the value no
 *       longer waits for it); {@code floorFfmSlot} stops after the slot (key compared, address
 *       and length loaded, no value read); {@code floorFfmChase} takes the next key from the
 *       value, so hits cannot overlap (the floor's latency; {@code floorFfm} is its throughput);
 *       {@code pages=huge} puts both segments on 2 MiB transparent huge pages
 *       ({@link HugePageMemory}) instead of malloc's 4 KiB pages.</li>
 *   <li><b>The two-level floor, heap</b> ({@code floorHeap}): the same on the heap: the slots a
 *       {@code long[]} of 8 longs per slot (key, key, length, index), the values one
 *       {@code byte[]} each. A {@code long[]} holds no reference, so the value's reference is in
 *       a {@code byte[][]} at the slot's index: its load waits for the key, not for the slot.
 *       {@code floorHeapChained} takes the value's index from the slot instead, so that its
 *       reference waits for the slot's line as the FFM floor's address does (slot, reference,
 *       value); {@code floorHeapSlot} stops after the slot; {@code floorHeapChase} chases as
 *       {@code floorFfmChase} does. Run the JVM with {@code -XX:+UseTransparentHugePages} for
 *       the heap on huge pages.</li>
 *   <li><b>The floors of a hash table</b> ({@link ProtocolFloor}): {@code floorHashed} finds the
 *       slot as a cache must (the key hashed, its home and the slots after it probed, a table at
 *       most half full); {@code floorSeqlock} then reads it as a HyperClock read without a
 *       reference does (stamp and meta word with acquire, address with acquire, length word
 *       checked, the value through a {@code ValueReader}, fence, length word again);
 *       {@code floorSeqlockDirect} the same with the value's bytes read directly.</li>
 *   <li><b>Caffeine</b>: a bounded {@code Cache<Long, byte[]>} at capacity ({@code maximumSize =
 *       entries}, maintenance on the calling thread), keys boxed once at setup.
 *       {@code caffeine_read} = {@code getIfPresent} + the first and last byte of the stored
 *       array; {@code caffeine_copy} = {@code getIfPresent} + {@code System.arraycopy} of the
 *       whole value into the thread's buffer.</li>
 *   <li><b>Clockwork</b>, built as {@link LookupHitBenchmark} builds it (every entry resident,
 *       checked): {@code table} fixed, auto or lru, {@code admission} the builder's default
 *       (TinyLFU) or none. {@code clockwork_read} = {@code Cache.read} with a reader of the first
 *       and last byte (HyperClock: without a reference; LRU: pinned); {@code clockwork_get} =
 *       {@code Cache.get} of the whole value into the thread's buffer.</li>
 * </ul>
 * Memory: the heap variants and Caffeine hold {@code entries * valueBytes} of arrays in a 6 GiB
 * heap (so not 1 M entries of 16 KiB); each fork builds only the states its method uses.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms6g", "-Xmx6g"})
@State(Scope.Benchmark)
public class ReadFloorBenchmark {
    /** The second key word of every floor slot: a compare that cannot be folded away. */
    static final long KEY1 = 0x5DEE_CE66_DL;
    private static final VarHandle INT_LE =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    @Param({"64", "1024", "4096", "16384"})
    public int valueBytes;

    /** Resident entries: an L3-sized slot table (4 MiB) and a DRAM-sized one (64 MiB). */
    @Param({"65536", "1048576"})
    public int entries;

    int[] keys;
    int keyMask;

    @Setup(Level.Trial)
    public void makeKeys() {
        keys = BenchRandom.uniformKeys(entries);
        keyMask = keys.length - 1;
    }

    /**
     * One cycle through {@code [0, n)} (Sattolo's shuffle, seed 7): {@code next[i]} is the key a
     * chasing variant reads after key {@code i}, stored in bytes 1..4 of {@code i}'s value.
     */
    static int[] cycle(int n) {
        int[] next = new int[n];
        for (int i = 0; i < n; i++) {
            next[i] = i;
        }
        BenchRandom random = new BenchRandom(7);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i);
            int t = next[i];
            next[i] = next[j];
            next[j] = t;
        }
        return next;
    }

    /** What every variant must read for key {@code i}: its first and last byte are {@code i}. */
    static long expected(int i) {
        return ends((byte) i, (byte) i);
    }

    // ------------------------------------------------------------------ the FFM floor

    /** Slot words: key, key, value address, value length, value offset (for the sized read). */
    @State(Scope.Benchmark)
    public static class FfmFloor {
        static final long SLOT = 64;

        /** {@code malloc}: the arena's memory (4 KiB pages); {@code huge}: 2 MiB pages. */
        @Param({"malloc"})
        public String pages;

        Arena arena;
        HugePageMemory hugeSlots;
        HugePageMemory hugeValues;
        MemorySegment slots;
        MemorySegment values;
        /** All memory, scoped to the arena: the cache's {@code CacheContext.all()}. */
        MemorySegment all;
        /** For {@code floorFfmDirect}: where value 0 is, and every value's length. */
        long valueBase;
        long valueLength;

        @Setup(Level.Trial)
        public void fill(ReadFloorBenchmark bench) {
            long n = bench.entries;
            int size = bench.valueBytes;
            arena = Arena.ofShared();
            switch (pages) {
                case "malloc" -> {
                    slots = arena.allocate(n * SLOT, SLOT);
                    values = arena.allocate(n * size, SLOT);
                }
                case "huge" -> {
                    hugeSlots = new HugePageMemory(n * SLOT);
                    hugeValues = new HugePageMemory(n * size);
                    slots = hugeSlots.segment(n * SLOT).reinterpret(arena, null);
                    values = hugeValues.segment(n * size).reinterpret(arena, null);
                }
                default -> throw new IllegalArgumentException("pages: " + pages);
            }
            all = MemorySegment.NULL.reinterpret(Long.MAX_VALUE, arena, null);
            valueBase = values.address();
            valueLength = size;
            int[] next = cycle((int) n);
            for (long i = 0; i < n; i++) {
                long slot = i * SLOT;
                long offset = i * size;
                slots.set(ValueLayout.JAVA_LONG, slot, i);
                slots.set(ValueLayout.JAVA_LONG, slot + 8, KEY1);
                slots.set(ValueLayout.JAVA_LONG, slot + 16, values.address() + offset);
                slots.set(ValueLayout.JAVA_LONG, slot + 24, size);
                slots.set(ValueLayout.JAVA_LONG, slot + 32, offset);
                values.set(ValueLayout.JAVA_BYTE, offset, (byte) i);
                values.set(ValueLayout.JAVA_BYTE, offset + size - 1, (byte) i);
                values.set(ValueLayout.JAVA_INT_UNALIGNED, offset + 1, next[(int) i]);
            }
            for (int i = 0; i < n; i++) {
                if (floorFfm(this, i) != expected(i) || floorFfmSized(this, i) != expected(i)
                        || floorFfmUnaligned(this, i) != expected(i)
                        || floorFfmDirect(this, i) != expected(i)) {
                    throw new IllegalStateException("FFM floor lost key " + i);
                }
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            arena.close();
            if (hugeSlots != null) {
                hugeSlots.close();
                hugeValues.close();
            }
        }
    }

    static long floorFfm(FfmFloor f, int key) {
        MemorySegment slots = f.slots;
        long slot = key * FfmFloor.SLOT;
        if (slots.get(ValueLayout.JAVA_LONG, slot) != key
                || slots.get(ValueLayout.JAVA_LONG, slot + 8) != KEY1) {
            return -1;
        }
        long address = slots.get(ValueLayout.JAVA_LONG, slot + 16);
        long length = slots.get(ValueLayout.JAVA_LONG, slot + 24);
        MemorySegment all = f.all;
        return ends(all.get(ValueLayout.JAVA_BYTE, address),
                all.get(ValueLayout.JAVA_BYTE, address + length - 1));
    }

    static long floorFfmSized(FfmFloor f, int key) {
        MemorySegment slots = f.slots;
        long slot = key * FfmFloor.SLOT;
        if (slots.get(ValueLayout.JAVA_LONG, slot) != key
                || slots.get(ValueLayout.JAVA_LONG, slot + 8) != KEY1) {
            return -1;
        }
        long offset = slots.get(ValueLayout.JAVA_LONG, slot + 32);
        long length = slots.get(ValueLayout.JAVA_LONG, slot + 24);
        MemorySegment values = f.values;
        return ends(values.get(ValueLayout.JAVA_BYTE, offset),
                values.get(ValueLayout.JAVA_BYTE, offset + length - 1));
    }

    static long floorFfmUnaligned(FfmFloor f, int key) {
        MemorySegment slots = f.slots;
        long slot = key * FfmFloor.SLOT;
        if (slots.get(ValueLayout.JAVA_LONG_UNALIGNED, slot) != key
                || slots.get(ValueLayout.JAVA_LONG_UNALIGNED, slot + 8) != KEY1) {
            return -1;
        }
        long address = slots.get(ValueLayout.JAVA_LONG_UNALIGNED, slot + 16);
        long length = slots.get(ValueLayout.JAVA_LONG_UNALIGNED, slot + 24);
        MemorySegment all = f.all;
        return ends(all.get(ValueLayout.JAVA_BYTE, address),
                all.get(ValueLayout.JAVA_BYTE, address + length - 1));
    }

    /**
     * The value's address computed from the key instead of loaded from the slot: the key is still
     * compared, but the value's loads no longer wait for the slot's line.
     */
    static long floorFfmDirect(FfmFloor f, int key) {
        MemorySegment slots = f.slots;
        long slot = key * FfmFloor.SLOT;
        if (slots.get(ValueLayout.JAVA_LONG, slot) != key
                || slots.get(ValueLayout.JAVA_LONG, slot + 8) != KEY1) {
            return -1;
        }
        long length = f.valueLength;
        long address = f.valueBase + key * length;
        MemorySegment all = f.all;
        return ends(all.get(ValueLayout.JAVA_BYTE, address),
                all.get(ValueLayout.JAVA_BYTE, address + length - 1));
    }

    /** The slot alone: key compared, address and length loaded and returned, no value read. */
    static long floorFfmSlot(FfmFloor f, int key) {
        MemorySegment slots = f.slots;
        long slot = key * FfmFloor.SLOT;
        if (slots.get(ValueLayout.JAVA_LONG, slot) != key
                || slots.get(ValueLayout.JAVA_LONG, slot + 8) != KEY1) {
            return -1;
        }
        return slots.get(ValueLayout.JAVA_LONG, slot + 16)
                + slots.get(ValueLayout.JAVA_LONG, slot + 24);
    }

    /**
     * {@link #floorFfm}, but the next key is read from this value (bytes 1..4): each hit waits
     * for the one before, so this is the floor's latency, where {@link #floorFfm} is its
     * throughput with hits overlapping.
     */
    static long floorFfmChase(FfmFloor f, Chase chase) {
        MemorySegment slots = f.slots;
        int key = chase.key;
        long slot = key * FfmFloor.SLOT;
        if (slots.get(ValueLayout.JAVA_LONG, slot) != key
                || slots.get(ValueLayout.JAVA_LONG, slot + 8) != KEY1) {
            return -1;
        }
        long address = slots.get(ValueLayout.JAVA_LONG, slot + 16);
        long length = slots.get(ValueLayout.JAVA_LONG, slot + 24);
        MemorySegment all = f.all;
        chase.key = all.get(ValueLayout.JAVA_INT_UNALIGNED, address + 1);
        return ends(all.get(ValueLayout.JAVA_BYTE, address),
                all.get(ValueLayout.JAVA_BYTE, address + length - 1));
    }

    /** A thread's place on the {@link #cycle}: the key its next chasing hit reads. */
    @State(Scope.Thread)
    public static class Chase {
        int key;

        @Setup(Level.Trial)
        public void start(ReadFloorBenchmark bench, ThreadParams thread) {
            key = thread.getThreadIndex() * (bench.entries / 2);
        }
    }

    // ------------------------------------------------------------------ the heap floor

    /**
     * Slot words: key, key, value length, value index; the value's array at the slot's index
     * ({@code floorHeap}), or at the index the slot holds ({@code floorHeapChained}).
     */
    @State(Scope.Benchmark)
    public static class HeapFloor {
        static final int SLOT_LONGS = 8;
        long[] slots;
        byte[][] values;

        @Setup(Level.Trial)
        public void fill(ReadFloorBenchmark bench) {
            int n = bench.entries;
            int size = bench.valueBytes;
            slots = new long[n * SLOT_LONGS];
            values = new byte[n][];
            int[] next = cycle(n);
            for (int i = 0; i < n; i++) {
                slots[i * SLOT_LONGS] = i;
                slots[i * SLOT_LONGS + 1] = KEY1;
                slots[i * SLOT_LONGS + 2] = size;
                slots[i * SLOT_LONGS + 3] = i;
                byte[] value = new byte[size];
                value[0] = (byte) i;
                value[size - 1] = (byte) i;
                INT_LE.set(value, 1, next[i]);
                values[i] = value;
            }
            for (int i = 0; i < n; i++) {
                if (floorHeap(this, i) != expected(i) || floorHeapChained(this, i) != expected(i)) {
                    throw new IllegalStateException("heap floor lost key " + i);
                }
            }
        }
    }

    static long floorHeap(HeapFloor f, int key) {
        long[] slots = f.slots;
        int slot = key * HeapFloor.SLOT_LONGS;
        if (slots[slot] != key || slots[slot + 1] != KEY1) {
            return -1;
        }
        int length = (int) slots[slot + 2];
        byte[] value = f.values[key];
        return ends(value[0], value[length - 1]);
    }

    /**
     * The value's reference found through the index the slot holds: its load waits for the
     * slot's line, as the FFM floor's value address does.
     */
    static long floorHeapChained(HeapFloor f, int key) {
        long[] slots = f.slots;
        int slot = key * HeapFloor.SLOT_LONGS;
        if (slots[slot] != key || slots[slot + 1] != KEY1) {
            return -1;
        }
        int length = (int) slots[slot + 2];
        byte[] value = f.values[(int) slots[slot + 3]];
        return ends(value[0], value[length - 1]);
    }

    /** {@link #floorHeap}, the next key read from this value (see {@link #floorFfmChase}). */
    static long floorHeapChase(HeapFloor f, Chase chase) {
        long[] slots = f.slots;
        int key = chase.key;
        int slot = key * HeapFloor.SLOT_LONGS;
        if (slots[slot] != key || slots[slot + 1] != KEY1) {
            return -1;
        }
        int length = (int) slots[slot + 2];
        byte[] value = f.values[key];
        chase.key = (int) INT_LE.get(value, 1);
        return ends(value[0], value[length - 1]);
    }

    static long floorHeapSlot(HeapFloor f, int key) {
        long[] slots = f.slots;
        int slot = key * HeapFloor.SLOT_LONGS;
        if (slots[slot] != key || slots[slot + 1] != KEY1) {
            return -1;
        }
        return slots[slot + 2];
    }

    // ------------------------------------------------------------------ the caches

    @State(Scope.Benchmark)
    public static class CaffeineState {
        Cache<Long, byte[]> cache;
        Long[] boxed;

        @Setup(Level.Trial)
        public void fill(ReadFloorBenchmark bench) {
            int n = bench.entries;
            CaffeineFill fill = new CaffeineFill(n, i -> {
                byte[] value = new byte[bench.valueBytes];
                value[0] = (byte) i;
                value[value.length - 1] = (byte) i;
                return value;
            });
            cache = fill.cache;
            boxed = fill.boxed;
            for (int i = 0; i < n; i++) {
                if (caffeineRead(this, i) != expected(i)) {
                    throw new IllegalStateException("Caffeine lost key " + i);
                }
            }
        }
    }

    @State(Scope.Benchmark)
    public static class Clockwork {
        /** HyperClock fixed or auto (read without a reference), or lru (read pinned). */
        @Param({"fixed", "auto", "lru"})
        public String table;

        /** {@code default}: the builder's (TinyLFU); {@code none}: admission off. */
        @Param({"default", "none"})
        public String admission;

        ShardedCache cache;

        @Setup(Level.Trial)
        public void fill(ReadFloorBenchmark bench) {
            int n = bench.entries;
            int size = bench.valueBytes;
            AdmissionPolicy policy = switch (admission) {
                case "default" -> AdmissionPolicy.TINY_LFU;
                case "none" -> AdmissionPolicy.NONE;
                default -> throw new IllegalArgumentException("admission: " + admission);
            };
            cache = switch (table) {
                case "fixed" -> ClockworkState.buildToHold(n, size, true, policy);
                case "auto" -> ClockworkState.buildAuto(n, size, true, policy);
                case "lru" -> ClockworkState.buildLru(n, size, true, policy);
                default -> throw new IllegalArgumentException("table: " + table);
            };
            byte[] value = new byte[size];
            for (int i = 0; i < n; i++) {
                value[0] = (byte) i;
                value[size - 1] = (byte) i;
                if (!cache.insert(i, 0L, value, 0, size, size, Priority.LOW)) {
                    throw new IllegalStateException("insert refused at " + i);
                }
            }
            if (cache.entryCount() != n) {
                throw new IllegalStateException("Clockwork holds " + cache.entryCount()
                        + " entries, expected " + n);
            }
            for (int i = 0; i < n; i++) {
                if (cache.read(i, 0L, ENDS, BenchPeer.MISS) != expected(i)) {
                    throw new IllegalStateException("Clockwork lost key " + i);
                }
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            cache.close();
        }
    }

    /**
     * A thread's copy buffer: one value, then 128 bytes no one writes, so that two threads'
     * buffers never share a cache line.
     */
    @State(Scope.Thread)
    public static class Buffer {
        byte[] bytes;

        @Setup(Level.Trial)
        public void allocate(ReadFloorBenchmark bench) {
            bytes = new byte[bench.valueBytes + 128];
        }
    }

    /** Reads the value's first and last byte in place. */
    static final ValueReader ENDS = value -> ends(value.get(ValueLayout.JAVA_BYTE, 0),
            value.get(ValueLayout.JAVA_BYTE, value.byteSize() - 1));

    static long clockworkRead(Clockwork c, int key) {
        return c.cache.read(key, 0L, ENDS, BenchPeer.MISS);
    }

    static long clockworkGet(Clockwork c, int key, byte[] buffer) {
        int length = c.cache.get(key, 0L, buffer, 0);
        return length < 0 ? BenchPeer.MISS : ends(buffer[0], buffer[length - 1]);
    }

    static long caffeineRead(CaffeineState c, int key) {
        byte[] value = c.cache.getIfPresent(c.boxed[key]);
        return value == null ? BenchPeer.MISS : ends(value[0], value[value.length - 1]);
    }

    static long caffeineCopy(CaffeineState c, int key, byte[] buffer) {
        byte[] value = c.cache.getIfPresent(c.boxed[key]);
        if (value == null) {
            return BenchPeer.MISS;
        }
        System.arraycopy(value, 0, buffer, 0, value.length);
        return ends(buffer[0], buffer[value.length - 1]);
    }

    // ------------------------------------------------------------------ one thread

    @Benchmark
    @Threads(1)
    public long floorFfm_1t(FfmFloor f, KeyCursor cursor) {
        return floorFfm(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long floorFfmSized_1t(FfmFloor f, KeyCursor cursor) {
        return floorFfmSized(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long floorFfmUnaligned_1t(FfmFloor f, KeyCursor cursor) {
        return floorFfmUnaligned(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long floorFfmDirect_1t(FfmFloor f, KeyCursor cursor) {
        return floorFfmDirect(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long floorFfmChase_1t(FfmFloor f, Chase chase) {
        return floorFfmChase(f, chase);
    }

    @Benchmark
    @Threads(1)
    public long floorHeapChase_1t(HeapFloor f, Chase chase) {
        return floorHeapChase(f, chase);
    }

    @Benchmark
    @Threads(1)
    public long floorFfmSlot_1t(FfmFloor f, KeyCursor cursor) {
        return floorFfmSlot(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long floorHashed_1t(ProtocolFloor f, KeyCursor cursor) {
        return ProtocolFloor.hashed(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long floorSeqlock_1t(ProtocolFloor f, KeyCursor cursor) {
        return ProtocolFloor.seqlock(f, keys[cursor.next(keyMask)], ENDS);
    }

    @Benchmark
    @Threads(1)
    public long floorSeqlockDirect_1t(ProtocolFloor f, KeyCursor cursor) {
        return ProtocolFloor.seqlock(f, keys[cursor.next(keyMask)], null);
    }

    @Benchmark
    @Threads(1)
    public long floorHeap_1t(HeapFloor f, KeyCursor cursor) {
        return floorHeap(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long floorHeapChained_1t(HeapFloor f, KeyCursor cursor) {
        return floorHeapChained(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long floorHeapSlot_1t(HeapFloor f, KeyCursor cursor) {
        return floorHeapSlot(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long caffeine_read_1t(CaffeineState c, KeyCursor cursor) {
        return caffeineRead(c, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long caffeine_copy_1t(CaffeineState c, KeyCursor cursor, Buffer buffer) {
        return caffeineCopy(c, keys[cursor.next(keyMask)], buffer.bytes);
    }

    @Benchmark
    @Threads(1)
    public long clockwork_read_1t(Clockwork c, KeyCursor cursor) {
        return clockworkRead(c, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long clockwork_get_1t(Clockwork c, KeyCursor cursor, Buffer buffer) {
        return clockworkGet(c, keys[cursor.next(keyMask)], buffer.bytes);
    }

    // ------------------------------------------------------------------ two threads

    @Benchmark
    @Threads(2)
    public long floorFfm_2t(FfmFloor f, KeyCursor cursor) {
        return floorFfm(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long floorHeap_2t(HeapFloor f, KeyCursor cursor) {
        return floorHeap(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long caffeine_read_2t(CaffeineState c, KeyCursor cursor) {
        return caffeineRead(c, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long caffeine_copy_2t(CaffeineState c, KeyCursor cursor, Buffer buffer) {
        return caffeineCopy(c, keys[cursor.next(keyMask)], buffer.bytes);
    }

    @Benchmark
    @Threads(2)
    public long clockwork_read_2t(Clockwork c, KeyCursor cursor) {
        return clockworkRead(c, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long clockwork_get_2t(Clockwork c, KeyCursor cursor, Buffer buffer) {
        return clockworkGet(c, keys[cursor.next(keyMask)], buffer.bytes);
    }
}
