package dev.clockwork.cache.dump;

import java.io.IOException;

/**
 * A dump refused: not a cache dump, another version, cut short, or a byte changed. The message
 * names what is wrong and where; {@link #problem()} says which, for code.
 */
public final class DumpFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What was wrong with the dump. */
    public enum Problem {
        /** The first 8 bytes are not the dump magic: not a cache dump. */
        NOT_A_DUMP,
        /** A dump of a format version this code does not read. */
        UNSUPPORTED_VERSION,
        /** The stream ended before the trailer. */
        TRUNCATED,
        /** A stored CRC32C does not match the bytes it covers. */
        CHECKSUM_MISMATCH,
        /** Checksums agree but a field holds what no writer writes (a broken writer). */
        MALFORMED,
        /** Bytes follow the trailer. */
        TRAILING_BYTES
    }

    /** Which kind of refusal this is. */
    private final Problem problem;

    /**
     * A refusal.
     *
     * @param problem which kind of refusal
     * @param message what is wrong and where, for a person
     */
    public DumpFormatException(Problem problem, String message) {
        super(message);
        this.problem = problem;
    }

    /**
     * Which kind of refusal this is.
     *
     * @return the problem found
     */
    public Problem problem() {
        return problem;
    }
}
