package dev.clockwork.bench;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.Placement;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.CacheOptions;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.ShardedCache;
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
 * What entry kinds cost on the hot paths, each cache type with and without them:
 * {@code placement=priority} builds the cache without kinds and inserts with
 * {@link Priority#LOW} (every entry untagged, what every cache did before kinds);
 * {@code placement=kind} declares {@link EntryKind#DATA} and {@link EntryKind#INDEX} and inserts
 * with {@link EntryKind#DATA} (every entry tagged and counted).
 *
 * <ul>
 *   <li>{@code lookupRelease_1t}: a hit through the plain {@code lookup}, which counts no kind;
 *       on tagged entries it must cost what it costs on untagged ones.</li>
 *   <li>{@code lookupKindRelease_1t}: a hit through {@code lookup(key0, key1, kind)}: with
 *       kinds, the check of the kind and one opaque add to the thread's stripe beside the total's;
 *       without, {@link EntryKind#DEFAULT} (checked, counted in the totals only).</li>
 *   <li>{@code insert_1t}: a new key into a full cache, so every insert evicts: with kinds, an
 *       atomic add pair to the thread's stripe for the stored entry and one for each victim.</li>
 * </ul>
 * 64-byte values, admission off; lookups over {@code entries} resident keys (nothing evicted),
 * inserts into {@code capacityMiB}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class EntryKindBenchmark {
    static final int VALUE_BYTES = 64;

    @Param({"fixed", "auto", "lru"})
    public String table;

    /** {@code priority}: no kinds, untagged entries; {@code kind}: kinds, tagged entries. */
    @Param({"priority", "kind"})
    public String placement;

    @Param({"65536"})
    public int entries;

    @Param({"64"})
    public int capacityMiB;

    int[] keys;
    int keyMask;
    /** What inserts give. */
    Placement insertAs;
    /** What {@code lookupKindRelease_1t} names. */
    EntryKind lookUpAs;

    @Setup(Level.Trial)
    public void makeKeys() {
        keys = BenchRandom.uniformKeys(entries);
        keyMask = keys.length - 1;
        boolean kinds = switch (placement) {
            case "priority" -> false;
            case "kind" -> true;
            default -> throw new IllegalArgumentException("placement: " + placement);
        };
        insertAs = kinds ? EntryKind.DATA : Priority.LOW;
        lookUpAs = kinds ? EntryKind.DATA : EntryKind.DEFAULT;
    }

    /** A cache of {@code table} for {@code capacity} bytes, with the kinds if placed by kind. */
    ShardedCache build(long capacity) {
        CacheOptions<?> builder = switch (table) {
            case "fixed" -> HyperClockCache.builder().capacity(capacity)
                    .estimatedEntryCharge(VALUE_BYTES);
            case "auto" -> HyperClockCache.builder().capacity(capacity)
                    .minAvgEntryCharge(VALUE_BYTES);
            case "lru" -> LruCache.builder().capacity(capacity);
            default -> throw new IllegalArgumentException("table: " + table);
        };
        builder.admission(AdmissionPolicy.NONE);
        if (insertAs instanceof EntryKind) {
            builder.kinds(EntryKind.DATA, EntryKind.INDEX);
        }
        return builder.build();
    }

    /** {@code entries} resident entries, with room to spare: lookups only hit. */
    @State(Scope.Benchmark)
    public static class Resident {
        ShardedCache cache;

        @Setup(Level.Trial)
        public void fill(EntryKindBenchmark bench) {
            // Four times the values and slot metadata: no eviction in any table.
            cache = bench.build(4L * bench.entries * (VALUE_BYTES + 128));
            byte[] value = new byte[VALUE_BYTES];
            for (int i = 0; i < bench.entries; i++) {
                if (!cache.insert(i, 0L, value, 0, VALUE_BYTES, VALUE_BYTES, bench.insertAs)) {
                    throw new IllegalStateException("fill refused key " + i);
                }
            }
            if (cache.entryCount() != bench.entries) {
                throw new IllegalStateException("resident " + cache.entryCount());
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            cache.close();
        }
    }

    /** A cache filled to capacity, and the next key never inserted. */
    @State(Scope.Benchmark)
    public static class Full {
        ShardedCache cache;
        long next;
        byte[] value = new byte[VALUE_BYTES];

        @Setup(Level.Trial)
        public void fill(EntryKindBenchmark bench) {
            long capacity = (long) bench.capacityMiB << 20;
            cache = bench.build(capacity);
            for (next = 0; next < capacity / VALUE_BYTES; next++) {
                cache.insert(next, 0L, value, 0, VALUE_BYTES, VALUE_BYTES, bench.insertAs);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            cache.close();
        }
    }

    private static long released(Cache cache, long handle) {
        if (handle == Cache.MISS) {
            return -1;
        }
        cache.release(handle);
        return handle;
    }

    @Benchmark
    @Threads(1)
    public long lookupRelease_1t(Resident r, KeyCursor cursor) {
        return released(r.cache, r.cache.lookup(keys[cursor.next(keyMask)], 0L));
    }

    @Benchmark
    @Threads(1)
    public long lookupKindRelease_1t(Resident r, KeyCursor cursor) {
        return released(r.cache, r.cache.lookup(keys[cursor.next(keyMask)], 0L, lookUpAs));
    }

    @Benchmark
    @Threads(1)
    public boolean insert_1t(Full f) {
        long key = f.next++;
        f.value[0] = (byte) key;
        return f.cache.insert(key, 0L, f.value, 0, VALUE_BYTES, VALUE_BYTES, insertAs);
    }
}
