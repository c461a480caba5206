package dev.clockwork.cli.simulate;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import org.tukaani.xz.XZInputStream;

/**
 * Opens trace files, decompressing gzip and xz transparently. The compression is told by the
 * file's magic bytes, so a misnamed file still reads; the suffix only shapes the trace's name.
 */
public final class TraceFiles {
    private TraceFiles() {
    }

    private static final byte[] GZIP_MAGIC = {(byte) 0x1F, (byte) 0x8B};
    private static final byte[] XZ_MAGIC = {(byte) 0xFD, '7', 'z', 'X', 'Z', 0};
    private static final int BUFFER = 1 << 16;

    /** The decompressed contents of {@code file}, buffered; the caller closes it. */
    public static InputStream open(Path file) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(file), BUFFER);
        try {
            raw.mark(XZ_MAGIC.length);
            byte[] magic = raw.readNBytes(XZ_MAGIC.length);
            raw.reset();
            if (startsWith(magic, XZ_MAGIC)) {
                return new BufferedInputStream(new XZInputStream(raw), BUFFER);
            }
            if (startsWith(magic, GZIP_MAGIC)) {
                return new BufferedInputStream(new GZIPInputStream(raw, BUFFER), BUFFER);
            }
            return raw;
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
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
