package dev.clockwork.cli.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Stalls of the platform, not of the cache: a thread that asks to sleep {@link #TICK_NANOS} at a
 * time and records how much longer each sleep took (jHiccup's method), plus the CPU time the
 * hypervisor took from this machine's CPUs meanwhile (the {@code steal} column of
 * {@code /proc/stat}). A pause that every thread of the process suffers (a safepoint, a
 * collector's pause, a descheduled virtual CPU) shows here as in the operations' latency; one
 * the operations show alone is theirs.
 *
 * <p>Started and stopped by one thread; the sleeper is a daemon that records into its own
 * histogram, read after {@link #stop()} has joined it.
 */
public final class Hiccups {
    /** How long the sleeper asks to sleep each time. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Path PROC_STAT = Path.of("/proc/stat");

    private final Histogram histogram = new Histogram(TimeUnit.MINUTES.toNanos(10), 2);
    private volatile boolean running = true;
    private Thread sleeper;
    private long stealAtStart;

    /**
     * What the sleeper saw.
     *
     * @param p999Nanos the 99.9th percentile of the oversleep
     * @param maxNanos the longest oversleep
     * @param stealMillis CPU time stolen by the hypervisor from all CPUs, or -1 where unknown
     */
    public record Seen(long p999Nanos, long maxNanos, long stealMillis) {
        /** The report's line. */
        public String describe() {
            return String.format(Locale.ROOT, "Platform stalls (a thread sleeping"
                            + " 1 ms at a time, as jHiccup): P99.9 %.3f ms, max %.3f ms; CPU"
                            + " stolen by the hypervisor: %s%n", p999Nanos / 1e6, maxNanos / 1e6,
                    stealMillis < 0 ? "n/a" : stealMillis + " ms");
        }
    }

    public Hiccups start() {
        stealAtStart = stealMillis();
        sleeper = Thread.ofPlatform().daemon().name("clockwork-hiccups").start(this::sleep);
        return this;
    }

    private void sleep() {
        while (running) {
            long t0 = System.nanoTime();
            LockSupport.parkNanos(TICK_NANOS);
            long over = System.nanoTime() - t0 - TICK_NANOS;
            histogram.recordValue(Math.max(0, Math.min(over,
                    histogram.getHighestTrackableValue())));
        }
    }

    /** Stops the sleeper and returns what it saw. */
    public Seen stop() {
        running = false;
        boolean interrupted = false;
        while (sleeper.isAlive()) {
            try {
                sleeper.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        long steal = stealMillis();
        return new Seen(histogram.getValueAtPercentile(99.9), histogram.getMaxValue(),
                steal < 0 || stealAtStart < 0 ? -1 : steal - stealAtStart);
    }

    /** The steal time of all CPUs in milliseconds since boot, or -1 where unknown. */
    static long stealMillis() {
        try {
            String cpu = Files.readAllLines(PROC_STAT).get(0);
            String[] f = cpu.trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...; in USER_HZ (100 a second)
            return f[0].equals("cpu") && f.length > 8 ? Long.parseLong(f[8]) * 10 : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
