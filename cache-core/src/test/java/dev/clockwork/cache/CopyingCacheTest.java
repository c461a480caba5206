package dev.clockwork.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.hash.Murmur3;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class CopyingCacheTest {

    private final MapCache backing = new MapCache();
    private final CopyingCache cache = new CopyingCache(backing);

    @AfterEach
    void noHandleLeaks() {
        assertEquals(0, backing.pinned.size(), "handles not released: " + backing.pinned);
    }

    @Test
    void putGetRemoveRoundTrip() {
        byte[] key = bytes("block-17");
        byte[] value = bytes("hello, value");
        assertTrue(cache.put(key, value));
        value[0] = 'X'; // the cache holds a copy
        assertArrayEquals(bytes("hello, value"), cache.get(key));
        assertEquals(value.length, backing.lastCharge);
        assertEquals(Priority.LOW, backing.lastPriority);

        byte[] dst = new byte[20];
        Arrays.fill(dst, (byte) '.');
        assertEquals(12, cache.get(key, dst, 3));
        assertEquals("...hello, value.....", new String(dst, StandardCharsets.US_ASCII));

        assertTrue(cache.remove(key));
        assertNull(cache.get(key));
        assertFalse(cache.remove(key));
    }

    @Test
    void keysAreMurmur3Digests() {
        byte[] key = bytes("some key");
        cache.put(key, bytes("v"), Priority.HIGH);
        long[] h = new long[2];
        Murmur3.hash128(key, 0, key.length, CopyingCache.DEFAULT_SEED, h);
        assertTrue(backing.entries.containsKey(new Key(h[0], h[1])));
        assertEquals(Priority.HIGH, backing.lastPriority);

        CopyingCache seeded = new CopyingCache(backing, 99);
        assertEquals(99, seeded.seed());
        assertNull(seeded.get(key), "a different seed gives a different cache key");
    }

    @Test
    void missReturnsNullOrMinusOne() {
        assertNull(cache.get(bytes("absent")));
        assertEquals(-1, cache.get(bytes("absent"), new byte[4], 0));
        assertEquals(-1, cache.get(MemorySegment.ofArray(bytes("absent")), new byte[4], 0));
        assertEquals(-1, cache.get(MemorySegment.ofArray(bytes("absent")),
                MemorySegment.ofArray(new byte[4])));
    }

    @Test
    void emptyKeyAndEmptyValue() {
        assertTrue(cache.put(new byte[0], new byte[0]));
        assertArrayEquals(new byte[0], cache.get(new byte[0]));
        assertEquals(0, cache.get(new byte[0], new byte[0], 0));
        assertEquals(0, backing.lastCharge);
    }

    @Test
    void dstTooSmallThrowsWithoutCopyingAndReleases() {
        byte[] key = bytes("k");
        cache.put(key, bytes("0123456789"));
        byte[] dst = new byte[12];
        Arrays.fill(dst, (byte) '.');
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> cache.get(key, dst, 3));
        assertTrue(e.getMessage().contains("dst"), e.getMessage());
        assertEquals("............", new String(dst, StandardCharsets.US_ASCII));
        // exactly enough room is fine
        assertEquals(10, cache.get(key, dst, 2));

        MemorySegment small = MemorySegment.ofArray(new byte[9]);
        e = assertThrows(IllegalArgumentException.class,
                () -> cache.get(MemorySegment.ofArray(key), small));
        assertTrue(e.getMessage().contains("dst"), e.getMessage());
        assertEquals(0, small.get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void badOffsetIsRejected() {
        byte[] key = bytes("k");
        cache.put(key, bytes("v"));
        assertThrows(IndexOutOfBoundsException.class, () -> cache.get(key, new byte[4], -1));
        assertThrows(IndexOutOfBoundsException.class, () -> cache.get(key, new byte[4], 5));
    }

    @Test
    void segmentKeysMatchArrayKeys() {
        try (Arena arena = Arena.ofConfined()) {
            byte[] keyBytes = bytes("a segment key longer than sixteen bytes");
            MemorySegment key = arena.allocate(keyBytes.length);
            MemorySegment.copy(keyBytes, 0, key, ValueLayout.JAVA_BYTE, 0, keyBytes.length);
            MemorySegment value = arena.allocate(5);
            MemorySegment.copy(bytes("12345"), 0, value, ValueLayout.JAVA_BYTE, 0, 5);

            assertTrue(cache.put(key, value));
            assertEquals(5, backing.lastCharge);
            assertArrayEquals(bytes("12345"), cache.get(keyBytes));
            assertArrayEquals(bytes("12345"), cache.get(key));
            assertArrayEquals(bytes("12345"), cache.get(MemorySegment.ofArray(keyBytes)));

            byte[] dst = new byte[5];
            assertEquals(5, cache.get(key, dst, 0));
            assertArrayEquals(bytes("12345"), dst);

            MemorySegment segDst = arena.allocate(8);
            assertEquals(5, cache.get(key, segDst));
            assertEquals('5', segDst.get(ValueLayout.JAVA_BYTE, 4));

            assertTrue(cache.put(key, value, Priority.BOTTOM));
            assertEquals(Priority.BOTTOM, backing.lastPriority);
            assertTrue(cache.remove(key));
            assertNull(cache.get(keyBytes));
        }
    }

    @Test
    void nullArgumentsAreNamed() {
        byte[] k = bytes("k");
        MemorySegment sk = MemorySegment.ofArray(k);
        assertNpe("key", () -> cache.get((byte[]) null));
        assertNpe("key", () -> cache.get((MemorySegment) null));
        assertNpe("key", () -> cache.get((byte[]) null, new byte[1], 0));
        assertNpe("dst", () -> cache.get(k, null, 0));
        assertNpe("dst", () -> cache.get(sk, (byte[]) null, 0));
        assertNpe("dst", () -> cache.get(sk, (MemorySegment) null));
        assertNpe("key", () -> cache.put((byte[]) null, k));
        assertNpe("value", () -> cache.put(k, null));
        assertNpe("priority", () -> cache.put(k, k, null));
        assertNpe("key", () -> cache.put((MemorySegment) null, sk));
        assertNpe("value", () -> cache.put(sk, null));
        assertNpe("key", () -> cache.remove((byte[]) null));
        assertNpe("key", () -> cache.remove((MemorySegment) null));
        assertNpe("cache", () -> new CopyingCache(null));
        assertTrue(backing.entries.isEmpty());
    }

    @Test
    void putReplacesAndPutIfAbsentKeepsThePresentValue() {
        byte[] key = bytes("k");
        assertTrue(cache.putIfAbsent(key, bytes("first"), Priority.LOW));
        assertFalse(cache.putIfAbsent(key, bytes("second"), Priority.LOW));
        assertArrayEquals(bytes("first"), cache.get(key));
        assertTrue(cache.put(key, bytes("third")));
        assertArrayEquals(bytes("third"), cache.get(key));
        MemorySegment sk = MemorySegment.ofArray(key);
        assertFalse(cache.putIfAbsent(sk, MemorySegment.ofArray(bytes("fourth")), Priority.LOW));
        assertTrue(cache.put(sk, MemorySegment.ofArray(bytes("fifth"))));
        assertArrayEquals(bytes("fifth"), cache.get(key));
        backing.refuseInserts = true;
        assertFalse(cache.put(key, bytes("sixth")));
        assertNull(cache.get(key), "a refused put leaves the key absent, not its old value");
        assertFalse(cache.putIfAbsent(key, bytes("seventh"), Priority.LOW));
        assertNpe("priority", () -> cache.putIfAbsent(key, key, null));
        assertNpe("value", () -> cache.putIfAbsent(sk, null, Priority.LOW));
    }

    @Test
    void refusedInsertReportsFalse() {
        backing.refuseInserts = true;
        assertFalse(cache.put(bytes("k"), bytes("v")));
        assertNull(cache.get(bytes("k")));
    }

    @Test
    void closeClosesTheCache() {
        assertSame(backing, cache.cache());
        cache.close();
        assertTrue(backing.closed);
    }

    private static void assertNpe(String name, Executable call) {
        NullPointerException e = assertThrows(NullPointerException.class, call);
        assertTrue(e.getMessage() != null && e.getMessage().contains(name),
                "message should name " + name + ": " + e.getMessage());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private record Key(long k0, long k1) {
    }

    /** A heap-backed stand-in for the off-heap caches: enough of the contract for CopyingCache. */
    private static final class MapCache implements Cache {
        final Map<Key, byte[]> entries = new HashMap<>();
        final Map<Long, byte[]> pinned = new HashMap<>();
        long nextHandle = 1;
        long nextId;

        @Override
        public long newId() {
            return nextId++;
        }
        long lastCharge = -1;
        Priority lastPriority;
        boolean refuseInserts;
        boolean closed;

        private long pin(byte[] value) {
            long h = nextHandle++;
            pinned.put(h, value);
            return h;
        }

        private byte[] pinnedValue(long handle) {
            byte[] v = pinned.get(handle);
            if (v == null) {
                throw new IllegalStateException("handle " + handle + " is not pinned");
            }
            return v;
        }

        @Override
        public long lookup(long key0, long key1) {
            byte[] v = entries.get(new Key(key0, key1));
            return v == null ? MISS : pin(v);
        }

        @Override
        public boolean insert(long key0, long key1, MemorySegment value, long charge,
                              Placement priority) {
            return insert(key0, key1, value.toArray(ValueLayout.JAVA_BYTE), 0,
                    (int) value.byteSize(), charge, priority);
        }

        @Override
        public boolean insert(long key0, long key1, byte[] value, int offset, int length,
                              long charge, Placement priority) {
            lastCharge = charge;
            lastPriority = priority.priority();
            if (refuseInserts) {
                return false;
            }
            entries.putIfAbsent(new Key(key0, key1),
                    Arrays.copyOfRange(value, offset, offset + length));
            return true;
        }

        @Override
        public long insertPinned(long key0, long key1, MemorySegment value, long charge,
                                 Placement priority) {
            insert(key0, key1, value, charge, priority);
            return lookup(key0, key1);
        }

        @Override
        public long insertPinned(long key0, long key1, byte[] value, int offset, int length,
                                 long charge, Placement priority) {
            insert(key0, key1, value, offset, length, charge, priority);
            return lookup(key0, key1);
        }

        @Override
        public MemorySegment value(long handle) {
            return MemorySegment.ofArray(pinnedValue(handle)).asReadOnly();
        }

        @Override
        public long valueSize(long handle) {
            return pinnedValue(handle).length;
        }

        @Override
        public int copyValue(long handle, byte[] dst, int offset) {
            byte[] v = pinnedValue(handle);
            System.arraycopy(v, 0, dst, offset, v.length);
            return v.length;
        }

        @Override
        public long copyValue(long handle, MemorySegment dst, long offset) {
            byte[] v = pinnedValue(handle);
            MemorySegment.copy(MemorySegment.ofArray(v), 0, dst, offset, v.length);
            return v.length;
        }

        @Override
        public long lookupOrLoad(long key0, long key1, ValueLoader loader, Placement placement) {
            throw new UnsupportedOperationException("CopyingCache does not load");
        }

        @Override
        public int getOrLoad(long key0, long key1, byte[] dst, int offset, ValueLoader loader,
                             Placement placement) {
            throw new UnsupportedOperationException("CopyingCache does not load");
        }

        @Override
        public long getOrLoad(long key0, long key1, MemorySegment dst, long offset,
                              ValueLoader loader, Placement placement) {
            throw new UnsupportedOperationException("CopyingCache does not load");
        }

        @Override
        public CompletableFuture<byte[]> getOrLoadAsync(
                long key0, long key1, AsyncValueLoader loader, Placement placement) {
            throw new UnsupportedOperationException("CopyingCache does not load");
        }

        @Override
        public long charge(long handle) {
            return pinnedValue(handle).length;
        }

        @Override
        public void ref(long handle) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean release(long handle, boolean eraseIfLastRef) {
            if (pinned.remove(handle) == null) {
                throw new IllegalStateException("double release of " + handle);
            }
            return false;
        }

        @Override
        public boolean erase(long key0, long key1) {
            return entries.remove(new Key(key0, key1)) != null;
        }

        @Override
        public boolean put(long key0, long key1, MemorySegment value, long charge,
                           Placement placement) {
            return put(key0, key1, value.toArray(ValueLayout.JAVA_BYTE), 0,
                    (int) value.byteSize(), charge, placement);
        }

        @Override
        public boolean put(long key0, long key1, byte[] value, int offset, int length,
                           long charge, Placement placement) {
            entries.remove(new Key(key0, key1));
            return insert(key0, key1, value, offset, length, charge, placement);
        }

        @Override
        public boolean putIfAbsent(long key0, long key1, MemorySegment value, long charge,
                                   Placement placement) {
            return !entries.containsKey(new Key(key0, key1))
                    && insert(key0, key1, value, charge, placement);
        }

        @Override
        public boolean putIfAbsent(long key0, long key1, byte[] value, int offset, int length,
                                   long charge, Placement placement) {
            return !entries.containsKey(new Key(key0, key1))
                    && insert(key0, key1, value, offset, length, charge, placement);
        }

        @Override
        public void clear() {
            entries.clear();
        }

        @Override
        public long eraseIf(KeyPredicate predicate) {
            int before = entries.size();
            entries.keySet().removeIf(k -> predicate.test(k.k0(), k.k1()));
            return before - entries.size();
        }

        @Override
        public long capacity() {
            return Long.MAX_VALUE;
        }

        @Override
        public void setCapacity(long capacity) {
        }

        @Override
        public long usage() {
            return entries.values().stream().mapToLong(v -> v.length).sum();
        }

        @Override
        public long pinnedUsage() {
            return 0;
        }

        @Override
        public boolean strictCapacityLimit() {
            return false;
        }

        @Override
        public void setStrictCapacityLimit(boolean strict) {
        }

        @Override
        public long entryCount() {
            return entries.size();
        }

        @Override
        public CacheStats stats() {
            return new CacheStats(0, 0, 0, 0, 0, 0, 0, 0, 0);
        }

        @Override
        public void forEachEntry(EntryVisitor visitor, int entriesPerLock) {
            entries.forEach((k, v) -> visitor.visit(k.k0(), k.k1(),
                    MemorySegment.ofArray(v).asReadOnly(), v.length));
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
