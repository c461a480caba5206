package dev.clockwork.cli.simulate;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import org.tukaani.xz.MemoryLimitException;
import org.tukaani.xz.XZInputStream;

/**
 * Opens trace files, decompressing gzip and xz transparently. The compression is told by the
 * file's magic bytes, so a misnamed file still reads; the suffix only shapes the trace's name.
 *
 * <p>Decompression failures are reworded to say what is wrong with the file, naming it: the
 * decompressors' own exceptions say "Unexpected end of ZLIB input stream", or nothing at all
 * (an {@link EOFException} without a message, for a gzip file cut inside its header).
 */
public final class TraceFiles {
    private TraceFiles() {
    }

    private static final byte[] GZIP_MAGIC = {(byte) 0x1F, (byte) 0x8B};
    private static final byte[] XZ_MAGIC = {(byte) 0xFD, '7', 'z', 'X', 'Z', 0};
    private static final int BUFFER = 1 << 16;

    /**
     * Most memory the xz decompressor may take, in KiB: its dictionary, which the file's header
     * sets. {@code xz -9} needs 65 MiB; a header may ask for 1.5 GiB, which would be
     * allocated before a byte is read.
     */
    static final int XZ_MEMORY_LIMIT_KIB = 256 << 10;

    /** The decompressed contents of {@code file}, buffered; the caller closes it. */
    public static InputStream open(Path file) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), BUFFER);
        try {
            raw.mark(XZ_MAGIC.length);
            byte[] magic = raw.readNBytes(XZ_MAGIC.length);
            raw.reset();
            if (startsWith(magic, XZ_MAGIC)) {
                return decompressed(file, "xz", raw);
            }
            if (startsWith(magic, GZIP_MAGIC)) {
                return decompressed(file, "gzip", raw);
            }
            return raw;
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    /** {@code raw} decompressed as {@code kind}, its failures reworded by {@link #failure}. */
    private static InputStream decompressed(Path file, String kind, InputStream raw)
            throws IOException {
        InputStream decompressor;
        try { // both constructors read the header
            decompressor = kind.equals("xz") ? new XZInputStream(raw, XZ_MEMORY_LIMIT_KIB)
                    : new GZIPInputStream(raw, BUFFER);
        } catch (IOException | RuntimeException e) {
            throw failure(file, kind, e);
        }
        return new BufferedInputStream(new Reworded(decompressor, file, kind), BUFFER);
    }

    /**
     * What is wrong with {@code file}, whose {@code kind} (gzip, xz) data failed to
     * decompress with {@code e}, as an exception whose message names the file.
     */
    static IOException failure(Path file, String kind, Exception e) {
        String what;
        if (e instanceof EOFException) {
            what = "the " + kind + " data ends early (is the file truncated?)";
        } else if (e instanceof MemoryLimitException m) {
            what = "the xz data needs " + m.getMemoryNeeded() / 1024 + " MiB to decompress,"
                    + " more than the limit of " + XZ_MEMORY_LIMIT_KIB / 1024 + " MiB (its"
                    + " dictionary is larger than xz -9 makes)";
        } else {
            String message = e.getMessage();
            what = "the " + kind + " data is corrupt ("
                    + (message == null ? e.getClass().getSimpleName() : message) + ")";
        }
        return new IOException(file + ": " + what, e);
    }

    /**
     * A decompressing stream whose failures name the file ({@link #failure}). Every method that
     * reads is covered: the xz stream returns the bytes it has and keeps a failure for the next
     * call, which may be {@code available()} ({@code BufferedInputStream} asks it).
     */
    private static final class Reworded extends FilterInputStream {
        private final Path file;
        private final String kind;

        Reworded(InputStream decompressor, Path file, String kind) {
            super(decompressor);
            this.file = file;
            this.kind = kind;
        }

        @Override
        public int read() throws IOException {
            try {
                return super.read();
            } catch (IOException | RuntimeException e) {
                throw failure(file, kind, e);
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return super.read(b, off, len);
            } catch (IOException | RuntimeException e) {
                throw failure(file, kind, e);
            }
        }

        @Override
        public long skip(long n) throws IOException {
            try {
                return super.skip(n);
            } catch (IOException | RuntimeException e) {
                throw failure(file, kind, e);
            }
        }

        @Override
        public int available() throws IOException {
            try {
                return super.available();
            } catch (IOException | RuntimeException e) {
                throw failure(file, kind, e);
            }
        }
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        if (bytes.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** The file's name without a {@code .gz} or {@code .xz} suffix: how reports name it. */
    public static String traceName(Path file) {
        String name = file.getFileName().toString();
        for (String suffix : new String[] {".gz", ".xz"}) {
            if (name.endsWith(suffix) && name.length() > suffix.length()) {
                return name.substring(0, name.length() - suffix.length());
            }
        }
        return name;
    }
}
