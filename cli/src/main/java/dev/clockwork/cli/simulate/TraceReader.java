package dev.clockwork.cli.simulate;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Reads a trace file of any {@link TraceFormat}, plain or compressed (see {@link TraceFiles}),
 * into a {@link Trace}. A malformed line or a truncated binary key fails the read with a message
 * naming the file and where.
 */
public final class TraceReader {
    private TraceReader() {
    }

    /**
     * Reads {@code file} in {@code format}, or in the format {@link TraceFormat#detect} finds
     * when {@code format} is null.
     *
     * @throws IOException if the file cannot be read or is not in the format
     */
    public static Trace read(Path file, TraceFormat format) throws IOException {
        String name = TraceFiles.traceName(file);
        try (InputStream in = TraceFiles.open(file)) {
            TraceFormat f = format != null ? format : detect(name, in);
            return switch (f) {
                case LIRS -> readLirs(name, file, in);
                case CACHE2K -> readCache2k(name, file, in);
                case CSV -> readCsv(name, file, in);
            };
        }
    }

    /** Detects the format from the first bytes, leaving the stream where it was. */
    private static TraceFormat detect(String name, InputStream in) throws IOException {
        in.mark(TraceFormat.DETECT_BYTES);
        byte[] head = in.readNBytes(TraceFormat.DETECT_BYTES);
        in.reset();
        return TraceFormat.detect(name, head, head.length);
    }

    /** One decimal key per line; blank lines and {@code *} lines skipped. */
    static Trace readLirs(String name, Path file, InputStream in) throws IOException {
        Trace.Builder trace = new Trace.Builder(name, false);
        BufferedReader lines = reader(in);
        long lineNo = 0;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            lineNo++;
            String s = line.strip();
            if (s.isEmpty() || s.equals("*")) {
                continue;
            }
            trace.add(parseLong(s, file, lineNo, "key"), 1);
        }
        return trace.build();
    }

    /** Big-endian signed 32-bit keys, back to back. */
    static Trace readCache2k(String name, Path file, InputStream in) throws IOException {
        Trace.Builder trace = new Trace.Builder(name, false);
        byte[] chunk = new byte[1 << 16];
        ByteBuffer ints = ByteBuffer.wrap(chunk); // big-endian, as the format
        int held = 0; // bytes in chunk not yet consumed, from its start
        long offset = 0;
        for (int n = in.read(chunk, held, chunk.length - held); n >= 0;
                n = in.read(chunk, held, chunk.length - held)) {
            held += n;
            int whole = held & ~3;
            for (int i = 0; i < whole; i += 4) {
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
        return trace.build();
    }

    /** {@code key,size} per line, an optional header first. */
    static Trace readCsv(String name, Path file, InputStream in) throws IOException {
        Trace.Builder trace = new Trace.Builder(name, true);
        BufferedReader lines = reader(in);
        long lineNo = 0;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            lineNo++;
            String s = line.strip();
            if (s.isEmpty() || lineNo == 1 && isHeader(s)) {
                continue;
            }
            int comma = s.indexOf(',');
            if (comma < 0 || s.indexOf(',', comma + 1) >= 0) {
                throw new IOException(file + ":" + lineNo + ": expected key,size, found '" + s
                        + "'");
            }
            long key = parseLong(s.substring(0, comma).strip(), file, lineNo, "key");
            long size = parseLong(s.substring(comma + 1).strip(), file, lineNo, "size");
            if (size < 1 || size > Integer.MAX_VALUE) {
                throw new IOException(file + ":" + lineNo + ": size " + size + " is not in [1, "
                        + Integer.MAX_VALUE + "]");
            }
            trace.add(key, (int) size);
        }
        return trace.build();
    }

    private static boolean isHeader(String line) {
        char c = line.charAt(0);
        return !(c >= '0' && c <= '9' || c == '-' || c == '+');
    }

    private static BufferedReader reader(InputStream in) {
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII), 1 << 16);
    }

    private static long parseLong(String s, Path file, long lineNo, String what)
            throws IOException {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IOException(file + ":" + lineNo + ": " + what + " '" + s
                    + "' is not a decimal 64-bit integer (is the trace in this format? see"
                    + " -format)");
        }
    }
}
