package dev.clockwork.bench;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.EngineCache;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How fast a cache dumps and loads ({@code EngineCache.dump}, {@code load}), one thread: a cache
 * of {@value #CAPACITY_MIB} MiB holding about 1 GiB of blocks of 4, 8 and 16 KiB, in equal
 * numbers, with mixed priorities, admission off. Each operation is one whole dump or load; the
 * score is seconds per operation, and the GiB/s is {@code fileBytes} (printed in the setup) over
 * it.
 *
 * <ul>
 *   <li>{@code dumpToNull}: into a channel that drops the bytes: the walk, the copy into the
 *       block buffer and the checksums.</li>
 *   <li>{@code dumpToFile}: into a file under {@code java.io.tmpdir}, through the page cache
 *       (not synced: what the disk takes later is the disk's speed, not the dump's).</li>
 *   <li>{@code loadFromMemory}: from a channel over the dump held in native memory, into a new
 *       empty cache (made and closed outside the timing): one pass, checks and inserts.</li>
 *   <li>{@code loadFromFile}: {@code load(Path)}: the file read twice, once to verify it whole,
 *       once to insert (the file is in the page cache: it was just written).</li>
 *   <li>{@code insertFloor}: the same entries inserted into a new cache straight from one
 *       {@code byte[]}, without a dump: what a load cannot go below (the inserts, the new
 *       cache's first touch of its memory), so that {@code loadFromMemory / insertFloor} is
 *       what the format and its checks add.</li>
 * </ul>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class DumpLoadBenchmark {
    static final long CAPACITY_MIB = 1100;
    static final long VALUE_TOTAL = 1L << 30;

    @Param({"auto", "fixed", "lru"})
    public String type;

    private EngineCache source;
    private EngineCache target;
    private Path file;
    private Arena arena;
    private MemorySegment dump;
    private final byte[] floorBlock = new byte[16 << 10];
    private static final int[] SIZES = {4 << 10, 8 << 10, 16 << 10};
    private static final Priority[] PRIORITIES = Priority.values();

    static EngineCache build(String type) {
        long capacity = CAPACITY_MIB << 20;
        return switch (type) {
            case "auto" -> HyperClockCache.builder().capacity(capacity)
                    .admission(AdmissionPolicy.NONE).build();
            case "fixed" -> HyperClockCache.builder().capacity(capacity)
                    .estimatedEntryCharge(9 << 10)
                    .admission(AdmissionPolicy.NONE).build();
            case "lru" -> LruCache.builder().capacity(capacity)
                    .admission(AdmissionPolicy.NONE).build();
            default -> throw new IllegalArgumentException("type: " + type);
        };
    }

    @Setup(Level.Trial)
    public void fill() throws IOException {
        source = build(type);
        SplittableRandom random = new SplittableRandom(42);
        byte[] block = new byte[16 << 10];
        random.nextBytes(block);
        random.nextBytes(floorBlock);
        long k = 0;
        for (long bytes = 0; bytes < VALUE_TOTAL; k++) {
            int size = SIZES[(int) (k % 3)];
            block[0] = (byte) k; // no two values alike
            source.insert(k, ~k, block, 0, size, size, PRIORITIES[(int) (k % 3)]);
            bytes += size;
        }
        file = Files.createTempFile("clockwork-dump-bench-", ".dump");
        long fileBytes = source.dump(file).fileBytes();
        arena = Arena.ofShared();
        dump = arena.allocate(fileBytes, 64);
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            long read = 0;
            while (read < fileBytes) {
                read += in.read(dump.asSlice(read).asByteBuffer());
            }
        }
        System.out.printf("%n%s: %d entries, dump of %d bytes (%.3f GiB)%n", type,
                source.entryCount(), fileBytes, fileBytes / (double) (1L << 30));
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        source.close();
        arena.close();
        Files.deleteIfExists(file);
    }

    @Setup(Level.Invocation)
    public void newTarget() {
        target = build(type);
    }

    @TearDown(Level.Invocation)
    public void closeTarget() {
        target.close();
    }

    @Benchmark
    public long insertFloor() {
        long k = 0;
        for (long bytes = 0; bytes < VALUE_TOTAL; k++) {
            int size = SIZES[(int) (k % 3)];
            floorBlock[0] = (byte) k;
            target.insert(k, ~k, floorBlock, 0, size, size, PRIORITIES[(int) (k % 3)]);
            bytes += size;
        }
        return k;
    }

    @Benchmark
    public long dumpToNull() throws IOException {
        return source.dump(new NullChannel()).fileBytes();
    }

    @Benchmark
    public long dumpToFile() throws IOException {
        return source.dump(file).fileBytes();
    }

    @Benchmark
    public long loadFromMemory() throws IOException {
        return target.load(new SegmentChannel(dump)).inserted();
    }

    @Benchmark
    public long loadFromFile() throws IOException {
        return target.load(file).inserted();
    }

    /** Drops what it is given. */
    static final class NullChannel implements WritableByteChannel {
        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    /** Reads a segment from its start. */
    static final class SegmentChannel implements ReadableByteChannel {
        private final MemorySegment source;
        private long position;

        SegmentChannel(MemorySegment source) {
            this.source = source;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (position == source.byteSize()) {
                return -1;
            }
            int n = (int) Math.min(dst.remaining(), source.byteSize() - position);
            // ofBuffer's segment starts at the buffer's position
            MemorySegment.copy(source, position, MemorySegment.ofBuffer(dst), 0, n);
            dst.position(dst.position() + n);
            position += n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
