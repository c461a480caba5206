package dev.clockwork.cache.key;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * File keys: invertible, distinct by construction while the structured widths fit, never in the
 * other kinds' part of the value space, and the same on every run and JVM (golden vectors).
 */
class FileCacheKeyTest {
    private static final DbId DB = new DbId(0x0123456789abcdefL, 0xfedcba9876543210L);

    private record Key(long k0, long k1) {
    }

    /**
     * {@code blocksBelow} picks a key exactly when it is one of its file's blocks below the limit,
     * among files of one session generator with small file numbers (keys distinct by
     * construction): never another file's block, whatever its offset.
     */
    @Test
    void blocksBelowPicksExactlyItsFilesBlocks() {
        SessionIdGenerator sessions = new SessionIdGenerator(0x5E55_1000L, 7);
        FileCacheKey[] files = new FileCacheKey[60];
        for (int i = 0; i < files.length; i++) {
            files[i] = FileCacheKey.of(DB, sessions.next(), i % 6 + 1);
        }
        long limit = 1L << 20;
        long[] offsets = {0, 1, 4096, limit - 1, limit, limit + 1, -1};
        for (FileCacheKey picker : files) {
            var predicate = picker.blocksBelow(limit);
            for (FileCacheKey file : files) {
                for (long offset : offsets) {
                    boolean expected = file == picker && Long.compareUnsigned(offset, limit) < 0;
                    assertEquals(expected, predicate.test(file.key0(), file.key1(offset)),
                            file + " at " + offset + " by " + picker);
                }
            }
            assertTrue(picker.blocksBelow(limit).test(picker.key0(),
                    picker.key1ForMinSizeRecord(4 * limit - 4)), "records: byte offsets / 4");
            assertTrue(picker.blocksBelow(-1).test(picker.key0(), picker.key1(-2)),
                    "-1: every offset below 2^64 - 1");
        }
    }

    @Test
    void theInternalIdComesBack() {
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 100_000; i++) {
            long s = random.nextLong();
            long f = random.nextLong() >>> random.nextInt(64);
            if (s == 0) {
                continue;
            }
            FileCacheKey k = FileCacheKey.fromInternalId(s, f);
            assertArrayEquals(new long[] {s, f}, k.toInternalId());
            assertNotEquals(0, k.key0(), "a file key's first word is never 0");
        }
    }

    @Test
    void theSwapThatKeepsKey0NonZeroIsUndone() {
        // key0 = DI(s) ^ reverse(f) is 0 when f = reverse(DI(s)).
        long s = 0x1234_5678_9abc_def1L;
        long f = KeyBits.reverse(KeyBits.downwardInvolution(s));
        FileCacheKey k = FileCacheKey.fromInternalId(s, f);
        assertNotEquals(0, k.key0());
        assertEquals(0, k.key1(0), "the swapped key: its offset word is the 0");
        assertArrayEquals(new long[] {s, f}, k.toInternalId());
    }

    /**
     * Session counter below 2^a, file number below 2^b, offset below 2^c, a + b + c = 18: all
     * 2^18 keys of one process and one database are distinct, for every split tried, whatever
     * the random base bits (two bases). This is the "lossless while the widths fit" claim,
     * exhaustively on reduced widths.
     */
    @Test
    void keysAreDistinctWhileCounterFileAndOffsetWidthsFit() {
        int[][] splits = {{6, 6, 6}, {0, 9, 9}, {9, 0, 9}, {9, 9, 0}, {2, 2, 14}, {14, 2, 2}};
        SplittableRandom random = new SplittableRandom(2);
        for (int base = 0; base < 2; base++) {
            long upper = random.nextLong();
            long lower = random.nextLong();
            DbId db = new DbId(random.nextLong(), random.nextLong());
            for (int[] w : splits) {
                SessionIdGenerator generator = new SessionIdGenerator(upper, lower);
                Set<Key> seen = new HashSet<>(1 << 19);
                for (long session = 0; session < (1L << w[0]); session++) {
                    SessionId id = generator.next();
                    for (long file = 1; file <= (1L << w[1]); file++) {
                        FileCacheKey k = FileCacheKey.of(db, id, file);
                        for (long offset = 0; offset < (1L << w[2]); offset++) {
                            assertTrue(seen.add(new Key(k.key0(), k.key1(offset))),
                                    "split " + Arrays.toString(w) + ": session "
                                            + session + " file " + file + " offset " + offset);
                        }
                    }
                }
            }
        }
    }

    @Test
    void minSizeRecordOffsetsDropTwoBits() {
        SessionId session = new SessionIdGenerator(1, 2).next();
        FileCacheKey k = FileCacheKey.of(DB, session, 3);
        assertEquals(k.key1(1000 >>> 2), k.key1ForMinSizeRecord(1000));
        assertNotEquals(k.key1ForMinSizeRecord(1000), k.key1ForMinSizeRecord(1004));
    }

    @Test
    void fileKeysNeverMeetTheOtherKindsOrTheEmptyKey() {
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 100_000; i++) {
            DbId db = new DbId(random.nextLong(), random.nextLong());
            SessionId session = new SessionIdGenerator(random.nextLong(), random.nextLong()).next();
            FileCacheKey k = FileCacheKey.of(db, session, random.nextLong() >>> 20);
            assertNotEquals(CacheKeys.KEY0, k.key0(),
                    "cache- and process-lifetime keys have key0 0");
        }
    }

    @Test
    void aSessionsLowerHalfIsNeverZero() {
        // The generator skips the one counter value that would make lower 0.
        long base = 5;
        SessionIdGenerator generator = new SessionIdGenerator(9, base);
        for (int i = 0; i < 10; i++) {
            assertNotEquals(0, generator.next().lower());
        }
        assertThrows(IllegalArgumentException.class, () -> new SessionId(1, 0));
    }

    /** Golden vectors: a change here changes every key a stored database derives. */
    @Test
    void keysAreStableAcrossRunsAndJvms() {
        SessionIdGenerator generator =
                new SessionIdGenerator(0x5eed5eed5eed5eedL, 0x0c10c0c10c0c10c0L);
        SessionId first = generator.next();
        SessionId second = generator.next();
        long[][] golden = {
            // session lower, file number, offset, key0, key1
            {0x0c10c0c10c0c10c0L, 1, 0L, 0x202dfa5ce874d48aL, 0x0308303083030830L},
            {0x0c10c0c10c0c10c0L, 1, 4096L, 0x202dfa5ce874d48aL, 0x0308303083031830L},
            {0x0c10c0c10c0c10c0L, 2, 0L, 0xe02dfa5ce874d48aL, 0x0308303083030830L},
            {0x0c10c0c10c0c10c0L, 12345, 1099511627776L, 0x3c21fa5ce874d48aL, 0x0308313083030830L},
            {0x0c10c0c10c0c10c1L, 1, 0L, 0x202dfa5ce874d48bL, 0x8308303083030830L},
            {0x0c10c0c10c0c10c1L, 1, 4096L, 0x202dfa5ce874d48bL, 0x8308303083031830L},
            {0x0c10c0c10c0c10c1L, 2, 0L, 0xe02dfa5ce874d48bL, 0x8308303083030830L},
            {0x0c10c0c10c0c10c1L, 12345, 1099511627776L, 0x3c21fa5ce874d48bL, 0x8308313083030830L},
        };
        for (long[] g : golden) {
            SessionId session = g[0] == first.lower() ? first : second;
            assertEquals(g[0], session.lower());
            FileCacheKey k = FileCacheKey.of(DB, session, g[1]);
            assertEquals(g[3], k.key0(), "key0 of file " + g[1]);
            assertEquals(g[4], k.key1(g[2]), "key1 of file " + g[1] + " offset " + g[2]);
        }
    }
}
