package dev.clockwork.cli.soak;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Memory numbers sampled during {@code clockwork soak}, and its rule for "RSS is flat".
 *
 * <p>The current resident set size comes from {@code VmRSS} in {@code /proc/self/status}
 * ({@link ProcessStats} reads the peak, {@code VmHWM}, from the same file); where there is no
 * such file the RSS is unknown (-1) and the RSS rule is not judged.
 */
final class SoakMemory {
    private SoakMemory() {
    }

    static final long MIB = 1024 * 1024;
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    /** Current RSS in bytes, or -1 when the OS does not say. */
    static long rssBytes() {
        long kib = statusKib(STATUS, "VmRSS:");
        return kib < 0 ? -1 : kib * 1024;
    }

    /**
     * The value in KiB of a "Name:   123 kB" line of a /proc status file, or -1 when the file or
     * line is missing or malformed.
     */
    static long statusKib(Path status, String field) {
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

    /** Java heap in use (no GC requested). */
    static long heapUsedBytes() {
        return MEMORY.getHeapMemoryUsage().getUsed();
    }

    /** Java heap committed. */
    static long heapCommittedBytes() {
        MemoryUsage u = MEMORY.getHeapMemoryUsage();
        return u.getCommitted();
    }

    /**
     * The growth allowed after the warm-up: {@code max(pct% of the RSS at the end of the warm-up,
     * toleranceMib MiB)}.
     */
    static long rssAllowance(long rssAtWarmupEnd, double pct, long toleranceMib) {
        return Math.max((long) (rssAtWarmupEnd * pct / 100.0), toleranceMib * MIB);
    }

    /**
     * The RSS rule: flat when the largest RSS sampled after the warm-up is at most the RSS at the
     * end of the warm-up plus {@link #rssAllowance}.
     */
    static boolean rssFlat(long rssAtWarmupEnd, long maxRssAfterWarmup, double pct,
                           long toleranceMib) {
        return maxRssAfterWarmup <= rssAtWarmupEnd + rssAllowance(rssAtWarmupEnd, pct,
                toleranceMib);
    }

    /** Bytes as MiB with one decimal. */
    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / (double) MIB);
    }
}
