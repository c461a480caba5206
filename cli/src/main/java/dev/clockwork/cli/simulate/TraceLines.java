package dev.clockwork.cli.simulate;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The lines of a text trace, each at most {@link #MAX_LINE_BYTES} long. A line of a LIRS or CSV
 * trace is a key, or a key and a size: a few dozen bytes. {@code BufferedReader.readLine} would
 * grow a line without bound (a gigabyte of zeros decompressed from a megabyte of gzip is one
 * line), so this reader refuses a longer line, naming the file and the line.
 *
 * <p>Lines end at {@code \n}, {@code \r\n} or {@code \r}, as {@code BufferedReader}'s do. Bytes
 * are read as ISO-8859-1, one character each, so that any byte shows up in a message as itself
 * and none is lost to decoding.
 */
final class TraceLines {
    /** The longest line, line break not counted. */
    static final int MAX_LINE_BYTES = 256;

    private static final int BUFFER = 1 << 16;

    private final InputStream in;
    private final Path file;
    private final byte[] buffer = new byte[BUFFER];
    private final byte[] line = new byte[MAX_LINE_BYTES];
    private int position;
    private int end;
    /** The last line ended with {@code \r}: a {@code \n} right after it belongs to it. */
    private boolean skipLineFeed;
    private long number;

    TraceLines(InputStream in, Path file) {
        this.in = in;
        this.file = file;
    }

    /** How many lines {@link #next} has returned: the number of the last one. */
    long number() {
        return number;
    }

    /**
     * The next line without its line break, or null after the last.
     *
     * @throws IOException if the line is longer than {@link #MAX_LINE_BYTES}, or reading fails
     */
    String next() throws IOException {
        int length = 0;
        boolean started = false;
        while (position < end || fill()) {
            byte b = buffer[position++];
            if (skipLineFeed) {
                skipLineFeed = false;
                if (b == '\n') {
                    continue;
                }
            }
            started = true;
            if (b == '\n' || b == '\r') {
                skipLineFeed = b == '\r';
                return finish(length);
            }
            if (length == MAX_LINE_BYTES) {
                throw new IOException(file + ":" + (number + 1) + ": line longer than "
                        + MAX_LINE_BYTES + " bytes (is the trace in this format? see -format)");
            }
            line[length++] = b;
        }
        return started ? finish(length) : null;
    }

    private String finish(int length) {
        number++;
        return new String(line, 0, length, StandardCharsets.ISO_8859_1);
    }

    /** Reads more into the buffer; false at the end of the input. */
    private boolean fill() throws IOException {
        int n = in.read(buffer, 0, buffer.length); // blocks until at least one byte, or the end
        if (n < 0) {
            return false;
        }
        position = 0;
        end = n;
        return true;
    }
}
