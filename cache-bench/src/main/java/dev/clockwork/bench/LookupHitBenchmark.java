package dev.clockwork.bench;

import com.github.benmanes.caffeine.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueReader;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
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

/**
 * Lookup hits only: every key drawn is resident, nothing is inserted or evicted while measuring.
 * Measures the cost of finding an entry and, in the {@code Read} variants, reading 8 bytes of it.
 *
 * <ul>
 *   <li><b>Clockwork</b>: a {@link FixedHyperClockCache} ({@code table=fixed}), an
 *       {@link AutoHyperClockCache} ({@code table=auto}, grown to fit while filling) or an
 *       {@link LruCache} ({@code table=lru}: default pool ratios 0.5/0, capacity with room for
 *       every entry plus 25 %, so nothing is evicted) holding
 *       {@code entries} 64-byte values in native memory under 16-byte keys {@code (index, 0)}.
 *       {@code lookupRelease} = lookup (HyperClock: pins the entry with one atomic add on its
 *       slot; LRU: takes the shard's lock and unlinks the entry from its list) + release
 *       (HyperClock: another atomic add; LRU: the lock again, and the entry goes back to the
 *       newest end of the high pool, as a hit); {@code lookupReadRelease} also
 *       reads the value's first long through {@code value(h)}. Nothing is copied.
 *       {@code get} copies the whole value into a thread's buffer without taking a reference
 *       (HyperClock tables; LRU pins while copying), then reads its first long.</li>
 *   <li><b>Caffeine</b>: a bounded {@code Cache<Long, byte[]>} ({@code maximumSize = entries},
 *       maintenance run on the calling thread) holding the same number of 64-byte arrays on the
 *       heap. Keys are {@code Long}s boxed once at setup, so lookups allocate no key.
 *       {@code getIfPresent} returns the stored reference (nothing copied, nothing pinned);
 *       {@code getIfPresentRead} also reads the array's first long.</li>
 *   <li><b>The floor</b> ({@link FloorState}): two atomic adds around a key compare at the slot
 *       the key indexes; {@code floor_hashedAcquireCompareRelease} finds the slot by hashing and
 *       probing first ({@link HashedFloorState}).</li>
 * </ul>
 * Both walk the same shared array of pseudo-random indices in {@code [0, entries)}; each thread
 * starts at its own offset. Methods ending {@code _1t} run on one thread, {@code _2t} on two
 * threads sharing one cache (so the hottest slots bounce between cores).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class LookupHitBenchmark {
    // CHECKSTYLE.OFF: InlineQualifiedName (a name clash: Cache is imported from Caffeine)
    /** Clockwork's miss handle. */
    private static final long CLOCKWORK_MISS = dev.clockwork.cache.Cache.MISS;
    // CHECKSTYLE.ON: InlineQualifiedName

    static final int VALUE_BYTES = 64;
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Resident entries: ~L2-sized, ~L3-sized and DRAM-sized working sets. */
    @Param({"1024", "65536", "1048576"})
    public int entries;

    /** Whether Clockwork counts hits and misses (a striped counter add per lookup). */
    /** Admission policy: {@code none} or {@code tinylfu} (every lookup is recorded). */
    @Param({"none"})
    public String admission;

    static AdmissionPolicy admissionPolicy(String name) {
        return switch (name) {
            case "none" -> AdmissionPolicy.NONE;
            case "tinylfu" -> AdmissionPolicy.TINY_LFU;
            default -> throw new IllegalArgumentException("admission: " + name);
        };
    }

    @Param({"true"})
    public boolean recordStats;

    /** The key sequence: pseudo-random entry indices; length a power of two, at least 4096. */
    int[] keys;
    int keyMask;

    @Setup(Level.Trial)
    public void makeKeys() {
        keys = BenchRandom.uniformKeys(entries);
        keyMask = keys.length - 1;
    }

    @State(Scope.Benchmark)
    public static class ClockworkState {
        /**
         * Which cache: HyperClock "fixed" (sized for 64-byte entries) or "auto" (grown), or
         * "lru" ({@link LruCache}, default pool ratios, room for every entry).
         */
        @Param({"fixed", "auto", "lru"})
        String table;

        ShardedCache cache;

        @Setup(Level.Trial)
        public void fill(LookupHitBenchmark bench) {
            int n = bench.entries;
            AdmissionPolicy policy = admissionPolicy(bench.admission);
            cache = switch (table) {
                case "auto" -> buildAuto(n, VALUE_BYTES, bench.recordStats, policy);
                case "fixed" -> buildToHold(n, VALUE_BYTES, bench.recordStats, policy);
                case "lru" -> buildLru(n, VALUE_BYTES, bench.recordStats, policy);
                default -> throw new IllegalArgumentException("table: " + table);
            };
            byte[] value = new byte[VALUE_BYTES];
            for (int i = 0; i < n; i++) {
                LONG_LE.set(value, 0, (long) i);
                if (!cache.insert(i, 0L, value, 0, VALUE_BYTES, VALUE_BYTES, Priority.LOW)) {
                    throw new IllegalStateException("insert refused at " + i);
                }
            }
            if (cache instanceof HyperClockCache hcc) {
                System.out.printf("%nclockwork %s: capacity %d B, %d shard(s), %d slots (load "
                        + "%.2f)%n",
                        table, hcc.capacity(), hcc.numShards(), hcc.tableSlots(),
                        (double) n / hcc.tableSlots());
            } else if (cache instanceof LruCache lru) {
                System.out.printf("%nclockwork %s: capacity %d B, %d shard(s), usage %d B,"
                                + " metadata %d B, pools %s%n",
                        table, lru.capacity(), lru.numShards(), lru.usage(),
                        lru.metadataBytes(), lru.poolUsage());
            }
            if (cache.entryCount() != n) {
                throw new IllegalStateException("Clockwork holds " + cache.entryCount()
                        + " entries, expected " + n);
            }
            for (int i = 0; i < n; i++) {
                long h = cache.lookup(i, 0L);
                if (h == CLOCKWORK_MISS
                        || cache.value(h).get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != i) {
                    throw new IllegalStateException("Clockwork lost key " + i);
                }
                cache.release(h);
            }
        }

        /**
         * The smallest capacity (in 1/16 steps) at which the default sizing holds {@code n}
         * entries with 10% to spare: the whole table is charged up front, so capacity must cover
         * table bytes plus the values, and the occupancy limit must exceed {@code n}.
         */
        static FixedHyperClockCache buildToHold(int n, boolean recordStats) {
            return buildToHold(n, VALUE_BYTES, recordStats);
        }

        /** As {@link #buildToHold(int, boolean)}, for values of {@code valueBytes}. */
        static FixedHyperClockCache buildToHold(int n, int valueBytes, boolean recordStats) {
            return buildToHold(n, valueBytes, recordStats, AdmissionPolicy.NONE);
        }

        static FixedHyperClockCache buildToHold(int n, int valueBytes, boolean recordStats,
                                                AdmissionPolicy admission) {
            long spare = (long) n + n / 10;
            long capacity = spare * valueBytes;
            for (;;) {
                FixedHyperClockCache c = HyperClockCache.builder()
                        .capacity(capacity)
                        .estimatedEntryCharge(valueBytes)
                        .numShardBits(-1)
                        .recordStats(recordStats)
                        .admission(admission)
                        .build();
                long perShard = capacity / c.numShards();
                long tablePerShard = c.tableSlots() / c.numShards() * 64;
                long valuesPerShard = spare * valueBytes / c.numShards();
                if (tablePerShard + valuesPerShard <= perShard && c.occupancyLimit() >= spare) {
                    return c;
                }
                c.close();
                capacity += capacity / 16;
            }
        }

        /**
         * An LRU cache (default pool ratios) with room for {@code n} entries plus 25 %: each
         * charges its value and its 64-byte record; the spare covers uneven shards.
         */
        static LruCache buildLru(int n, boolean recordStats) {
            return buildLru(n, VALUE_BYTES, recordStats);
        }

        /** As {@link #buildLru(int, boolean)}, for values of {@code valueBytes}. */
        static LruCache buildLru(int n, int valueBytes, boolean recordStats) {
            return buildLru(n, valueBytes, recordStats, AdmissionPolicy.NONE);
        }

        static LruCache buildLru(int n, int valueBytes, boolean recordStats,
                                 AdmissionPolicy admission) {
            long perEntry = valueBytes + 64;
            return LruCache.builder()
                    .capacity(Math.max(1L << 20, (long) n * perEntry * 5 / 4))
                    .numShardBits(-1)
                    .recordStats(recordStats)
                    .admission(admission)
                    .build();
        }

        /** An Auto cache with room for {@code n} entries and their slots, plus 25 %. */
        static AutoHyperClockCache buildAuto(int n, boolean recordStats) {
            return buildAuto(n, VALUE_BYTES, recordStats);
        }

        /** As {@link #buildAuto(int, boolean)}, for values of {@code valueBytes}. */
        static AutoHyperClockCache buildAuto(int n, int valueBytes, boolean recordStats) {
            return buildAuto(n, valueBytes, recordStats, AdmissionPolicy.NONE);
        }

        static AutoHyperClockCache buildAuto(int n, int valueBytes, boolean recordStats,
                                             AdmissionPolicy admission) {
            long perEntry = valueBytes + 2 * 64; // value + its slot, at the 0.6 load limit
            return HyperClockCache.builder()
                    .capacity(Math.max(1L << 20, (long) n * perEntry * 5 / 4))
                    .minAvgEntryCharge(valueBytes)
                    .numShardBits(-1)
                    .recordStats(recordStats)
                    .admission(admission)
                    .build();
        }

        @TearDown(Level.Trial)
        public void close() {
            cache.close();
        }
    }

    @State(Scope.Benchmark)
    public static class CaffeineState {
        Cache<Long, byte[]> cache;
        Long[] boxed;

        @Setup(Level.Trial)
        public void fill(LookupHitBenchmark bench) {
            int n = bench.entries;
            CaffeineFill fill = new CaffeineFill(n, i -> {
                byte[] value = new byte[VALUE_BYTES];
                LONG_LE.set(value, 0, (long) i);
                return value;
            });
            cache = fill.cache;
            boxed = fill.boxed;
            for (int i = 0; i < n; i++) {
                byte[] v = cache.getIfPresent(boxed[i]);
                if (v == null || (long) LONG_LE.get(v, 0) != i) {
                    throw new IllegalStateException("Caffeine lost key " + i);
                }
            }
        }
    }

    // ------------------------------------------------------------------ shared bodies

    private static long lookupRelease(ShardedCache cache, long key) {
        long h = cache.lookup(key, 0L);
        if (h != CLOCKWORK_MISS) {
            cache.release(h);
        }
        return h;
    }

    private static long lookupReadRelease(ShardedCache cache, long key) {
        long h = cache.lookup(key, 0L);
        if (h == CLOCKWORK_MISS) {
            return -1;
        }
        long first = cache.value(h).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        cache.release(h);
        return first;
    }

    /**
     * A thread's buffer for {@code get}: one value's bytes, then 128 bytes no one writes, so that
     * two threads' buffers (allocated side by side) never share a cache line.
     */
    @State(Scope.Thread)
    public static class CopyBuffer {
        final byte[] bytes = new byte[VALUE_BYTES + 128];
    }

    /** {@code get}: copies the value out without a reference, then reads its first long. */
    private static long get(ShardedCache cache, long key, byte[] dst) {
        int length = cache.get(key, 0L, dst, 0);
        return length < 0 ? -1 : (long) LONG_LE.get(dst, 0);
    }

    /** The value's first 8 bytes, read in place by {@code Cache.read}: no copy, no reference. */
    private static final ValueReader FIRST_LONG =
            value -> value.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);

    private static long read(ShardedCache cache, long key) {
        return cache.read(key, 0L, FIRST_LONG, -1);
    }

    private static byte[] getIfPresent(CaffeineState c, int key) {
        return c.cache.getIfPresent(c.boxed[key]);
    }

    private static long getIfPresentRead(CaffeineState c, int key) {
        byte[] v = c.cache.getIfPresent(c.boxed[key]);
        return v == null ? -1 : (long) LONG_LE.get(v, 0);
    }

    // ------------------------------------------------------------------ one thread

    @Benchmark
    @Threads(1)
    public long clockwork_lookupRelease_1t(ClockworkState c, KeyCursor cursor) {
        return lookupRelease(c.cache, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long clockwork_lookupReadRelease_1t(ClockworkState c, KeyCursor cursor) {
        return lookupReadRelease(c.cache, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long clockwork_get_1t(ClockworkState c, KeyCursor cursor, CopyBuffer buffer) {
        return get(c.cache, keys[cursor.next(keyMask)], buffer.bytes);
    }

    @Benchmark
    @Threads(1)
    public long clockwork_read_1t(ClockworkState c, KeyCursor cursor) {
        return read(c.cache, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public byte[] caffeine_getIfPresent_1t(CaffeineState c, KeyCursor cursor) {
        return getIfPresent(c, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long caffeine_getIfPresentRead_1t(CaffeineState c, KeyCursor cursor) {
        return getIfPresentRead(c, keys[cursor.next(keyMask)]);
    }

    // ------------------------------------------------------------------ the floor

    /**
     * The least a reference-counted clock lookup can do, the target's yardstick: {@code entries}
     * 64-byte slots in one native segment, each a meta word and a 16-byte key; a hit is an
     * atomic add on the slot's meta word (acquire a reference), a compare of both key words, and
     * another atomic add (release). No hashing (the slot is the key's index), no table, no
     * handle, no stats, no checks beyond the segment's own.
     */
    @State(Scope.Benchmark)
    public static class FloorState {
        static final long SLOT = 64;
        static final VarHandle META = ValueLayout.JAVA_LONG.varHandle();
        Arena arena;
        MemorySegment slots;

        @Setup(Level.Trial)
        public void fill(LookupHitBenchmark bench) {
            arena = Arena.ofShared();
            slots = arena.allocate(SLOT * bench.entries, 64);
            for (long i = 0; i < bench.entries; i++) {
                slots.set(ValueLayout.JAVA_LONG, i * SLOT + 8, i); // key0
                slots.set(ValueLayout.JAVA_LONG, i * SLOT + 16, 0L); // key1
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            arena.close();
        }
    }

    private static long floor(FloorState f, long key) {
        long slot = key * FloorState.SLOT;
        long meta = (long) FloorState.META.getAndAdd(f.slots, slot, 1L);
        boolean found = f.slots.get(ValueLayout.JAVA_LONG, slot + 8) == key
                && f.slots.get(ValueLayout.JAVA_LONG, slot + 16) == 0L;
        FloorState.META.getAndAdd(f.slots, slot, -1L);
        return found ? meta : -1;
    }

    @Benchmark
    @Threads(1)
    public long floor_acquireCompareRelease_1t(FloorState f, KeyCursor cursor) {
        return floor(f, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long floor_acquireCompareRelease_2t(FloorState f, KeyCursor cursor) {
        return floor(f, keys[cursor.next(keyMask)]);
    }

    /**
     * {@link FloorState} with the key found as a cache must find it: hashed ({@code KeyHash}, as
     * the caches hash keys), its home slot from the hash, and the slots after it probed with the
     * fixed table's double-hashing step until a plain look finds the key, in a table at most half
     * full. Each slot holds the meta word and the two hashed key words; at the key's slot the hit
     * is the floor's two atomic adds around the key compare. What a hash table adds to the floor
     * before any of a cache's own work.
     */
    @State(Scope.Benchmark)
    public static class HashedFloorState {
        static final long SEED = 0x2545_F491_4F6C_DD1DL;
        Arena arena;
        MemorySegment slots;
        long byteMask;

        @Setup(Level.Trial)
        public void fill(LookupHitBenchmark bench) {
            long n = bench.entries;
            long slotCount = Long.highestOneBit(2 * n - 1) << 1; // at most half full
            byteMask = slotCount * FloorState.SLOT - 1;
            arena = Arena.ofShared();
            slots = arena.allocate(slotCount * FloorState.SLOT, 64);
            for (long i = 0; i < n; i++) {
                long h0 = KeyHash.hash0(i, 0L, SEED);
                long h1 = KeyHash.hash1FromHash0(h0, 0L);
                long slot = (h1 * FloorState.SLOT) & byteMask;
                while (slots.get(ValueLayout.JAVA_LONG, slot + 8) != 0
                        || slots.get(ValueLayout.JAVA_LONG, slot + 16) != 0) {
                    slot = (slot + (h0 | 1) * FloorState.SLOT) & byteMask;
                }
                slots.set(ValueLayout.JAVA_LONG, slot + 8, h0);
                slots.set(ValueLayout.JAVA_LONG, slot + 16, h1);
            }
            for (long i = 0; i < n; i++) {
                if (hashedFloor(this, i) < 0) {
                    throw new IllegalStateException("hashed floor lost key " + i);
                }
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            arena.close();
        }
    }

    private static long hashedFloor(HashedFloorState f, long key) {
        long h0 = KeyHash.hash0(key, 0L, HashedFloorState.SEED);
        long h1 = KeyHash.hash1FromHash0(h0, 0L);
        MemorySegment slots = f.slots;
        for (long slot = (h1 * FloorState.SLOT) & f.byteMask;;
                slot = (slot + (h0 | 1) * FloorState.SLOT) & f.byteMask) {
            long k0 = slots.get(ValueLayout.JAVA_LONG, slot + 8);
            if (k0 == h0 && slots.get(ValueLayout.JAVA_LONG, slot + 16) == h1) {
                // A plain look found the key, as a clock lookup's does; then the floor's work.
                long meta = (long) FloorState.META.getAndAdd(slots, slot, 1L);
                boolean found = slots.get(ValueLayout.JAVA_LONG, slot + 8) == h0
                        && slots.get(ValueLayout.JAVA_LONG, slot + 16) == h1;
                FloorState.META.getAndAdd(slots, slot, -1L);
                return found ? meta : -1;
            }
            if (k0 == 0) {
                return -1;
            }
        }
    }

    @Benchmark
    @Threads(1)
    public long floor_hashedAcquireCompareRelease_1t(HashedFloorState f, KeyCursor cursor) {
        return hashedFloor(f, keys[cursor.next(keyMask)]);
    }

    // ------------------------------------------------------------------ two threads

    @Benchmark
    @Threads(2)
    public long clockwork_lookupRelease_2t(ClockworkState c, KeyCursor cursor) {
        return lookupRelease(c.cache, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long clockwork_lookupReadRelease_2t(ClockworkState c, KeyCursor cursor) {
        return lookupReadRelease(c.cache, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long clockwork_get_2t(ClockworkState c, KeyCursor cursor, CopyBuffer buffer) {
        return get(c.cache, keys[cursor.next(keyMask)], buffer.bytes);
    }

    @Benchmark
    @Threads(2)
    public long clockwork_read_2t(ClockworkState c, KeyCursor cursor) {
        return read(c.cache, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public byte[] caffeine_getIfPresent_2t(CaffeineState c, KeyCursor cursor) {
        return getIfPresent(c, keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long caffeine_getIfPresentRead_2t(CaffeineState c, KeyCursor cursor) {
        return getIfPresentRead(c, keys[cursor.next(keyMask)]);
    }
}
