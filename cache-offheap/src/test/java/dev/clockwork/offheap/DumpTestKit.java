package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.cache.dump.DumpReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Values that name their key, dumps in memory, and what a cache or a dump holds, for tests. */
final class DumpTestKit {
    private DumpTestKit() {
    }

    /** A key of a cache, or of a dump. */
    record Key(long key0, long key1) {
    }

    /** An entry as a dump or a visit shows it. */
    record Entry(Key key, byte[] value, long charge, Priority priority) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && key.equals(e.key) && Arrays.equals(value, e.value)
                    && charge == e.charge;
        }

        @Override
        public int hashCode() {
            return key.hashCode();
        }
    }

    static long key0(long k) {
        return 0x0D0B_0000_0000_0000L ^ (k * 0x9E3779B97F4A7C15L);
    }

    static long key1(long k) {
        return ~k * 0xC2B2AE3D27D4EB4FL;
    }

    /** A value of {@code length} bytes that only key {@code k} has: every byte depends on both. */
    static byte[] value(long k, int length) {
        byte[] v = new byte[length];
        for (int i = 0; i < length; i++) {
            v[i] = (byte) (k * 31 + i * 7 + (i >>> 8));
        }
        return v;
    }

    /** Whether {@code v} is a whole value of key id {@code k} (as {@link #value} made it). */
    static boolean isValueOf(long k, byte[] v) {
        return Arrays.equals(v, value(k, v.length));
    }

    /** The key id of a key made by {@link #key0}/{@link #key1}, or -1. */
    static long idOf(Key key) {
        long k = ~(key.key1 * 0x0BA7_9078_168D_4BAFL); // inverse of the odd constant, mod 2^64
        return key0(k) == key.key0 && key1(k) == key.key1 ? k : -1;
    }

    static byte[] dumpToBytes(EngineCache cache) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            cache.dump(Channels.newChannel(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static LoadSummary load(EngineCache cache, byte[] dump) throws IOException {
        return cache.load(Channels.newChannel(new ByteArrayInputStream(dump)));
    }

    /** The records of a dump, in order. */
    static List<Entry> records(byte[] dump) throws IOException {
        DumpReader reader = new DumpReader(Channels.newChannel(new ByteArrayInputStream(dump)));
        List<Entry> out = new ArrayList<>();
        while (reader.next()) {
            byte[] v = Arrays.copyOfRange(reader.valueArray(), reader.valueOffset(),
                    reader.valueOffset() + reader.valueLength());
            out.add(new Entry(new Key(reader.key0(), reader.key1()), v, reader.charge(),
                    reader.priority()));
        }
        return out;
    }

    /** What a cache holds, by a visit. */
    static Map<Key, Entry> contents(Cache cache) {
        Map<Key, Entry> out = new HashMap<>();
        cache.forEachEntry((k0, k1, value, charge) -> {
            Key key = new Key(k0, k1);
            Entry before = out.put(key, new Entry(key, value.toArray(
                    ValueLayout.JAVA_BYTE), charge, null));
            if (before != null) {
                throw new AssertionError("key visited twice: " + key);
            }
        }, 256);
        return out;
    }
}
