package dev.clockwork.cli.simulate;

import dev.clockwork.cli.common.Failures;
import dev.clockwork.cli.common.Printable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Reads a trace file of any {@link TraceFormat}, plain or compressed (see {@link TraceFiles}),
 * into a {@link Trace}. A malformed line or a truncated binary key fails the read with a message
 * naming the file and where.
 *
 * <p>Limits, so that no file can take the heap or the time a read has: at most
 * {@code maxAccesses} accesses ({@code -max_accesses}), which bounds the trace's memory (8 bytes
 * an access, 12 with sizes); in a text trace every line counts, blank and {@code *} lines too,
 * so that a file of empty lines is bounded as well; and lines of at most
 * {@link TraceLines#MAX_LINE_BYTES} bytes. A trace that does not fit in the heap even so fails
 * with a message naming the file and the heap's limit, not an {@link OutOfMemoryError}.
 */
public final class TraceReader {
    private TraceReader() {
    }

    /** {@code -max_accesses}'s default: a trace of this length takes 0.8 to 1.2 GB of heap. */
    public static final long DEFAULT_MAX_ACCESSES = 100_000_000;

    /** Reads {@code file} with the default limit, {@link #DEFAULT_MAX_ACCESSES}. */
    public static Trace read(Path file, TraceFormat format) throws IOException {
        return read(file, format, DEFAULT_MAX_ACCESSES);
    }

    /**
     * Reads {@code file} in {@code format}, or in the format {@link TraceFormat#detect} finds
     * when {@code format} is null.
     *
     * @param maxAccesses the most accesses (lines of a text trace) to accept, from 1 to
     *     {@link Trace.Builder#MAX_LENGTH}
     * @throws IOException if the file cannot be read, is not in the format, or is past a limit
     */
    public static Trace read(Path file, TraceFormat format, long maxAccesses) throws IOException {
        String name = TraceFiles.traceName(file);
        try (InputStream in = TraceFiles.open(file)) {
            TraceFormat f = format != null ? format : detect(name, in);
            Trace.Builder trace = new Trace.Builder(name, f == TraceFormat.CSV,
                    (int) Math.min(maxAccesses, Trace.Builder.MAX_LENGTH));
            try {
                switch (f) {
                    case LIRS -> readLirs(trace, file, in);
                    case CACHE2K -> readCache2k(trace, file, in);
                    case CSV -> readCsv(trace, file, in);
                }
                return trace.build();
            } catch (OutOfMemoryError e) {
                // the builder, the one large allocation, is dropped with this frame
                throw outOfHeap(file, trace.length());
            }
        }
    }

    private static IOException outOfHeap(Path file, int accesses) {
        return new IOException(file + ": out of Java heap after " + accesses + " accesses ("
                + Failures.maxHeap() + "): lower -max_accesses, or " + Failures.raiseHeap());
    }

    /** Detects the format from the first bytes, leaving the stream where it was. */
    private static TraceFormat detect(String name, InputStream in) throws IOException {
        in.mark(TraceFormat.DETECT_BYTES);
        byte[] head = in.readNBytes(TraceFormat.DETECT_BYTES);
        in.reset();
        return TraceFormat.detect(name, head, head.length);
    }

    /** One decimal key per line; blank lines and {@code *} lines skipped. */
    static void readLirs(Trace.Builder trace, Path file, InputStream in) throws IOException {
        TraceLines lines = new TraceLines(in, file);
        for (String line = lines.next(); line != null; line = lines.next()) {
            checkLimit(trace, file, lines.number());
            String s = line.strip();
            if (s.isEmpty() || s.equals("*")) {
                continue;
            }
            trace.add(parseLong(s, file, lines.number(), "key"), 1);
        }
    }

    /** Big-endian signed 32-bit keys, back to back. */
    static void readCache2k(Trace.Builder trace, Path file, InputStream in) throws IOException {
        byte[] chunk = new byte[1 << 16];
        ByteBuffer ints = ByteBuffer.wrap(chunk); // big-endian, as the format
        int held = 0; // bytes in chunk not yet consumed, from its start
        long offset = 0;
        for (int n = in.read(chunk, held, chunk.length - held); n >= 0;
                n = in.read(chunk, held, chunk.length - held)) {
            held += n;
            int whole = held & ~3;
            for (int i = 0; i < whole; i += 4) {
                checkLimit(trace, file, trace.length() + 1L);
                trace.add(ints.getInt(i), 1);
            }
            System.arraycopy(chunk, whole, chunk, 0, held - whole);
            offset += whole;
            held -= whole;
        }
        if (held != 0) {
            throw new IOException(file + ": cache2k trace ends with " + held + " byte(s) of a"
                    + " 4-byte key at offset " + offset + " (is it in this format? see -format)");
        }
    }

    /** {@code key,size} per line, an optional header first. */
    static void readCsv(Trace.Builder trace, Path file, InputStream in) throws IOException {
        TraceLines lines = new TraceLines(in, file);
        for (String line = lines.next(); line != null; line = lines.next()) {
            long lineNo = lines.number();
            checkLimit(trace, file, lineNo);
            String s = line.strip();
            if (s.isEmpty() || lineNo == 1 && isHeader(s)) {
                continue;
            }
            int comma = s.indexOf(',');
            if (comma < 0 || s.indexOf(',', comma + 1) >= 0) {
                throw new IOException(file + ":" + lineNo + ": expected key,size, found '"
                        + Printable.excerpt(s) + "'");
            }
            long key = parseLong(s.substring(0, comma).strip(), file, lineNo, "key");
            long size = parseLong(s.substring(comma + 1).strip(), file, lineNo, "size");
            if (size < 1 || size > Integer.MAX_VALUE) {
                throw new IOException(file + ":" + lineNo + ": size " + size + " is not in [1, "
                        + Integer.MAX_VALUE + "]");
            }
            trace.add(key, (int) size);
        }
    }

    /**
     * Refuses the {@code record}th record (line, or binary key) when it is past the builder's
     * limit, {@code -max_accesses}.
     */
    private static void checkLimit(Trace.Builder trace, Path file, long record)
            throws IOException {
        if (record > trace.maxLength()) {
            throw new IOException(file + ": more than " + trace.maxLength() + " accesses"
                    + " (-max_accesses=" + trace.maxLength() + "; every line of a text trace"
                    + " counts): raise -max_accesses to read it (8 bytes of heap an access, 12"
                    + " with sizes)");
        }
    }

    private static boolean isHeader(String line) {
        char c = line.charAt(0);
        return !(c >= '0' && c <= '9' || c == '-' || c == '+');
    }

    private static long parseLong(String s, Path file, long lineNo, String what)
            throws IOException {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IOException(file + ":" + lineNo + ": " + what + " '" + Printable.excerpt(s)
                    + "' is not a decimal 64-bit integer (is the trace in this format? see"
                    + " -format)");
        }
    }
}
