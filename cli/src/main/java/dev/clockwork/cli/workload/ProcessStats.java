package dev.clockwork.cli.workload;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The process's memory as the commands report it. Resident set sizes come from
 * {@code /proc/self/status} ({@code VmRSS} now, {@code VmHWM} the peak); where there is no such
 * file they are unknown.
 */
public final class ProcessStats {
    private ProcessStats() {
    }

    private static final Path STATUS = Path.of("/proc/self/status");

    /** Peak resident set size in bytes (VmHWM), when the OS provides it. */
    public static OptionalLong peakRssBytes() {
        return parseVmHwm(STATUS);
    }

    public static OptionalLong parseVmHwm(Path status) {
        long kib = statusKib(status, "VmHWM:");
        return kib < 0 ? OptionalLong.empty() : OptionalLong.of(kib * 1024);
    }

    /** Current resident set size in bytes (VmRSS), or -1 when the OS does not say. */
    public static long rssBytes() {
        long kib = statusKib(STATUS, "VmRSS:");
        return kib < 0 ? -1 : kib * 1024;
    }

    /**
     * The value in KiB of a "Name:   123 kB" line of a /proc status file, or -1 when the file or
     * line is missing or malformed.
     */
    public static long statusKib(Path status, String field) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith(field)) {
                    String[] parts = line.substring(field.length()).trim().split("\\s+");
                    return Long.parseLong(parts[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or an unexpected format: no number
        }
        return -1;
    }

    /**
     * The memory of this machine, or of this container if it is limited (the JVM's own view:
     * {@code OperatingSystemMXBean.getTotalMemorySize}), when the JVM provides it.
     */
    public static OptionalLong physicalMemoryBytes() {
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof OperatingSystemMXBean os) {
            long bytes = os.getTotalMemorySize();
            if (bytes > 0) {
                return OptionalLong.of(bytes);
            }
        }
        return OptionalLong.empty();
    }

    /** Java heap in use now (no GC requested). */
    public static long heapUsedBytes() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Heap bytes in use right after a full GC has been requested. */
    public static long heapUsedAfterGc() {
        System.gc();
        return heapUsedBytes();
    }

    /** Bytes as whole MiB. */
    public static String mib(long bytes) {
        return String.valueOf(Math.round(bytes / (1024.0 * 1024.0)));
    }
}
