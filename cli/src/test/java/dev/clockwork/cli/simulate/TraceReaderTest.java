package dev.clockwork.cli.simulate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

/** The three trace formats, each plain, gzip and xz, with and without auto-detection. */
class TraceReaderTest {

    @TempDir
    Path dir;

    /** Writes {@code content} to {@code name}, compressed as its suffix says. */
    static Path write(Path dir, String name, byte[] content) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream raw = Files.newOutputStream(file);
             OutputStream out = name.endsWith(".gz") ? new GZIPOutputStream(raw)
                     : name.endsWith(".xz") ? new XZOutputStream(raw, new LZMA2Options())
                     : raw) {
            out.write(content);
        }
        return file;
    }

    static byte[] cache2k(int... keys) {
        ByteBuffer b = ByteBuffer.allocate(keys.length * 4); // big-endian
        for (int k : keys) {
            b.putInt(k);
        }
        return b.array();
    }

    private static long[] keys(Trace t) {
        long[] k = new long[t.length()];
        for (int i = 0; i < k.length; i++) {
            k[i] = t.key(i);
        }
        return k;
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".gz", ".xz"})
    void lirsTextOneKeyPerLine(String suffix) throws IOException {
        byte[] text = "5\n17\n\n*\n5\r\n123456789012\n".getBytes(StandardCharsets.US_ASCII);
        Path f = write(dir, "t.trace" + suffix, text);
        for (TraceFormat format : new TraceFormat[] {null, TraceFormat.LIRS}) {
            Trace t = TraceReader.read(f, format);
            assertArrayEquals(new long[] {5, 17, 5, 123456789012L}, keys(t));
            assertFalse(t.hasSizes());
            assertEquals(1, t.size(0));
            assertEquals("t.trace", t.name());
            assertEquals(3, t.distinctKeys());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".gz", ".xz"})
    void cache2kBigEndianInts(String suffix) throws IOException {
        // more than one 64 KiB read, and keys whose bytes include 0 and 0xFF
        int[] keys = new int[40_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i % 3 == 0 ? -i : i * 7919;
        }
        Path f = write(dir, "web.trace" + suffix, cache2k(keys));
        for (TraceFormat format : new TraceFormat[] {null, TraceFormat.CACHE2K}) {
            Trace t = TraceReader.read(f, format);
            assertEquals(keys.length, t.length());
            for (int i = 0; i < keys.length; i++) {
                assertEquals(keys[i], t.key(i));
            }
            assertEquals("web.trace", t.name());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".gz", ".xz"})
    void csvKeyAndSize(String suffix) throws IOException {
        byte[] text = "key,size\n1,100\n2, 4096\n1,100\n".getBytes(StandardCharsets.US_ASCII);
        Path f = write(dir, "s.trace" + suffix, text);
        for (TraceFormat format : new TraceFormat[] {null, TraceFormat.CSV}) {
            Trace t = TraceReader.read(f, format);
            assertArrayEquals(new long[] {1, 2, 1}, keys(t));
            assertTrue(t.hasSizes());
            assertEquals(4096, t.size(1));
            assertEquals((100 + 4096 + 100) / 3.0, t.meanSize(), 1e-9);
        }
    }

    @Test
    void csvSuffixSelectsCsvWithoutComma() throws IOException {
        Path f = write(dir, "x.csv.gz", "7,1\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals("x.csv", TraceFiles.traceName(f));
        assertTrue(TraceReader.read(f, null).hasSizes());
        assertEquals(TraceFormat.CSV, TraceFormat.detect("y.csv", new byte[0], 0));
    }

    @Test
    void malformedInputNamesFileAndPlace() throws IOException {
        Path lirs = write(dir, "bad.trace", "1\n2\nx3\n".getBytes(StandardCharsets.US_ASCII));
        IOException e = assertThrows(IOException.class, () -> TraceReader.read(lirs, null));
        assertTrue(e.getMessage().contains("bad.trace:3"), e.getMessage());

        Path bin = write(dir, "cut.bin", new byte[] {0, 0, 0, 1, 0, 0});
        e = assertThrows(IOException.class, () -> TraceReader.read(bin, TraceFormat.CACHE2K));
        assertTrue(e.getMessage().contains("2 byte(s)"), e.getMessage());

        Path csv = write(dir, "bad.csv", "1,0\n".getBytes(StandardCharsets.US_ASCII));
        e = assertThrows(IOException.class, () -> TraceReader.read(csv, null));
        assertTrue(e.getMessage().contains("size 0"), e.getMessage());
    }

    @Test
    void compressionIsToldByMagicNotName() throws IOException {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(gz)) {
            out.write("9\n8\n".getBytes(StandardCharsets.US_ASCII));
        }
        Path f = write(dir, "misnamed.txt", gz.toByteArray());
        assertArrayEquals(new long[] {9, 8}, keys(TraceReader.read(f, null)));
    }

    @Test
    void emptyTraceHasNoAccesses() throws IOException {
        assertEquals(0, TraceReader.read(write(dir, "e.xz", new byte[0]), null).length());
    }
}
