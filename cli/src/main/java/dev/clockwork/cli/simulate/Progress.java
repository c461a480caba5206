package dev.clockwork.cli.simulate;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress lines on stderr during a long replay: at most one per interval. {@link Replay} calls
 * {@link #maybeReport} once every {@link #CHECK_EVERY} accesses, so a replay shorter than that
 * never reads the clock.
 */
public final class Progress {
    /** Accesses between two looks at the clock (a power of two). */
    static final int CHECK_EVERY = 1 << 20;

    private final PrintWriter err;
    private final long intervalNanos;
    private long last = System.nanoTime();

    /** @param intervalSeconds 0 for no progress lines */
    public Progress(PrintWriter err, double intervalSeconds) {
        this.err = err;
        this.intervalNanos = intervalSeconds <= 0 ? Long.MAX_VALUE : (long) (intervalSeconds * 1e9);
    }

    /** A progress that never prints. */
    public static Progress none() {
        return new Progress(null, 0);
    }

    void maybeReport(String what, long done, long total) {
        if (intervalNanos == Long.MAX_VALUE) {
            return;
        }
        long now = System.nanoTime();
        if (now - last >= intervalNanos) {
            last = now;
            err.printf(Locale.ROOT, "simulate: %s: %.1f of %.1f M accesses%n", what, done / 1e6,
                    total / 1e6);
            err.flush();
        }
    }
}
