package dev.clockwork.bench;

import dev.clockwork.offheap.memory.NativeAllocator;
import dev.clockwork.offheap.memory.ValueSlabs;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One native allocation and its release per call, {@code size} bytes, nothing written to the
 * memory by the benchmark. The allocator is internal to cache-offheap (a package it does not
 * export); on the class path, as here, its public class is reachable.
 *
 * <ul>
 *   <li>{@code nativeMemory}: the cache's allocator, {@code NativeAllocator.allocate/free}: libc
 *       malloc/free downcalls with {@code Linker.Option.critical(false)}, pointers as {@code long},
 *       plus a {@code LongAdder} add per call for the outstanding-bytes count.</li>
 *   <li>{@code valueSlabs}: what the caches use for values since the slabs came in,
 *       {@code ValueSlabs.allocate} and {@code freeGuarded} (an eviction's free, inside the close
 *       gate): one CAS on a striped Treiber stack each, no downcall; one slab for all threads.</li>
 *   <li>{@code mallocCritical}: the same critical downcalls, built here, without the count.</li>
 *   <li>{@code mallocNonCritical}: the same downcalls without {@code critical} (full thread-state
 *       transition per call), no count.</li>
 *   <li>{@code arenaConfined}: {@code Arena.ofConfined()}, {@code allocate(size)} (malloc + zero
 *       fill), {@code close()}.</li>
 *   <li>{@code arenaShared}: the same with {@code Arena.ofShared()}; close handshakes all
 *       threads.</li>
 *   <li>{@code allocateDirect}: {@code ByteBuffer.allocateDirect(size)} (malloc + zero fill +
 *       direct-memory accounting); never freed explicitly — its Cleaner frees it after a GC, so
 *       this measures allocation plus the GC pressure it causes.</li>
 * </ul>
 * {@code _1t} methods run one thread, {@code _2t} two.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class AllocatorBenchmark {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final FunctionDescriptor MALLOC_DESC =
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    private static final FunctionDescriptor FREE_DESC =
            FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG);
    private static final MemorySegment MALLOC_SYM = libc("malloc");
    private static final MemorySegment FREE_SYM = libc("free");

    private static final MethodHandle MALLOC_CRITICAL =
            LINKER.downcallHandle(MALLOC_SYM, MALLOC_DESC, Linker.Option.critical(false));
    private static final MethodHandle FREE_CRITICAL =
            LINKER.downcallHandle(FREE_SYM, FREE_DESC, Linker.Option.critical(false));
    private static final MethodHandle MALLOC_PLAIN = LINKER.downcallHandle(MALLOC_SYM, MALLOC_DESC);
    private static final MethodHandle FREE_PLAIN = LINKER.downcallHandle(FREE_SYM, FREE_DESC);

    @Param({"64", "8192"})
    public long size;

    private Arena slabArena;
    private ValueSlabs slabs;

    @Setup
    public void openSlabs() {
        slabArena = Arena.ofShared();
        slabs = new ValueSlabs(MemorySegment.NULL.reinterpret(Long.MAX_VALUE, slabArena, null));
    }

    @TearDown
    public void closeSlabs() {
        slabArena.close();
        slabs.freeAll();
    }

    private static MemorySegment libc(String name) {
        return LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc function not found: " + name));
    }

    // ------------------------------------------------------------------ bodies

    private static long nativeMemory(long size) {
        long address = NativeAllocator.allocate(size);
        NativeAllocator.free(address, size);
        return address;
    }

    private long valueSlabs(long size) {
        long address = slabs.allocate((int) size);
        slabs.freeGuarded(address, (int) size);
        return address;
    }

    private static long mallocFree(MethodHandle malloc, MethodHandle free, long size) {
        try {
            long address = (long) malloc.invokeExact(size);
            if (address == 0L) {
                throw new OutOfMemoryError("malloc(" + size + ")");
            }
            free.invokeExact(address);
            return address;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static long arenaAllocateClose(Arena arena, long size) {
        try (arena) {
            return arena.allocate(size).address();
        }
    }

    // ------------------------------------------------------------------ one thread

    @Benchmark
    @Threads(1)
    public long nativeMemory_1t() {
        return nativeMemory(size);
    }

    @Benchmark
    @Threads(1)
    public long valueSlabs_1t() {
        return valueSlabs(size);
    }

    @Benchmark
    @Threads(1)
    public long mallocCritical_1t() {
        return mallocFree(MALLOC_CRITICAL, FREE_CRITICAL, size);
    }

    @Benchmark
    @Threads(1)
    public long mallocNonCritical_1t() {
        return mallocFree(MALLOC_PLAIN, FREE_PLAIN, size);
    }

    @Benchmark
    @Threads(1)
    public long arenaConfined_1t() {
        return arenaAllocateClose(Arena.ofConfined(), size);
    }

    @Benchmark
    @Threads(1)
    public long arenaShared_1t() {
        return arenaAllocateClose(Arena.ofShared(), size);
    }

    @Benchmark
    @Threads(1)
    public ByteBuffer allocateDirect_1t() {
        return ByteBuffer.allocateDirect((int) size);
    }

    // ------------------------------------------------------------------ two threads

    @Benchmark
    @Threads(2)
    public long nativeMemory_2t() {
        return nativeMemory(size);
    }

    @Benchmark
    @Threads(2)
    public long valueSlabs_2t() {
        return valueSlabs(size);
    }

    @Benchmark
    @Threads(2)
    public long mallocCritical_2t() {
        return mallocFree(MALLOC_CRITICAL, FREE_CRITICAL, size);
    }

    @Benchmark
    @Threads(2)
    public long mallocNonCritical_2t() {
        return mallocFree(MALLOC_PLAIN, FREE_PLAIN, size);
    }

    @Benchmark
    @Threads(2)
    public long arenaConfined_2t() {
        return arenaAllocateClose(Arena.ofConfined(), size);
    }

    @Benchmark
    @Threads(2)
    public long arenaShared_2t() {
        return arenaAllocateClose(Arena.ofShared(), size);
    }

    @Benchmark
    @Threads(2)
    public ByteBuffer allocateDirect_2t() {
        return ByteBuffer.allocateDirect((int) size);
    }
}
