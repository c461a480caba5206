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
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;
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

    /** The message of the IOException reading {@code file} throws. */
    private static String failure(Path file, TraceFormat format, long maxAccesses) {
        IOException e = assertThrows(IOException.class,
                () -> TraceReader.read(file, format, maxAccesses));
        String m = e.getMessage();
        assertTrue(m.startsWith(file.toString()), m);
        assertFalse(m.contains("null"), m);
        assertEquals(1, m.lines().count(), m);
        return m;
    }

    @Test
    void accessesPastTheLimitAreRefusedNamingTheFlag() throws IOException {
        Path lirs = write(dir, "five.trace", "1\n2\n3\n4\n5\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals(5, TraceReader.read(lirs, null, 5).length());
        assertTrue(failure(lirs, null, 4).contains("more than 4 accesses (-max_accesses=4;"));

        Path bin = write(dir, "five.bin", cache2k(1, 2, 3, 4, 5));
        assertEquals(5, TraceReader.read(bin, TraceFormat.CACHE2K, 5).length());
        assertTrue(failure(bin, TraceFormat.CACHE2K, 4).contains("-max_accesses=4"));

        Path csv = write(dir, "five.csv", "k,s\n1,1\n2,1\n3,1\n4,1\n5,1\n"
                .getBytes(StandardCharsets.US_ASCII));
        assertEquals(5, TraceReader.read(csv, null, 6).length(), "the header is a line too");
        assertTrue(failure(csv, null, 5).contains("-max_accesses=5"));
    }

    /** A file of empty lines holds no access, but is bounded all the same. */
    @Test
    void blankLinesCountTowardsTheLimit() throws IOException {
        Path f = write(dir, "blank.trace.gz",
                "\n".repeat(100_000).getBytes(StandardCharsets.US_ASCII));
        assertEquals(0, TraceReader.read(f, null, 100_000).length());
        assertTrue(failure(f, null, 99_999).contains("more than 99999 accesses"));
    }

    /** Zeros decompress to any length: bounded by the limit, not by the heap. */
    @Test
    void aGzipOfZerosStopsAtTheLimitOrTheLineLength() throws IOException {
        Path f = write(dir, "zeros.gz", new byte[8 << 20]); // 8 MiB of zeros, 8 KiB compressed
        assertTrue(Files.size(f) < 64 << 10);
        assertTrue(failure(f, null, 1000).contains("more than 1000 accesses"), "binary: keys");
        String m = failure(f, TraceFormat.LIRS, 1000);
        assertTrue(m.startsWith(f + ":1: line longer than " + TraceLines.MAX_LINE_BYTES
                + " bytes"), m);
    }

    @Test
    void aLineMayBeAsLongAsTheLimit() throws IOException {
        String longest = "0".repeat(TraceLines.MAX_LINE_BYTES - 1) + "7";
        Path f = write(dir, "long.trace", (longest + "\r\n" + longest + "0\n")
                .getBytes(StandardCharsets.US_ASCII));
        assertTrue(failure(f, null, 10).startsWith(f + ":2: line longer than"));
        Path ok = write(dir, "ok.trace", (longest + "\r\n" + longest).getBytes(
                StandardCharsets.US_ASCII));
        assertArrayEquals(new long[] {7, 7}, keys(TraceReader.read(ok, null)));
    }

    private static byte[] gzip(byte[] content) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(bytes)) {
            out.write(content);
        }
        return bytes.toByteArray();
    }

    private static byte[] xz(byte[] content) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream out = new XZOutputStream(bytes, new LZMA2Options())) {
            out.write(content);
        }
        return bytes.toByteArray();
    }

    private static byte[] someKeys() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            text.append(i * 7919 % 1000).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Cut anywhere, a compressed trace says it ends early, never "null". */
    @ParameterizedTest
    @ValueSource(ints = {2, 5, 10, 30, -9})
    void truncatedGzipSaysItEndsEarly(int cut) throws IOException {
        byte[] whole = gzip(someKeys());
        int length = cut > 0 ? cut : whole.length + cut;
        Path f = Files.write(dir.resolve("cut.trace.gz"), Arrays.copyOf(whole, length));
        assertEquals(f + ": the gzip data ends early (is the file truncated?)",
                failure(f, null, 1_000_000));
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 40, -20})
    void truncatedXzSaysWhatIsWrong(int cut) throws IOException {
        byte[] whole = xz(someKeys());
        int length = cut > 0 ? cut : whole.length + cut;
        Path f = Files.write(dir.resolve("cut.trace.xz"), Arrays.copyOf(whole, length));
        String m = failure(f, null, 1_000_000);
        assertTrue(m.startsWith(f + ": the xz data "), m);
    }

    @Test
    void corruptGzipSaysSo() throws IOException {
        byte[] bytes = gzip(someKeys());
        for (int i = 12; i < bytes.length - 8; i += 7) {
            bytes[i] ^= (byte) 0x5A;
        }
        Path f = Files.write(dir.resolve("corrupt.trace.gz"), bytes);
        String m = failure(f, null, 1_000_000);
        assertTrue(m.startsWith(f + ": the gzip data is corrupt ("), m);
    }

    /**
     * An xz header may ask for a 1.5 GiB dictionary, allocated before any data is read: refused
     * past {@link TraceFiles#XZ_MEMORY_LIMIT_KIB}.
     */
    @Test
    void xzAskingForAHugeDictionaryIsRefused() throws IOException {
        byte[] bytes = xz(someKeys());
        // stream header (12 bytes), then the block header: size, flags, then the one filter:
        // id 0x21 (LZMA2), 1 byte of properties (the dictionary size), padding, CRC32
        int block = 12;
        int headerSize = ((bytes[block] & 0xFF) + 1) * 4;
        assertEquals(0x21, bytes[block + 2]);
        assertEquals(1, bytes[block + 3]);
        bytes[block + 4] = 36; // a 1 GiB dictionary (the largest xz -9 makes is 64 MiB)
        CRC32 crc = new CRC32();
        crc.update(bytes, block, headerSize - 4);
        ByteBuffer.wrap(bytes, block + headerSize - 4, 4).order(ByteOrder.LITTLE_ENDIAN)
                .putInt((int) crc.getValue());
        Path f = Files.write(dir.resolve("huge.trace.xz"), bytes);
        String m = failure(f, null, 1_000_000);
        assertTrue(m.startsWith(f + ": the xz data needs "), m);
        assertTrue(m.contains("more than the limit of " + TraceFiles.XZ_MEMORY_LIMIT_KIB / 1024
                + " MiB"), m);
    }

    /** A bad key is quoted short and printable: a binary line cannot flood or drive a terminal. */
    @Test
    void badKeysAreQuotedShortAndEscaped() throws IOException {
        byte[] line = new byte[200];
        Arrays.fill(line, (byte) 0x1B);
        Path f = write(dir, "esc.trace", (new String(line, StandardCharsets.ISO_8859_1) + "\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        String m = failure(f, TraceFormat.LIRS, 10);
        assertTrue(m.contains("key '" + "\\x1B".repeat(40) + "...'"), m);
        assertTrue(m.chars().allMatch(c -> c >= 0x20 && c <= 0x7E), m);
    }
}
