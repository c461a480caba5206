package dev.clockwork.cache.key;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * Makes {@link SessionId}s as RocksDB's {@code SemiStructuredUniqueIdGen} does: 128 random bits
 * drawn once, then for each session the upper half as drawn and the lower half xor a counter. A
 * process calls {@link #processWide()} each time it opens a database; the sessions it gets are
 * distinct for as long as the process lives (2^64 of them), and {@link FileCacheKey}s built from
 * them are distinct as long as the counter, the file number and the offset fit in 128 bits
 * together. A new process draws new random bits: distinct from every earlier process's sessions
 * only by chance, 2^-128 per pair (the simulator measures what that means in practice; see the
 * docs).
 *
 * <p>Thread-safe; {@link #next} is one atomic increment.
 */
public final class SessionIdGenerator {
    private static final SessionIdGenerator PROCESS_WIDE =
            new SessionIdGenerator(new SecureRandom());

    private final long baseUpper;
    private final long baseLower;
    private final AtomicLong counter = new AtomicLong();

    /**
     * A generator whose base is drawn from {@code random}.
     *
     * @param random where the 128 bits of the base come from (two {@code nextLong()} calls);
     *     not kept
     */
    public SessionIdGenerator(RandomGenerator random) {
        this(random.nextLong(), random.nextLong());
    }

    /**
     * A generator with the given base (for tests and simulations: golden vectors).
     *
     * @param baseUpper the {@link SessionId#upper} of every session made
     * @param baseLower xor'ed with the counter to make each session's {@link SessionId#lower}
     */
    public SessionIdGenerator(long baseUpper, long baseLower) {
        this.baseUpper = baseUpper;
        this.baseLower = baseLower;
    }

    /**
     * The generator this process's databases share, seeded once from {@link SecureRandom}.
     *
     * @return the same generator on every call
     */
    public static SessionIdGenerator processWide() {
        return PROCESS_WIDE;
    }

    /**
     * The next session: distinct from every other this generator made.
     *
     * @return {@code (baseUpper, baseLower ^ count)} for the next count, skipping the count
     *     that would make the lower half 0
     */
    public SessionId next() {
        long lower = baseLower ^ counter.getAndIncrement();
        if (lower == 0) {
            lower = baseLower ^ counter.getAndIncrement(); // 0 is reserved; the next one is not 0
        }
        return new SessionId(baseUpper, lower);
    }
}
