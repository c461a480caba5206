package dev.clockwork.offheap.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Native memory for tables and for record and value slab chunks: libc
 * {@code malloc}/{@code free} through FFM downcalls, plus a process-wide count of outstanding bytes
 * that tests assert returns to zero.
 *
 * <p>Values are blocks of the cache's {@link ValueSlabs}, carved from chunks allocated here,
 * because a slab stays mapped until the cache closes (an optimistic reader, or a view read after
 * its release, never faults) and a block costs a CAS rather than a downcall. Blocks of 32 MiB or
 * more give their pages back to the kernel when freed ({@link #returnPages}), as glibc would by
 * unmapping them, but the addresses stay mapped. The clock tables ask for transparent huge pages
 * ({@link #adviseHugePages}); {@code -Dclockwork.hugePages=false} turns that off.
 *
 * <p>Both downcalls are declared with {@code long} instead of {@code ADDRESS} for pointers: on the
 * 64-bit ABIs we support they are passed in the same integer register, and a {@code long} avoids
 * allocating a {@code MemorySegment} per call. They use {@link Linker.Option#critical} because
 * malloc and free are short and never call back into Java, which skips the thread-state transition.
 */
public final class NativeAllocator {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MALLOC = downcall("malloc",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle ALIGNED_ALLOC = downcall("aligned_alloc",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG));
    private static final MethodHandle FREE = downcall("free",
            FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG));

    /**
     * {@code madvise(addr, length, MADV_DONTNEED)}: not critical, because returning many pages
     * may take a while and a critical call would hold off safepoints meanwhile; no errno capture,
     * which would allocate a state segment on a free path that allocates nothing.
     */
    private static final MethodHandle MADVISE = LINKER.downcallHandle(
            LINKER.defaultLookup().find("madvise").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT));
    /** The same value on Linux and macOS: the pages' contents may be dropped. */
    private static final int MADV_DONTNEED = 4;
    /** Linux: back this range with transparent huge pages where the kernel can. */
    private static final int MADV_HUGEPAGE = 14;
    /** The x86-64 and aarch64 (4 KiB base page) huge page. */
    public static final long HUGE_PAGE = 2L << 20;
    /** The kernel's page size: advice is given for whole pages only. */
    private static final long OS_PAGE = osPageSize();

    // mmap/munmap for the Auto table's reservation: rare calls, so no critical option, and errno
    // captured to say why a reservation failed.
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(
            MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle MMAP = LINKER.downcallHandle(
            LINKER.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(
            LINKER.defaultLookup().find("munmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG),
            Linker.Option.captureCallState("errno"));
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final boolean MAC = System.getProperty("os.name",
            "").toLowerCase().contains("mac");
    /** MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE (values differ between Linux and macOS). */
    private static final int MAP_FLAGS = MAC ? 0x0002 | 0x1000 | 0x0040 : 0x02 | 0x20 | 0x4000;
    private static final long MAP_FAILED = -1L;
    /** System property that turns huge pages off ({@code false}); read at each allocation. */
    public static final String HUGE_PAGES_PROPERTY = "clockwork.hugePages";

    private static final LongAdder OUTSTANDING = new LongAdder();
    private static final LongAdder RESERVED = new LongAdder();

    private NativeAllocator() {
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        var symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc function not found: " + name));
        return LINKER.downcallHandle(symbol, descriptor, Linker.Option.critical(false));
    }

    /** Native bytes currently allocated by all Clockwork caches in this process. */
    public static long outstandingBytes() {
        return OUTSTANDING.sum();
    }

    /**
     * Allocates {@code size} bytes (at least 1) and returns the address.
     *
     * @throws OutOfMemoryError naming the size when libc cannot allocate
     */
    public static long allocate(long size) {
        long address;
        try {
            address = (long) MALLOC.invokeExact(Math.max(size, 1L));
        } catch (Throwable t) {
            throw new AssertionError("malloc downcall failed", t);
        }
        return counted(address, size);
    }

    /** Allocates {@code size} bytes aligned to {@code alignment} (a power of two). */
    public static long allocateAligned(long size, long alignment) {
        long rounded = (Math.max(size, 1L) + alignment - 1) & -alignment;
        long address;
        try {
            address = (long) ALIGNED_ALLOC.invokeExact(alignment, rounded);
        } catch (Throwable t) {
            throw new AssertionError("aligned_alloc downcall failed", t);
        }
        return counted(address, size);
    }

    /**
     * Fault injection for tests: counts down allocations; the one that brings it to zero fails as
     * if malloc had returned NULL. Zero (the default) injects nothing, at the cost of one volatile
     * read per allocation.
     */
    private static final AtomicInteger FAILURE_COUNTDOWN = new AtomicInteger();

    /** Makes the allocation after the next {@code skip} ones fail (tests only). */
    public static void failAllocationAfter(int skip) {
        FAILURE_COUNTDOWN.set(skip + 1);
    }

    /** Cancels an injected failure that has not happened yet (tests only). */
    public static void clearInjectedFailure() {
        FAILURE_COUNTDOWN.set(0);
    }

    private static long counted(long address, long size) {
        if (FAILURE_COUNTDOWN.get() > 0 && FAILURE_COUNTDOWN.decrementAndGet() == 0
                && address != 0L) {
            try {
                FREE.invokeExact(address);
            } catch (Throwable t) {
                throw new AssertionError("free downcall failed", t);
            }
            address = 0L;
        }
        if (address == 0L) {
            throw new OutOfMemoryError("native allocation of " + size + " bytes failed");
        }
        OUTSTANDING.add(size);
        return address;
    }

    /**
     * Frees memory from {@link #allocate} or {@link #allocateAligned}; {@code size} as allocated.
     */
    public static void free(long address, long size) {
        try {
            FREE.invokeExact(address);
        } catch (Throwable t) {
            throw new AssertionError("free downcall failed", t);
        }
        OUTSTANDING.add(-size);
    }

    /**
     * Gives the whole pages in {@code [address, address + length)} back to the kernel: they stay
     * mapped, read as zeros on Linux (or as their old bytes on macOS) and become resident again
     * when touched. For free value blocks of page classes ({@link SizeClasses#returnsPages}).
     *
     * @return the bytes of the whole pages given back (0 if the range holds none)
     * @throws IllegalStateException if the kernel refuses: the range is not mapped (a bug here)
     */
    public static long returnPages(long address, long length) {
        long start = (address + OS_PAGE - 1) & -OS_PAGE;
        long end = (address + length) & -OS_PAGE;
        if (end <= start) {
            return 0;
        }
        int result;
        try {
            result = (int) MADVISE.invokeExact(start, end - start, MADV_DONTNEED);
        } catch (Throwable t) {
            throw new AssertionError("madvise downcall failed", t);
        }
        if (result != 0) {
            throw new IllegalStateException("madvise of " + (end - start) + " bytes at 0x"
                    + Long.toHexString(start) + " failed");
        }
        return end - start;
    }

    /**
     * Asks for transparent huge pages on the whole 2 MiB pages inside {@code [address, address +
     * size)}: for the clock tables, read at random slots, whose reads otherwise miss the TLB
     * about once per access (costly under a VM's nested paging). Not for value slab chunks: a
     * huge page becomes resident whole at its first touch, and a small cache whose value sizes
     * move through many classes then holds ~20 MiB more (the moving-mix soak at 16 MiB: 96.6
     * MiB of growth against 75.8 without). Advice only: the kernel may refuse (THP off), which
     * changes nothing but speed, so the result is not checked.
     *
     * @return {@code address}
     */
    public static long adviseHugePages(long address, long size) {
        if (MAC || size < HUGE_PAGE
                || "false".equals(System.getProperty(HUGE_PAGES_PROPERTY))) {
            return address;
        }
        long start = (address + HUGE_PAGE - 1) & -HUGE_PAGE;
        long end = (address + size) & -HUGE_PAGE;
        if (end > start) {
            try {
                int ignored = (int) MADVISE.invokeExact(start, end - start, MADV_HUGEPAGE);
            } catch (Throwable t) {
                throw new AssertionError("madvise downcall failed", t);
            }
        }
        return address;
    }

    private static long osPageSize() {
        MethodHandle getpagesize = LINKER.downcallHandle(
                LINKER.defaultLookup().find("getpagesize").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
        try {
            return (int) getpagesize.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError("getpagesize downcall failed", t);
        }
    }

    /** Bytes of address space currently reserved by {@link #reserve} (committed or not). */
    public static long reservedBytes() {
        return RESERVED.sum();
    }

    /**
     * Reserves {@code size} bytes of zeroed, private, anonymous address space with
     * {@code MAP_NORESERVE}: no swap is set aside and a page becomes resident only when first
     * touched, so a table can reserve room for its largest size and pay only for what it uses.
     *
     * @throws OutOfMemoryError naming the size and errno when the kernel refuses
     */
    public static long reserve(long size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE_LAYOUT);
            long address = (long) MMAP.invokeExact(state, 0L, size, PROT_READ_WRITE, MAP_FLAGS, -1,
                    0L);
            if (address == MAP_FAILED) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new OutOfMemoryError("mmap reservation of " + size + " bytes failed (errno "
                        + errno + ")");
            }
            RESERVED.add(size);
            return adviseHugePages(address, size);
        } catch (OutOfMemoryError e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("mmap downcall failed", t);
        }
    }

    /** Returns a reservation from {@link #reserve} to the kernel, resident pages and all. */
    public static void unreserve(long address, long size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE_LAYOUT);
            int result = (int) MUNMAP.invokeExact(state, address, size);
            if (result != 0) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new IllegalStateException("munmap of " + size + " bytes at 0x"
                        + Long.toHexString(address) + " failed (errno " + errno + ")");
            }
            RESERVED.add(-size);
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("munmap downcall failed", t);
        }
    }

    /**
     * {@code mincore(addr, length, vec)}: which pages of a range are resident. Diagnostics only
     * ({@link ValueSlabs#residentBytes}), so neither critical nor errno-capturing.
     */
    private static final MethodHandle MINCORE = LINKER.downcallHandle(
            LINKER.defaultLookup().find("mincore").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));

    /**
     * Bytes of the pages of {@code [address, address + length)} that are resident, as the kernel
     * tells ({@code mincore}); the range must be mapped.
     *
     * @throws IllegalStateException if the kernel refuses (a range not mapped)
     */
    public static long residentBytes(long address, long length) {
        long start = address & -OS_PAGE;
        long end = (address + length + OS_PAGE - 1) & -OS_PAGE;
        long pages = (end - start) / OS_PAGE;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vector = arena.allocate(Math.max(1, pages));
            int result = (int) MINCORE.invokeExact(start, end - start, vector.address());
            if (result != 0) {
                throw new IllegalStateException("mincore of " + (end - start) + " bytes at 0x"
                        + Long.toHexString(start) + " failed");
            }
            long resident = 0;
            for (long i = 0; i < pages; i++) {
                resident += vector.get(ValueLayout.JAVA_BYTE, i) & 1;
            }
            return resident * OS_PAGE;
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("mincore downcall failed", t);
        }
    }
}
