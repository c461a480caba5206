package dev.clockwork.cli.common;

/**
 * Text from outside (a file's bytes, a file's name) made safe to quote in a one-line message: a
 * line break would split the message, and control bytes could drive the terminal.
 */
public final class Printable {
    private Printable() {
    }

    /** How much of a foreign text {@link #excerpt} shows before cutting it short. */
    public static final int EXCERPT_CHARS = 40;

    /**
     * {@code text} with every character outside printable ASCII written as {@code \xNN} (or
     * a backslash, u and four hex digits): for bytes of a file, which need not be text at all.
     */
    public static String escape(String text) {
        return escape(text, false);
    }

    /**
     * {@code message} with its control characters (line breaks, escape sequences) written as
     * {@code \xNN}; other characters, a file name's accents say, are kept.
     */
    public static String safe(String message) {
        return escape(message, true);
    }

    private static String escape(String text, boolean keepNonAscii) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean keep = keepNonAscii ? !Character.isISOControl(c) : c >= 0x20 && c <= 0x7E;
            if (keep) {
                out.append(c);
            } else {
                out.append(c <= 0xFF ? String.format("\\x%02X", (int) c)
                        : String.format("\\u%04X", (int) c));
            }
        }
        return out.toString();
    }

    /**
     * The start of {@code text}, {@link #escape escaped}: at most {@link #EXCERPT_CHARS}
     * characters of it, then "..." when there is more.
     */
    public static String excerpt(String text) {
        return text.length() <= EXCERPT_CHARS ? escape(text)
                : escape(text.substring(0, EXCERPT_CHARS)) + "...";
    }
}
