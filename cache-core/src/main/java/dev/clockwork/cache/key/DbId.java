package dev.clockwork.cache.key;

import java.security.SecureRandom;

/**
 * A database's 128-bit identity, drawn at random when the database is created and kept with it
 * (in its manifest, say), so that many databases sharing one cache, or copies of one database,
 * are told apart even when their sessions' counters and file numbers coincide.
 *
 * @param high the first 64 random bits
 * @param low the second 64 random bits
 */
public record DbId(long high, long low) {
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * A new random identity.
     *
     * @return an identity of 128 bits drawn from a {@link SecureRandom}
     */
    public static DbId random() {
        return new DbId(RANDOM.nextLong(), RANDOM.nextLong());
    }
}
