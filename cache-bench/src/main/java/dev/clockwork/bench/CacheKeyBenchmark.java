package dev.clockwork.bench;

import dev.clockwork.cache.key.DbId;
import dev.clockwork.cache.key.FileCacheKey;
import dev.clockwork.cache.key.SessionId;
import dev.clockwork.cache.key.SessionIdGenerator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the stable cache keys cost: a block's key from its file's base key (the per-lookup cost),
 * and a file's base key from its database, session and file number (once per file open). Run with
 * {@code -prof gc}: both must allocate nothing.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1)
@State(Scope.Thread)
public class CacheKeyBenchmark {
    private final DbId db = new DbId(0x0123_4567_89ab_cdefL, 0x0fed_cba9_8765_4321L);
    private final SessionId session = new SessionIdGenerator(0x5eed, 0xc10c).next();
    private final FileCacheKey file = FileCacheKey.of(db, session, 42);
    private long offset;
    private long fileNumber;

    /** A block's two words from its file's base key: the offset xor'ed into the second. */
    @Benchmark
    public long blockKey() {
        long o = offset += 4096;
        return file.key0() * 31 + file.key1(o);
    }

    /** A file's base key: one 64-bit hash, two bit reversals, one involution. */
    @Benchmark
    public long fileBaseKey() {
        FileCacheKey k = FileCacheKey.of(db, session, ++fileNumber);
        return k.key0() * 31 + k.key1(0);
    }
}
