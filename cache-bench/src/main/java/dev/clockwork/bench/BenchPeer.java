package dev.clockwork.bench;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.ValueReader;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import dev.clockwork.offheap.ShardedCache;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.caffinitas.ohc.CacheSerializer;
import org.caffinitas.ohc.DirectValueAccess;
import org.caffinitas.ohc.Eviction;
import org.caffinitas.ohc.OHCache;
import org.caffinitas.ohc.OHCacheBuilder;

/**
 * One cache behind the peer benchmarks' bodies, keyed by a number. What each stores and copies:
 *
 * <ul>
 *   <li>{@code clockwork-fixed}, {@code clockwork-auto}, {@code clockwork-lru}: key {@code (k, 0)}
 *       (16 bytes, in the slot or record); the value copied once into native memory on insert.
 *       {@link #hit} reads through the zero-copy {@code value(h)} view between lookup and
 *       release; {@link #hitCopy} copies into the caller's buffer with {@code get}, which takes no
 *       reference on the HyperClock tables (the LRU pins while it copies).</li>
 *   <li>{@code caffeine} (bounded, W-TinyLFU, default executor) and {@code chm} (a
 *       {@code ConcurrentHashMap}, unbounded, no policy: an on-heap upper bound): key a
 *       {@link Key16} object, the value a {@code byte[]} cloned from the caller's buffer on insert
 *       (the map keeps the reference it is given); a hit returns the stored array, no copy.</li>
 *   <li>{@code ohc-linked}, {@code ohc-chunked}: OHC 0.7.4, LRU, 16-byte keys serialized off-heap,
 *       the value copied into native memory on put. {@link #hit} uses {@code getDirect} (a
 *       read-only buffer over the entry, held by a reference count) where OHC has it (linked);
 *       elsewhere, and in {@link #hitCopy}, {@code get}, which copies the value out into a new
 *       {@code byte[]}.</li>
 * </ul>
 * A fork builds one kind only, so the calls stay monomorphic.
 */
abstract class BenchPeer implements AutoCloseable {
    static final long MISS = -1;

    static final String[] NAMES = {"clockwork-fixed", "clockwork-auto", "clockwork-lru",
        "caffeine", "chm", "ohc-linked", "ohc-chunked"};

    /** A hit that reads the value's first and last byte, without copying if it can; or MISS. */
    abstract long hit(long key);

    /**
     * {@link #hit} by the cache's cheapest way of reading a value in place: the same as
     * {@link #hit} for every peer but Clockwork, which reads without a reference there.
     */
    long hitInPlace(long key) {
        return hit(key);
    }

    /** A hit that copies the value into {@code buffer}; a byte of it, or MISS. */
    abstract long hitCopy(long key, byte[] buffer);

    /** Stores a copy of {@code value} under {@code key}; false if the cache refused it. */
    abstract boolean insert(long key, byte[] value);

    abstract boolean erase(long key);

    /** Entries resident now. */
    abstract long entryCount();

    /** Finishes pending policy work (Caffeine's maintenance), so that counts are settled. */
    void settle() {
    }

    /** True for a map that never evicts ({@code chm}). */
    boolean unbounded() {
        return false;
    }

    @Override
    public abstract void close();

    /** A value's first and last byte as one number, so that neither read can be dropped. */
    static long ends(byte first, byte last) {
        return ((long) first << 8) | (last & 0xFF);
    }

    /**
     * A cache of {@code capacity} bytes for values of {@code valueBytes}. Each peer counts
     * capacity its own way: Clockwork and OHC charge their own per-entry overhead against it,
     * Caffeine weighs an entry as key + value (16 + valueBytes), {@code chm} has none.
     * {@code keys} are the peers' key objects for {@code [0, keys.length)}, created once; null
     * means create one per call (the insert benchmark's ever-new keys). A Clockwork type is
     * built with its default admission (TinyLFU), or with none when its name ends in
     * {@value #NO_ADMISSION} ({@code clockwork-auto-none}).
     */
    /** The suffix of a Clockwork peer's name that turns its admission off. */
    static final String NO_ADMISSION = "-none";

    static BenchPeer open(String name, long capacity, int valueBytes, Key16[] keys) {
        // A Clockwork type with "-none" after it: admission off (the default is TinyLFU).
        AdmissionPolicy admission = name.startsWith("clockwork-") && name.endsWith(NO_ADMISSION)
                ? AdmissionPolicy.NONE : AdmissionPolicy.TINY_LFU;
        return switch (name.replace(NO_ADMISSION, "")) {
            case "clockwork-fixed" -> new Clockwork(HyperClockCache.builder()
                    .capacity(capacity).estimatedEntryCharge(valueBytes).admission(admission)
                    .build());
            case "clockwork-auto" -> new Clockwork(HyperClockCache.builder()
                    .capacity(capacity).minAvgEntryCharge(valueBytes).admission(admission)
                    .build());
            case "clockwork-lru" -> new Clockwork(LruCache.builder().capacity(capacity)
                    .admission(admission).build());
            case "caffeine" -> caffeine(capacity, keys);
            case "chm" -> new OnHeap(new ConcurrentHashMap<>(), keys, true, () -> { });
            case "ohc-linked" -> new Ohc(ohc(capacity, valueBytes, false), keys);
            case "ohc-chunked" -> new Ohc(ohc(capacity, valueBytes, true), keys);
            default -> throw new IllegalArgumentException("cache: " + name);
        };
    }

    private static BenchPeer caffeine(long capacity, Key16[] keys) {
        // CHECKSTYLE.OFF: InlineQualifiedName (a name clash: Cache is Clockwork's here)
        com.github.benmanes.caffeine.cache.Cache<Key16, byte[]> c = Caffeine.newBuilder()
                .maximumWeight(capacity)
                .<Key16, byte[]>weigher((k, v) -> 16 + v.length)
                .build();
        // CHECKSTYLE.ON: InlineQualifiedName
        return new OnHeap(c.asMap(), keys, false, c::cleanUp);
    }

    /** Clockwork through its {@link Cache} API. */
    static final class Clockwork extends BenchPeer {
        final ShardedCache cache;

        Clockwork(ShardedCache cache) {
            this.cache = cache;
        }

        /** Slot bytes of an Auto table (mapped, not malloc'd); 0 for the other tables. */
        long mappedTableBytes() {
            return cache instanceof AutoHyperClockCache auto
                    ? auto.tableSlots() * 64 : 0; // 64-byte slots (SlotLayout)
        }

        @Override
        long hit(long key) {
            long h = cache.lookup(key, 0L);
            if (h == Cache.MISS) {
                return MISS;
            }
            MemorySegment v = cache.value(h);
            long read = ends(v.get(ValueLayout.JAVA_BYTE, 0),
                    v.get(ValueLayout.JAVA_BYTE, v.byteSize() - 1));
            cache.release(h);
            return read;
        }

        /** Reads the value's ends in place without a reference ({@code Cache.read}). */
        private static final ValueReader ENDS = v -> ends(v.get(ValueLayout.JAVA_BYTE, 0),
                v.get(ValueLayout.JAVA_BYTE, v.byteSize() - 1));

        @Override
        long hitInPlace(long key) {
            return cache.read(key, 0L, ENDS, MISS);
        }

        @Override
        long hitCopy(long key, byte[] buffer) {
            int n = cache.get(key, 0L, buffer, 0);
            return n == Cache.ABSENT ? MISS : buffer[n - 1];
        }

        @Override
        boolean insert(long key, byte[] value) {
            return cache.insert(key, 0L, value, 0, value.length, value.length, Priority.LOW);
        }

        @Override
        boolean erase(long key) {
            return cache.erase(key, 0L);
        }

        @Override
        long entryCount() {
            return cache.entryCount();
        }

        @Override
        public void close() {
            cache.close();
        }
    }

    /** The peers whose keys are objects: pre-created when the key space is bounded. */
    abstract static class Keyed extends BenchPeer {
        private final Key16[] keys;

        Keyed(Key16[] keys) {
            this.keys = keys;
        }

        final Key16 key(long k) {
            return keys != null ? keys[(int) k] : new Key16(0, k);
        }

        /** Copies a found array into the caller's buffer; a byte of it, or MISS. */
        static long copyOut(byte[] value, byte[] buffer) {
            if (value == null) {
                return MISS;
            }
            System.arraycopy(value, 0, buffer, 0, value.length);
            return buffer[value.length - 1];
        }
    }

    /** Caffeine or ConcurrentHashMap: stored arrays handed out by reference. */
    static final class OnHeap extends Keyed {
        private final ConcurrentMap<Key16, byte[]> map;
        private final boolean unbounded;
        private final Runnable settle;

        OnHeap(ConcurrentMap<Key16, byte[]> map, Key16[] keys, boolean unbounded,
               Runnable settle) {
            super(keys);
            this.map = map;
            this.unbounded = unbounded;
            this.settle = settle;
        }

        @Override
        void settle() {
            settle.run();
        }

        @Override
        long hit(long key) {
            byte[] v = map.get(key(key));
            return v == null ? MISS : ends(v[0], v[v.length - 1]);
        }

        @Override
        long hitCopy(long key, byte[] buffer) {
            return copyOut(map.get(key(key)), buffer);
        }

        @Override
        boolean insert(long key, byte[] value) {
            map.put(key(key), value.clone());
            return true;
        }

        @Override
        boolean erase(long key) {
            return map.remove(key(key)) != null;
        }

        @Override
        long entryCount() {
            return map.size();
        }

        @Override
        boolean unbounded() {
            return unbounded;
        }

        @Override
        public void close() {
            map.clear();
        }
    }

    /** OHC: copies in on put; {@code getDirect} where supported, else {@code get} copies out. */
    static final class Ohc extends Keyed {
        private final OHCache<Key16, byte[]> ohc;
        private final boolean direct;

        Ohc(OHCache<Key16, byte[]> ohc, Key16[] keys) {
            super(keys);
            this.ohc = ohc;
            this.direct = supportsDirect(ohc);
        }

        private static boolean supportsDirect(OHCache<Key16, byte[]> ohc) {
            try (DirectValueAccess ignored = ohc.getDirect(new Key16(-1, -1))) {
                return true;
            } catch (UnsupportedOperationException e) {
                return false;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        long hit(long key) {
            if (!direct) {
                byte[] v = ohc.get(key(key));
                return v == null ? MISS : ends(v[0], v[v.length - 1]);
            }
            DirectValueAccess access = ohc.getDirect(key(key));
            if (access == null) {
                return MISS;
            }
            ByteBuffer b = access.buffer();
            long read = ends(b.get(0), b.get(b.limit() - 1));
            closeQuietly(access);
            return read;
        }

        @Override
        long hitCopy(long key, byte[] buffer) {
            return copyOut(ohc.get(key(key)), buffer);
        }

        @Override
        boolean insert(long key, byte[] value) {
            return ohc.put(key(key), value);
        }

        @Override
        boolean erase(long key) {
            return ohc.remove(key(key));
        }

        @Override
        long entryCount() {
            return ohc.size();
        }

        @Override
        public void close() {
            closeQuietly(ohc);
        }

        private static void closeQuietly(Closeable c) {
            try {
                c.close();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Values as {@code byte[]}: copied in on put and out, into a new array, on get. */
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

    /**
     * OHC with its defaults (segments = 2 x cores, LRU); chunked: chunks (1 MiB unless the cache is
 * small) of fixed-size
     * entries (16-byte key, {@code valueBytes} value), as the reference measurements ran it.
     */
    private static OHCache<Key16, byte[]> ohc(long capacity, int valueBytes, boolean chunked) {
        OHCacheBuilder<Key16, byte[]> b = OHCacheBuilder.<Key16, byte[]>newBuilder()
                .keySerializer(Key16.SERIALIZER)
                .valueSerializer(BYTES)
                .capacity(capacity)
                .eviction(Eviction.LRU);
        if (chunked) {
            // 1 MiB chunks, smaller for small caches (a chunk must fit a segment several times)
            b.chunkSize((int) Math.min(1 << 20, Long.highestOneBit(capacity / 64)))
                    .fixedEntrySize(16, valueBytes);
        }
        return b.build();
    }
}
