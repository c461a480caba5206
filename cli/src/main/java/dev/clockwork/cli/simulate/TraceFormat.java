package dev.clockwork.cli.simulate;

import java.util.Locale;

/**
 * The trace formats {@code simulate} reads, by the name {@code -format} takes.
 *
 * <ul>
 *   <li>{@link #LIRS}: text, one decimal key per line (the LIRS traces); blank lines and lines
 *       holding only {@code *} are skipped, as Caffeine's simulator does.</li>
 *   <li>{@link #CACHE2K}: binary, a sequence of big-endian signed 32-bit keys.</li>
 *   <li>{@link #CSV}: text, {@code key,size} per line, size in bytes ({@code >= 1}); an optional
 *       first line that does not start with a digit or sign is a header and skipped.</li>
 * </ul>
 */
public enum TraceFormat {
    LIRS,
    CACHE2K,
    CSV;

    /** How many decompressed bytes {@link #detect} looks at. */
    static final int DETECT_BYTES = 4096;

    /** The flag's spelling of this format. */
    public String flagName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The format named {@code name} ({@code lirs}, {@code cache2k}, {@code csv}), or null. */
    public static TraceFormat byName(String name) {
        for (TraceFormat f : values()) {
            if (f.flagName().equals(name)) {
                return f;
            }
        }
        return null;
    }

    /**
     * Guesses the format from the file name and the first decompressed bytes: a name ending in
     * {@code .csv} (before any compression suffix) is CSV; text (printable ASCII and line breaks
     * only) is CSV if its first line holds a comma, else LIRS; anything else is cache2k binary.
     * A binary trace of 1,024 keys that all read as printable text would be taken for text;
     * {@code -format} settles such a case.
     *
     * @param head up to {@link #DETECT_BYTES} bytes from the start of the trace
     */
    public static TraceFormat detect(String baseName, byte[] head, int headLength) {
        if (baseName.toLowerCase(Locale.ROOT).endsWith(".csv")) {
            return CSV;
        }
        if (headLength == 0) {
            return LIRS; // empty: any format reads it as no accesses
        }
        int firstLineEnd = -1;
        for (int i = 0; i < headLength; i++) {
            int b = head[i] & 0xFF;
            boolean lineBreak = b == '\n' || b == '\r';
            if (!lineBreak && b != '\t' && (b < 0x20 || b > 0x7E)) {
                return CACHE2K;
            }
            if (lineBreak && firstLineEnd < 0) {
                firstLineEnd = i;
            }
        }
        int end = firstLineEnd < 0 ? headLength : firstLineEnd;
        for (int i = 0; i < end; i++) {
            if (head[i] == ',') {
                return CSV;
            }
        }
        return LIRS;
    }
}
