package dev.clockwork.offheap;

import static dev.clockwork.offheap.DumpTestKit.dumpToBytes;
import static dev.clockwork.offheap.DumpTestKit.key0;
import static dev.clockwork.offheap.DumpTestKit.key1;
import static dev.clockwork.offheap.DumpTestKit.load;
import static dev.clockwork.offheap.DumpTestKit.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Priority;
import dev.clockwork.cache.dump.DumpFormat;
import dev.clockwork.cache.dump.DumpFormatException;
import dev.clockwork.cache.dump.DumpFormatException.Problem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every refusal of {@link EngineCache#load}, on every cache type: a flipped byte in the header,
 * a block header, a record, a block's checksum or the trailer; the dump cut at every block and
 * record boundary and at a stride through it; a foreign file; another version; bytes after the
 * trailer. Each is refused with a {@link DumpFormatException} of its problem and a message that
 * names it, and the cache loaded into, which holds entries of its own, is left as it was: the
 * same usage, entry count and contents (records of blocks before the damage were inserted, then
 * erased again). No native memory is left behind ({@code NativeLeakCheck}, and checked here).
 */
class DumpRefusalTest {
    private final List<EngineCache> caches = new ArrayList<>();

    private EngineCache cache(CacheKind kind, long seed) {
        EngineCache cache = (EngineCache) kind.builder(128 << 20, 8 << 10).numShardBits(2)
                .hashSeed(seed).admission(AdmissionPolicy.NONE).build();
        caches.add(cache);
        return cache;
    }

    @AfterEach
    void closeAll() {
        caches.forEach(EngineCache::close);
        assertEquals(0, NativeMemory.outstandingBytes(), "native bytes leaked");
    }

    /** A dump of ~3.3 MiB: four blocks of 1 MiB and a trailer. */
    private byte[] dump(CacheKind kind) {
        EngineCache source = cache(kind, 1);
        for (int k = 0; k < 400; k++) {
            byte[] v = value(k, 8 << 10);
            source.insert(key0(k), key1(k), v, 0, v.length, v.length, Priority.values()[k % 3]);
        }
        return dumpToBytes(source);
    }

    /** The cache loaded into: entries of its own (keys the dump does not have). */
    private EngineCache target(CacheKind kind) {
        EngineCache target = cache(kind, 2);
        for (int k = 10_000; k < 10_050; k++) {
            byte[] v = value(k, 1000);
            target.insert(key0(k), key1(k), v, 0, v.length, v.length, Priority.LOW);
        }
        return target;
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aFlippedByteAnywhereIsRefusedAndUndone(CacheKind kind) throws IOException {
        byte[] dump = dump(kind);
        EngineCache target = target(kind);
        Snapshot before = new Snapshot(target);
        SplittableRandom random = new SplittableRandom(kind.ordinal());
        for (int at : positions(dump, random)) {
            byte[] bad = dump.clone();
            bad[at] ^= (byte) (1 << random.nextInt(8));
            DumpFormatException e = assertThrows(DumpFormatException.class,
                    () -> load(target, bad), "byte " + at + " flipped");
            Problem expected = at < 8 ? Problem.NOT_A_DUMP
                    : at < 12 ? Problem.UNSUPPORTED_VERSION : Problem.CHECKSUM_MISMATCH;
            assertEquals(expected, e.problem(), "byte " + at + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(expected == Problem.CHECKSUM_MISMATCH ? "CRC32C"
                    : expected == Problem.NOT_A_DUMP ? "not a cache dump" : "version"),
                    e.getMessage());
            before.assertSame(target, "after byte " + at + " was refused");
        }
        assertEquals(400, load(target, dump).inserted(), "the whole dump still loads");
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aDumpCutShortIsRefusedAndUndone(CacheKind kind) throws IOException {
        byte[] dump = dump(kind);
        EngineCache target = target(kind);
        Snapshot before = new Snapshot(target);
        Set<Integer> cuts = new TreeSet<>(boundaries(dump));
        for (int cut = 0; cut < dump.length; cut += 4093) {
            cuts.add(cut);
        }
        for (int b : boundaries(dump)) {
            cuts.add(Math.max(0, b - 1));
            cuts.add(Math.min(dump.length - 1, b + 1));
        }
        cuts.remove(dump.length);
        for (int cut : cuts) {
            byte[] bad = Arrays.copyOf(dump, cut);
            DumpFormatException e = assertThrows(DumpFormatException.class,
                    () -> load(target, bad), "cut at " + cut);
            assertEquals(Problem.TRUNCATED, e.problem(), "cut at " + cut + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("truncated") && e.getMessage().contains(
                    "after " + cut + " bytes"), e.getMessage());
            before.assertSame(target, "after the cut at " + cut);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void foreignFilesOtherVersionsAndTrailingBytesAreRefused(CacheKind kind) throws IOException {
        byte[] dump = dump(kind);
        EngineCache target = target(kind);
        Snapshot before = new Snapshot(target);
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H'};
        byte[] text = "key,value\n1,2\n3,4\n5,6\n7,8\n9,10\n".getBytes(StandardCharsets.US_ASCII);
        for (byte[] foreign : List.of(png, text, new byte[4096], new byte[] {1, 2, 3})) {
            DumpFormatException e = assertThrows(DumpFormatException.class,
                    () -> load(target, foreign));
            assertEquals(Problem.NOT_A_DUMP, e.problem(), e.getMessage());
            assertTrue(e.getMessage().startsWith("not a cache dump"), e.getMessage());
        }
        byte[] v2 = dump.clone();
        ByteBuffer header = ByteBuffer.wrap(v2).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(8, 2);
        CRC32C crc = new CRC32C();
        crc.update(v2, 0, DumpFormat.HEADER_BYTES - 4);
        header.putInt(DumpFormat.HEADER_BYTES - 4, (int) crc.getValue()); // a well-made v2
        DumpFormatException e = assertThrows(DumpFormatException.class, () -> load(target, v2));
        assertEquals(Problem.UNSUPPORTED_VERSION, e.problem());
        assertEquals("cache dump format version 2 is not supported: this reader reads version 1"
                + " only", e.getMessage());
        byte[] longer = Arrays.copyOf(dump, dump.length + 1);
        e = assertThrows(DumpFormatException.class, () -> load(target, longer));
        assertEquals(Problem.TRAILING_BYTES, e.problem(), e.getMessage());
        byte[] twice = Arrays.copyOf(dump, 2 * dump.length);
        System.arraycopy(dump, 0, twice, dump.length, dump.length);
        e = assertThrows(DumpFormatException.class, () -> load(target, twice));
        assertEquals(Problem.TRAILING_BYTES, e.problem(), e.getMessage());
        before.assertSame(target, "after the refusals");
    }

    /** A refused file changes nothing at all: it is verified whole before the first insert. */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aRefusedFileChangesNothingAtAll(CacheKind kind, @TempDir Path dir) throws IOException {
        byte[] dump = dump(kind);
        EngineCache target = target(kind);
        long usage = target.usage();
        long slots = Snapshot.slotsOf(target);
        Snapshot before = new Snapshot(target);
        Path file = dir.resolve("bad.dump");
        for (int at : new int[] {40, dump.length / 2, dump.length - 40, dump.length - 3}) {
            byte[] bad = dump.clone();
            bad[at] ^= 0x10;
            Files.write(file, bad);
            DumpFormatException e = assertThrows(DumpFormatException.class,
                    () -> target.load(file));
            assertEquals(Problem.CHECKSUM_MISMATCH, e.problem(), e.getMessage());
            assertEquals(usage, target.usage(), "usage exact, Auto included");
            assertEquals(slots, Snapshot.slotsOf(target), "no slot grown");
            before.assertSame(target, "after the refused file");
        }
        Files.write(file, Arrays.copyOf(dump, dump.length - 1));
        assertEquals(Problem.TRUNCATED, assertThrows(DumpFormatException.class,
                () -> target.load(file)).problem());
        assertEquals(usage, target.usage());
        Files.write(file, dump);
        assertEquals(400, target.load(file).inserted());
    }

    /**
     * Where to flip: every byte of the file header, of each block's header and checksum and of
     * the trailer, each record header's bytes, and 64 random bytes of values.
     */
    private static List<Integer> positions(byte[] dump, SplittableRandom random) {
        Set<Integer> at = new TreeSet<>();
        for (int i = 0; i < DumpFormat.HEADER_BYTES; i++) {
            at.add(i);
        }
        ByteBuffer b = ByteBuffer.wrap(dump).order(ByteOrder.LITTLE_ENDIAN);
        int p = DumpFormat.HEADER_BYTES;
        while (true) {
            for (int i = 0; i < DumpFormat.BLOCK_HEADER_BYTES; i++) {
                at.add(p + i);
            }
            int length = b.getInt(p);
            if (length == DumpFormat.TRAILER_MARK) {
                for (int i = 0; i < DumpFormat.TRAILER_BYTES; i++) {
                    at.add(p + DumpFormat.BLOCK_HEADER_BYTES + i);
                }
                break;
            }
            int r = p + DumpFormat.BLOCK_HEADER_BYTES;
            for (int i = 0; i < DumpFormat.RECORD_HEADER_BYTES; i++) {
                at.add(r + i); // the block's first record header
            }
            int end = r + length;
            for (int i = 0; i < DumpFormat.BLOCK_CRC_BYTES; i++) {
                at.add(end + i);
            }
            for (int i = 0; i < 16; i++) {
                at.add(r + random.nextInt(length));
            }
            p = end + DumpFormat.BLOCK_CRC_BYTES;
        }
        return new ArrayList<>(at);
    }

    /** The offsets where the header, each block, each record and the trailer start, and the end. */
    private static List<Integer> boundaries(byte[] dump) {
        List<Integer> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(dump).order(ByteOrder.LITTLE_ENDIAN);
        out.add(0);
        int p = DumpFormat.HEADER_BYTES;
        while (true) {
            out.add(p);
            int length = b.getInt(p);
            if (length == DumpFormat.TRAILER_MARK) {
                out.add(p + DumpFormat.BLOCK_HEADER_BYTES);
                out.add(dump.length);
                return out;
            }
            int r = p + DumpFormat.BLOCK_HEADER_BYTES;
            int end = r + length;
            while (r < end) {
                out.add(r);
                r += DumpFormat.RECORD_HEADER_BYTES + b.getInt(r + 24);
            }
            out.add(end);
            p = end + DumpFormat.BLOCK_CRC_BYTES;
        }
    }

    /**
     * A cache's usage, entry count and contents, to compare after a refusal. An Auto table's
     * usage may differ by the metadata of the slots it grew by, which it keeps (see
     * {@link EngineCache#load(Path)}); all else is exact.
     */
    private record Snapshot(long usage, long entries, long slots, Map<DumpTestKit.Key,
            DumpTestKit.Entry> contents) {
        Snapshot(EngineCache cache) {
            this(cache.usage(), cache.entryCount(), slotsOf(cache), DumpTestKit.contents(cache));
        }

        private static long slotsOf(EngineCache cache) {
            return cache instanceof AutoHyperClockCache auto ? auto.tableSlots() : 0;
        }

        void assertSame(EngineCache cache, String when) {
            long grown = (slotsOf(cache) - slots) * 64; // Auto only: metadata is charged here
            assertEquals(usage + grown, cache.usage(), "usage " + when);
            assertEquals(entries, cache.entryCount(), "entry count " + when);
            assertEquals(contents, DumpTestKit.contents(cache), "contents " + when);
        }
    }
}
