package dev.clockwork.cli.keys;

import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.cache.key.DbId;
import dev.clockwork.cache.key.FileCacheKey;
import dev.clockwork.cache.key.SessionId;
import dev.clockwork.cache.key.SessionIdGenerator;
import dev.clockwork.cli.workload.Random64;

/**
 * One run of the key-collision simulation: {@code -sck_days_per_run} days of files written by
 * {@code -sck_db_count} databases sharing one cache, as cache_bench's {@code StressCacheKey}
 * models them (RocksDB cache/cache_bench_tool.cc, whose comments give the reasoning).
 *
 * <ul>
 *   <li>Files are written round-robin by the databases; before each, with odds
 *   1 / {@code -sck_reopen_nfiles} the database is re-opened (a new session from the process's
 *   generator; 1 in {@code -sck_newdb_nreopen} of those is a new database: new id, file numbers
 *   from 0), else with odds 1 / (files per day / restarts per day) the process restarts (a new
 *   generator, new random bits, every database re-opened).
 *   <li>File numbers advance by 1 to 4 (other file kinds take some numbers).
 *   <li>Each file's key is reduced to {@code -sck_keep_bits} bits, keeping the structured parts
 *   (session counter and file number) and dropping random bits, so that collisions become
 *   frequent enough to count; the estimate is then scaled back up ("corrected").
 *   <li>A table of 2^{@code -sck_table_bits} slots holds the live files' reduced keys; a new file
 *   takes the slot its hash picks (the smaller of two picks, which skews lifetimes), ending the
 *   life of the file there. A new file whose reduced key equals the slot's is a collision; the
 *   process then restarts, so that one collision does not bring correlated ones.
 * </ul>
 * The random choices come from one seeded generator per run; a run is a pure function of its
 * seed.
 */
final class KeyCollisionRun {
    private final StressCacheKeyOptions o;
    private final Random64 random;
    private final int dbCount;
    private final long[] dbIds;
    private final long[] fileNumbers;
    private final long[] sessionUppers;
    private final long[] sessionLowers;
    /** The live files' reduced keys; dropped when the run ends (runs are kept for the totals). */
    private long[] table;
    private final int tableMask;
    private final int shiftAway;
    private final int shiftAwayA;
    private final int shiftAwayB;
    private final long restartNFiles;
    private SessionIdGenerator generator;
    long processCount;
    long sessionCount;
    long newdbCount;
    long collisions;
    long zeros;
    /** Files simulated so far (for progress: days = files / files per day). */
    volatile long filesDone;

    KeyCollisionRun(StressCacheKeyOptions options, long seed) {
        this.o = options;
        this.random = new Random64(seed);
        this.dbCount = options.databases(); // at most MAX_DB_COUNT, after validate
        this.dbIds = new long[dbCount];
        this.fileNumbers = new long[dbCount];
        this.sessionUppers = new long[dbCount];
        this.sessionLowers = new long[dbCount];
        this.table = new long[1 << options.tableBits];
        this.tableMask = table.length - 1;
        int keep = (int) Math.min(64, options.keepBits);
        this.shiftAway = 64 - keep;
        // As cache_bench: shift away fewer potential file number bits than session counter bits.
        this.shiftAwayB = shiftAway / 3;
        this.shiftAwayA = shiftAway - shiftAwayB;
        this.restartNFiles = options.filesPerDay / options.restartsPerDay;
    }

    /** Runs the days; returns the collisions seen. */
    long run() {
        resetProcess(true);
        long maxFiles = o.filesPerRun(); // fits a long, after validate
        int db = 0;
        for (long file = 1; file <= maxFiles; file++, db++) {
            if (db >= dbCount) {
                db = 0;
            }
            if (!o.footerUniqueId && oneIn(o.reopenNFiles)) {
                resetSession(db, oneIn(o.newdbNReopen));
            } else if (oneIn(restartNFiles)) {
                resetProcess(false);
            }
            fileNumbers[db]++;
            if (!o.footerUniqueId) {
                fileNumbers[db] += random.next() & 3;
            }
            long reduced = reducedKey(db);
            if (reduced == 0) {
                zeros++; // 0 marks an empty slot: not tracked, as cache_bench
                file--;
                continue;
            }
            long h = mix(reduced);
            int pos = (int) Math.min(h & tableMask, (h >>> 32) & tableMask);
            if (table[pos] == reduced) {
                collisions++;
                resetProcess(false);
            } else {
                table[pos] = reduced;
            }
            if ((file & 0xFFFF) == 0) {
                filesDone = file;
            }
        }
        filesDone = maxFiles;
        table = null;
        return collisions;
    }

    /** The file's base key (offset 0), reduced to -sck_keep_bits bits as cache_bench does. */
    private long reducedKey(int db) {
        SessionId session = new SessionId(sessionUppers[db], sessionLowers[db]);
        FileCacheKey key = FileCacheKey.of(new DbId(0, dbIds[db]), session, fileNumbers[db]);
        long key0 = key.key0();
        if (o.randomize) {
            return KeyHash.hash0(key0, key.key1(0), 0) >>> shiftAway;
        }
        if (o.footerUniqueId) {
            return key0 >>> shiftAway; // keep only the file number's end, not the session's
        }
        // Keep the session counter (the low word's low bits) and the file number (the high
        // word's high bits): the first 32-bit half shifted left, the second shifted right.
        long a = ((int) key0 << shiftAwayA) & 0xFFFF_FFFFL;
        long b = (key0 >>> 32) >>> shiftAwayB;
        return (a << 32) + b;
    }

    private void resetSession(int db, boolean newDb) {
        SessionId session = generator.next();
        sessionUppers[db] = session.upper();
        sessionLowers[db] = session.lower();
        if (newDb) {
            newdbCount++;
            if (o.footerUniqueId) {
                dbIds[db] = 0; // one id for all: footer ids do not depend on the database
            } else {
                dbIds[db] = newdbCount;
                fileNumbers[db] = 0;
            }
        }
        sessionCount++;
    }

    private void resetProcess(boolean newDbs) {
        processCount++;
        generator = new SessionIdGenerator(random.next(), random.next());
        for (int db = 0; db < dbCount; db++) {
            resetSession(db, newDbs);
        }
        if (o.footerUniqueId) {
            fileNumbers[0] = 0; // counts the process's files
        }
    }

    private boolean oneIn(long n) {
        return Long.remainderUnsigned(random.next(), n) == 0;
    }

    /** splitmix64's finalizer: the slot hash (any good 64-bit mix will do). */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
