package dev.clockwork.docs;

/**
 * A malformed JSON text: the message says what was expected and where (character offset, and
 * 1-based line and column), so a broken result file can be fixed by hand.
 */
final class JsonException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int offset;

    JsonException(String problem, int offset, int line, int column) {
        super(problem + " at line " + line + ", column " + column + " (offset " + offset + ")");
        this.offset = offset;
    }

    /** The 0-based character offset of the problem. */
    int offset() {
        return offset;
    }
}
