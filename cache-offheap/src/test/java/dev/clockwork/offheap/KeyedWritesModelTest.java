package dev.clockwork.offheap;

import static dev.clockwork.offheap.TestValues.versioned;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.CacheStats;
import dev.clockwork.cache.KeyPredicate;
import dev.clockwork.cache.Priority;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model-checked {@code put}, {@code putIfAbsent}, {@code eraseIf} and {@code clear}, mixed with
 * plain inserts, erases, lookups, gets, reads and held pins, on every cache type, with admission
 * off and with the default TinyLFU, in caches small enough to evict all the time.
 *
 * <p>The model keeps, per key, the set of values a read may return. It never predicts a hit
 * (eviction, admission and dropped inserts may always make a miss), but a read may only return a
 * value in the set, whole, and a key the model holds absent must miss:
 * <ul>
 *   <li>{@code put(v)} accepted: exactly {v}; refused: absent (no old value may come back);</li>
 *   <li>{@code putIfAbsent(v)}: true: exactly {v}; false: unchanged, and if the model held the
 *       key absent, a refusal must be counted in the stats (the only other reason for false);</li>
 *   <li>plain {@code insert(v)}: the set plus v, its type-specific meaning (a HyperClock table
 *       may keep the present entry or a second copy, an LRU insert dropped for room keeps it);
 *       </li>
 *   <li>{@code erase}, {@code eraseIf} (the keys the predicate picked, also when it throws
 *       half-way), {@code clear}: absent; {@code eraseIf} counts no more than it picked.</li>
 * </ul>
 * A held pin must read its bytes intact whatever is put, erased or cleared meanwhile; after the
 * last release and a {@code clear}, the cache holds no entry and no usage beyond none.
 */
class KeyedWritesModelTest {
    private static final int KEYS = 24;
    private static final int SEQUENCES = 40;
    private static final int OPS = 500;

    @AfterEach
    void noNativeLeak() {
        assertEquals(0, NativeMemory.outstandingBytes());
    }

    static List<Arguments> configurations() {
        List<Arguments> all = new ArrayList<>();
        for (CacheKind kind : CacheKind.values()) {
            for (AdmissionPolicy admission : AdmissionPolicy.values()) {
                all.add(Arguments.of(kind, admission));
            }
        }
        return all;
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void randomSequencesNeverReturnAStaleOrWrongValue(CacheKind kind, AdmissionPolicy admission) {
        long seed0 = 0x9E3779B97F4AL * (1 + kind.ordinal()) + admission.ordinal();
        long[] seen = new long[Seen.values().length];
        for (int s = 0; s < SEQUENCES; s++) {
            long seed = seed0 + s;
            boolean strict = s % 3 == 0;
            // Strict caches are smaller, so that pins often leave no room: refusals.
            try (ShardedCache cache = kind.builder(strict ? 4 << 10 : 8 << 10, 256)
                    .numShardBits(s % 2).admission(admission).strictCapacityLimit(strict)
                    .build()) {
                new Sequence(cache, new Random(seed), seen).run();
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(kind + " " + admission + " seed " + seed + ": " + e, e);
            }
        }
        for (Seen event : Seen.values()) {
            assertTrue(seen[event.ordinal()] > 0, "the sequences never saw " + event + ": "
                    + Arrays.toString(seen));
        }
    }

    /** What the sequences must have met, so that the checks above have had something to check. */
    private enum Seen {
        /** A put answered false: the key must then miss. */
        PUT_REFUSED,
        /** A putIfAbsent found its key present. */
        PUT_IF_ABSENT_FOUND,
        /** A read found the one value the model allowed its key (a put's, say). */
        HIT_ONE_VALUE,
        /** A miss of a key the model allowed a value for: an eviction the model allows. */
        MISS_ALLOWED,
        /** A predicate threw half-way through an eraseIf. */
        PREDICATE_THREW,
        /** A pin outlived a write of its key and still read its bytes. */
        PIN_OUTLIVED_A_WRITE
    }

    /** One random sequence against the model. */
    private static final class Sequence {
        private final ShardedCache cache;
        private final Random random;
        /** Per key, the values a read may return; empty: the key must miss. */
        private final List<Set<Value>> allowed = new ArrayList<>();
        /** Pins held: handle and the bytes it must keep reading. */
        private final List<long[]> pins = new ArrayList<>();
        private final List<byte[]> pinnedBytes = new ArrayList<>();
        private final long[] seen;
        /** Keys written (put, putIfAbsent stored, insert, erase) since each pin was taken. */
        private final List<Integer> pinnedKeys = new ArrayList<>();
        private final Set<Integer> writtenSincePinned = new HashSet<>();
        private long version;

        Sequence(ShardedCache cache, Random random, long[] seen) {
            this.cache = cache;
            this.random = random;
            this.seen = seen;
            for (int k = 0; k < KEYS; k++) {
                allowed.add(new HashSet<>());
            }
        }

        void run() {
            for (int op = 0; op < OPS; op++) {
                step(random.nextInt(KEYS));
            }
            for (int i = 0; i < pins.size(); i++) {
                unpin(i);
                i--;
            }
            cache.clear();
            assertEquals(0, cache.entryCount(), "clear with nothing pinned empties the cache");
            for (int k = 0; k < KEYS; k++) {
                assertEquals(Cache.MISS, cache.lookup(k, ~k));
            }
        }

        private void step(int key) {
            int draw = random.nextInt(100);
            if (draw < 22) {
                put(key);
            } else if (draw < 34) {
                putIfAbsent(key);
            } else if (draw < 42) {
                insert(key);
            } else if (draw < 47) {
                cache.erase(key, ~key);
                allowed.get(key).clear();
            } else if (draw < 50) {
                eraseIf();
            } else if (draw < 51) {
                cache.clear();
                allowed.forEach(Set::clear);
            } else if (draw < 60) {
                pin(key);
            } else if (draw < 64 && !pins.isEmpty()) {
                unpin(random.nextInt(pins.size()));
            } else {
                read(key);
            }
        }

        private byte[] nextValue(int key) {
            return versioned(key, ++version, 16 + random.nextInt(1200));
        }

        private Priority priority() {
            return Priority.values()[random.nextInt(Priority.values().length)];
        }

        private void put(int key) {
            byte[] v = nextValue(key);
            boolean stored;
            if (random.nextBoolean()) {
                stored = cache.put(key, ~key, v, 0, v.length, v.length, priority());
            } else {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment s = arena.allocate(v.length);
                    s.copyFrom(MemorySegment.ofArray(v));
                    stored = cache.put(key, ~key, s, v.length, priority());
                }
            }
            allowed.get(key).clear();
            writtenSincePinned.add(key);
            if (stored) {
                allowed.get(key).add(new Value(v));
            } else {
                seen[Seen.PUT_REFUSED.ordinal()]++;
            }
            if (!stored || random.nextInt(4) == 0) {
                read(key); // a refused put: must miss now
            }
        }

        private void putIfAbsent(int key) {
            byte[] v = nextValue(key);
            CacheStats before = cache.stats();
            boolean stored = cache.putIfAbsent(key, ~key, v, 0, v.length, v.length, priority());
            if (stored) {
                allowed.get(key).clear();
                allowed.get(key).add(new Value(v));
                writtenSincePinned.add(key);
            } else if (!allowed.get(key).isEmpty()) {
                seen[Seen.PUT_IF_ABSENT_FOUND.ordinal()]++;
            } else {
                CacheStats after = cache.stats();
                assertTrue(after.memoryLimitRejects() + after.admissionRejects()
                                > before.memoryLimitRejects() + before.admissionRejects(),
                        "putIfAbsent of an absent key answered false without a refusal");
            }
        }

        private void insert(int key) {
            byte[] v = nextValue(key);
            if (cache.insert(key, ~key, v, 0, v.length, v.length, priority())) {
                allowed.get(key).add(new Value(v));
            }
        }

        private void eraseIf() {
            int modulus = 2 + random.nextInt(4);
            int residue = random.nextInt(modulus);
            int throwAfter = random.nextInt(4) == 0 ? random.nextInt(KEYS) : -1;
            Set<Integer> picked = new HashSet<>();
            int[] calls = {0};
            KeyPredicate predicate = (key0, key1) -> {
                assertEquals(~key0, key1, "the predicate sees the caller's key");
                if (calls[0]++ == throwAfter) {
                    throw new IllegalStateException("predicate failure");
                }
                boolean yes = key0 % modulus == residue;
                if (yes) {
                    picked.add((int) key0);
                }
                return yes;
            };
            long erased;
            if (throwAfter >= 0) {
                try {
                    erased = cache.eraseIf(predicate);
                } catch (IllegalStateException e) {
                    assertEquals("predicate failure", e.getMessage());
                    seen[Seen.PREDICATE_THREW.ordinal()]++;
                    erased = -1;
                }
            } else {
                erased = cache.eraseIf(predicate);
            }
            assertTrue(erased <= picked.size(), "erased " + erased + " of " + picked);
            for (int key : picked) {
                allowed.get(key).clear();
                assertEquals(Cache.MISS, cache.lookup(key, ~key), "picked key " + key);
            }
            if (throwAfter < 0) {
                for (int k = residue; k < KEYS; k += modulus) {
                    allowed.get(k).clear(); // present or not, none of them may be found now
                }
            }
        }

        private void pin(int key) {
            long handle = cache.lookup(key, ~key);
            if (handle == Cache.MISS) {
                return;
            }
            byte[] bytes = copy(handle);
            assertTrue(allowed.get(key).contains(new Value(bytes)), "pinned a stale value");
            pins.add(new long[] {handle});
            pinnedBytes.add(bytes);
            pinnedKeys.add(key);
            writtenSincePinned.remove(key);
        }

        private void unpin(int i) {
            long handle = pins.get(i)[0];
            assertArrayEquals(pinnedBytes.get(i), copy(handle), "a pinned value changed");
            if (writtenSincePinned.contains(pinnedKeys.get(i))) {
                seen[Seen.PIN_OUTLIVED_A_WRITE.ordinal()]++;
            }
            cache.release(handle);
            pins.remove(i);
            pinnedBytes.remove(i);
            pinnedKeys.remove(i);
        }

        private byte[] copy(long handle) {
            byte[] out = new byte[(int) cache.valueSize(handle)];
            cache.copyValue(handle, out, 0);
            return out;
        }

        private void read(int key) {
            Set<Value> ok = allowed.get(key);
            byte[] dst = new byte[2048];
            int n = switch (random.nextInt(3)) {
                case 0 -> cache.get(key, ~key, dst, 0);
                case 1 -> (int) cache.read(key, ~key, v -> {
                    int length = (int) Math.min(v.byteSize(), dst.length);
                    MemorySegment.copy(v, ValueLayout.JAVA_BYTE, 0, dst, 0, length);
                    return v.byteSize();
                }, Cache.ABSENT);
                default -> {
                    long h = cache.lookup(key, ~key);
                    if (h == Cache.MISS) {
                        yield Cache.ABSENT;
                    }
                    int length = cache.copyValue(h, dst, 0);
                    cache.release(h);
                    yield length;
                }
            };
            if (n == Cache.ABSENT) {
                if (!ok.isEmpty()) {
                    seen[Seen.MISS_ALLOWED.ordinal()]++;
                }
                return; // a miss is always allowed
            }
            if (ok.isEmpty()) {
                fail("key " + key + " must be absent, read " + n + " bytes");
            }
            assertTrue(ok.contains(new Value(Arrays.copyOf(dst, n))),
                    "key " + key + ": read a value that is not one of its allowed values");
            if (ok.size() == 1) {
                seen[Seen.HIT_ONE_VALUE.ordinal()]++;
            }
        }
    }

    /** A value with equality by content. */
    private record Value(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Value v && Arrays.equals(v.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }
}
