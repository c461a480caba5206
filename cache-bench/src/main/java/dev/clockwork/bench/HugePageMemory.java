package dev.clockwork.bench;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Anonymous memory with transparent huge pages asked for, for a benchmark that compares native
 * memory on 4 KiB pages (malloc's) with the same on 2 MiB pages: {@code mmap} of the size plus
 * 2 MiB, the start rounded up to 2 MiB, then {@code madvise(MADV_HUGEPAGE)}. On a kernel whose
 * THP mode is {@code madvise} (as on this project's machines) only memory advised so, or a JVM
 * heap with {@code -XX:+UseTransparentHugePages}, gets huge pages; whether it got them is in
 * {@code /proc/<pid>/smaps} ({@code AnonHugePages}). Linux x86-64 constants; setup only.
 */
final class HugePageMemory implements AutoCloseable {
    private static final long HUGE_PAGE = 2L << 20;
    private static final int PROT_READ_WRITE = 0x3;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x22;
    private static final int MADV_HUGEPAGE = 14;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = downcall("mmap", FunctionDescriptor.of(
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG));
    private static final MethodHandle MADVISE = downcall("madvise", FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT));
    private static final MethodHandle MUNMAP = downcall("munmap", FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));

    private final long mapping;
    private final long mappedBytes;
    /** The 2 MiB-aligned start of the usable {@code bytes}. */
    final long address;

    HugePageMemory(long bytes) {
        mappedBytes = bytes + HUGE_PAGE;
        try {
            mapping = (long) MMAP.invokeExact(0L, mappedBytes, PROT_READ_WRITE,
                    MAP_PRIVATE_ANONYMOUS, -1, 0L);
            if (mapping == -1L) {
                throw new OutOfMemoryError("mmap of " + mappedBytes + " bytes failed");
            }
            address = (mapping + HUGE_PAGE - 1) & -HUGE_PAGE;
            int advised = (int) MADVISE.invokeExact(address, bytes, MADV_HUGEPAGE);
            if (advised != 0) {
                throw new IllegalStateException("madvise(MADV_HUGEPAGE) failed");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("mmap/madvise downcall failed", t);
        }
    }

    /** The usable memory, {@code bytes} long, unscoped: valid until {@link #close}. */
    MemorySegment segment(long bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes);
    }

    @Override
    public void close() {
        try {
            int unused = (int) MUNMAP.invokeExact(mapping, mappedBytes);
        } catch (Throwable t) {
            throw new AssertionError("munmap downcall failed", t);
        }
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(),
                descriptor);
    }
}
