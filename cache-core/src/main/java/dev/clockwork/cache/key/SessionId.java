package dev.clockwork.cache.key;

/**
 * A database session's 128-bit identity: who wrote a file, in which process, in which opening of
 * the database. Sessions made by one {@link SessionIdGenerator} share {@link #upper} (random per
 * process) and differ in {@link #lower} (the generator's random base xor a counter), so sessions
 * of one process are distinct by construction, and sessions of different processes by chance
 * (128 random bits). {@link #lower} is never 0.
 *
 * @param upper random per generator: distinguishes processes (and machines)
 * @param lower the generator's random base xor its counter: distinct for every session it makes
 */
public record SessionId(long upper, long lower) {
    /**
     * A session of the given halves.
     *
     * @param upper random per generator
     * @param lower distinct per session, not 0
     * @throws IllegalArgumentException if {@code lower} is 0
     */
    public SessionId {
        if (lower == 0) {
            throw new IllegalArgumentException("lower must not be 0 (it keeps file keys non-zero)");
        }
    }
}
