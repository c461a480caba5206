package dev.clockwork.cli.workload;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/** Process-level memory numbers for the Clockwork additions to cache_bench's report. */
public final class ProcessStats {
    private ProcessStats() {
    }

    /** Peak resident set size in bytes (VmHWM in /proc/self/status), when the OS provides it. */
    public static OptionalLong peakRssBytes() {
        return parseVmHwm(Path.of("/proc/self/status"));
    }

    public static OptionalLong parseVmHwm(Path status) {
        try {
            List<String> lines = Files.readAllLines(status);
            for (String line : lines) {
                if (line.startsWith("VmHWM:")) {
                    String[] parts = line.substring("VmHWM:".length()).trim().split("\\s+");
                    long kib = Long.parseLong(parts[0]);
                    return OptionalLong.of(kib * 1024);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or an unexpected format: no number
        }
        return OptionalLong.empty();
    }

    /**
     * The memory of this machine, or of this container if it is limited (the JVM's own view:
     * {@code OperatingSystemMXBean.getTotalMemorySize}), when the JVM provides it.
     */
    public static OptionalLong physicalMemoryBytes() {
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            long bytes = os.getTotalMemorySize();
            if (bytes > 0) {
                return OptionalLong.of(bytes);
            }
        }
        return OptionalLong.empty();
    }

    /** Heap bytes in use right after a full GC has been requested. */
    public static long heapUsedAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    public static String mib(long bytes) {
        return String.valueOf(Math.round(bytes / (1024.0 * 1024.0)));
    }
}
