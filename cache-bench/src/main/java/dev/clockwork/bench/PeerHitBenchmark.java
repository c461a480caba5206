package dev.clockwork.bench;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.NativeCache;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.caffinitas.ohc.CacheSerializer;
import org.caffinitas.ohc.Eviction;
import org.caffinitas.ohc.OHCache;
import org.caffinitas.ohc.OHCacheBuilder;
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
 * Lookup hits against the peers, in one run: every key drawn is resident, nothing is inserted or
 * evicted while measuring. What each cache stores and what a hit costs it:
 *
 * <ul>
 *   <li>{@code clockwork-fixed}, {@code clockwork-auto}, {@code clockwork-lru}: values in native
 *       memory. {@code hit}: lookup (pins), read the value's first and last byte through the
 *       zero-copy {@code value(h)} view, release. {@code hitCopy}: lookup, copy the value into
 *       the thread's own buffer ({@code copyValue}), release.</li>
 *   <li>{@code caffeine}: a bounded {@code Cache<Long, byte[]>} (W-TinyLFU) on the heap;
 *       {@code hit} = {@code getIfPresent} (returns the stored array, nothing copied) and the
 *       two byte reads; {@code hitCopy} also copies the array into the thread's buffer.</li>
 *   <li>{@code chm}: a plain {@code ConcurrentHashMap<Long, byte[]>}, unbounded, no policy: the
 *       on-heap upper bound; same bodies as Caffeine.</li>
 *   <li>{@code ohc-linked}, {@code ohc-chunked}: OHC's off-heap cache (LRU, 16 segments by
 *       default); its {@code get} copies the value out of native memory into a new
 *       {@code byte[]} through the value serializer, so {@code hit} and {@code hitCopy} both
 *       pay a copy and an allocation ({@code hitCopy} then copies into the buffer too).</li>
 * </ul>
 * Keys are {@code (index, 0)} for Clockwork and boxed {@code Long}s (boxed once at setup) for
 * the others. Each parameter combination runs in its own fork, so each run's call sites see one
 * cache type.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED",
    // OHC: sun.misc.Unsafe memory access (deprecated since JDK 23), and its chunked
    // implementation reads DirectBuffer addresses.
    "--sun-misc-unsafe-memory-access=allow", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class PeerHitBenchmark {
    @Param({"clockwork-fixed", "clockwork-auto", "clockwork-lru", "caffeine", "chm",
        "ohc-linked", "ohc-chunked"})
    public String cache;

    @Param({"64", "1024", "8192"})
    public int valueBytes;

    /** Resident entries. */
    @Param({"65536"})
    public int entries;

    int[] keys;
    int keyMask;
    Peer peer;

    /** One cache behind the two benchmark bodies. */
    interface Peer extends AutoCloseable {
        /** A hit that reads the value's first and last byte without copying it, if it can. */
        long hit(int key);

        /** A hit that copies the value into {@code buffer}; returns a byte of it. */
        long hitCopy(int key, byte[] buffer);

        @Override
        void close();
    }

    @Setup(Level.Trial)
    public void setUp() {
        int length = BenchRandom.ceilPow2(Math.max(4096, entries));
        BenchRandom random = new BenchRandom(42);
        keys = new int[length];
        for (int i = 0; i < length; i++) {
            keys[i] = random.nextInt(entries);
        }
        keyMask = length - 1;
        peer = switch (cache) {
            case "clockwork-fixed", "clockwork-auto", "clockwork-lru" -> clockwork();
            case "caffeine" -> onHeap(Caffeine.newBuilder().maximumSize(entries)
                    .executor(Runnable::run).<Long, byte[]>build().asMap());
            case "chm" -> onHeap(new ConcurrentHashMap<>(entries * 2));
            case "ohc-linked" -> ohc(false);
            case "ohc-chunked" -> ohc(true);
            default -> throw new IllegalArgumentException("cache: " + cache);
        };
        for (int i = 0; i < entries; i++) {
            if (peer.hit(i) != ends((byte) i, (byte) i)) {
                throw new IllegalStateException(cache + " lost key " + i);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        peer.close();
    }

    /** A value's first and last byte as one number, so that neither read can be dropped. */
    static long ends(byte first, byte last) {
        return ((long) first << 8) | (last & 0xFF);
    }

    private byte[] value(int key) {
        byte[] v = new byte[valueBytes];
        v[0] = (byte) key;
        v[valueBytes - 1] = (byte) key;
        return v;
    }

    private Peer clockwork() {
        NativeCache c = switch (cache) {
            case "clockwork-fixed" -> LookupHitBenchmark.ClockworkState.buildToHold(entries,
                    valueBytes, true);
            case "clockwork-auto" -> LookupHitBenchmark.ClockworkState.buildAuto(entries,
                    valueBytes, true);
            default -> LookupHitBenchmark.ClockworkState.buildLru(entries, valueBytes, true);
        };
        for (int i = 0; i < entries; i++) {
            byte[] v = value(i);
            if (!c.insert(i, 0L, v, 0, v.length, v.length, Priority.LOW)) {
                throw new IllegalStateException("insert refused at " + i);
            }
        }
        if (c.entryCount() != entries) {
            throw new IllegalStateException(cache + " holds " + c.entryCount() + " entries");
        }
        int last = valueBytes - 1;
        return new Peer() {
            @Override
            public long hit(int key) {
                long h = c.lookup(key, 0L);
                if (h == Cache.MISS) {
                    return -1;
                }
                var v = c.value(h);
                long read = ends(v.get(ValueLayout.JAVA_BYTE, 0), v.get(ValueLayout.JAVA_BYTE, last));
                c.release(h);
                return read;
            }

            @Override
            public long hitCopy(int key, byte[] buffer) {
                long h = c.lookup(key, 0L);
                if (h == Cache.MISS) {
                    return -1;
                }
                c.copyValue(h, buffer, 0);
                c.release(h);
                return buffer[last];
            }

            @Override
            public void close() {
                c.close();
            }
        };
    }

    private Peer onHeap(java.util.concurrent.ConcurrentMap<Long, byte[]> map) {
        Long[] boxed = new Long[entries];
        for (int i = 0; i < entries; i++) {
            boxed[i] = (long) i;
            map.put(boxed[i], value(i));
        }
        if (map.size() != entries) {
            throw new IllegalStateException(cache + " holds " + map.size() + " entries");
        }
        return new ArrayPeer(boxed, map::get, map::clear);
    }

    /**
     * A cache whose {@code get} returns a {@code byte[]}: the stored one (on-heap peers) or a
     * fresh copy (OHC). Each fork builds one kind, so {@code get} stays monomorphic.
     */
    private record ArrayPeer(Long[] boxed, java.util.function.Function<Long, byte[]> get,
                             Runnable closer) implements Peer {
        @Override
        public long hit(int key) {
            byte[] v = get.apply(boxed[key]);
            return v == null ? -1 : ends(v[0], v[v.length - 1]);
        }

        @Override
        public long hitCopy(int key, byte[] buffer) {
            byte[] v = get.apply(boxed[key]);
            if (v == null) {
                return -1;
            }
            System.arraycopy(v, 0, buffer, 0, v.length);
            return buffer[v.length - 1];
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    /** Values as {@code byte[]}: OHC copies them in on put and out, into a new array, on get. */
    private static final CacheSerializer<byte[]> BYTES = new CacheSerializer<>() {
        @Override
        public void serialize(byte[] value, ByteBuffer buf) {
            buf.put(value);
        }

        @Override
        public byte[] deserialize(ByteBuffer buf) {
            byte[] v = new byte[buf.remaining()];
            buf.get(v);
            return v;
        }

        @Override
        public int serializedSize(byte[] value) {
            return value.length;
        }
    };

    private static final CacheSerializer<Long> LONGS = new CacheSerializer<>() {
        @Override
        public void serialize(Long value, ByteBuffer buf) {
            buf.putLong(value);
        }

        @Override
        public Long deserialize(ByteBuffer buf) {
            return buf.getLong();
        }

        @Override
        public int serializedSize(Long value) {
            return Long.BYTES;
        }
    };

    private Peer ohc(boolean chunked) {
        long perEntry = valueBytes + Long.BYTES + 128; // room for OHC's own entry overhead
        OHCacheBuilder<Long, byte[]> b = OHCacheBuilder.<Long, byte[]>newBuilder()
                .keySerializer(LONGS)
                .valueSerializer(BYTES)
                .capacity((long) entries * perEntry * 5 / 4)
                .eviction(Eviction.LRU);
        if (chunked) {
            b.chunkSize(1 << 20).fixedEntrySize(Long.BYTES, valueBytes);
        }
        OHCache<Long, byte[]> ohc = b.build();
        Long[] boxed = new Long[entries];
        for (int i = 0; i < entries; i++) {
            boxed[i] = (long) i;
            if (!ohc.put(boxed[i], value(i))) {
                throw new IllegalStateException("OHC refused key " + i);
            }
        }
        if (ohc.size() != entries) {
            throw new IllegalStateException(cache + " holds " + ohc.size() + " entries");
        }
        return new ArrayPeer(boxed, ohc::get, () -> {
            try {
                ohc.close();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Each thread's copy-out buffer, as large as a value. */
    @State(Scope.Thread)
    public static class Buffer {
        byte[] bytes;

        @Setup(Level.Trial)
        public void allocate(PeerHitBenchmark bench) {
            bytes = new byte[bench.valueBytes];
        }
    }

    @Benchmark
    @Threads(1)
    public long hit_1t(KeyCursor cursor) {
        return peer.hit(keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(2)
    public long hit_2t(KeyCursor cursor) {
        return peer.hit(keys[cursor.next(keyMask)]);
    }

    @Benchmark
    @Threads(1)
    public long hitCopy_1t(KeyCursor cursor, Buffer buffer) {
        return peer.hitCopy(keys[cursor.next(keyMask)], buffer.bytes);
    }

    @Benchmark
    @Threads(2)
    public long hitCopy_2t(KeyCursor cursor, Buffer buffer) {
        return peer.hitCopy(keys[cursor.next(keyMask)], buffer.bytes);
    }
}
