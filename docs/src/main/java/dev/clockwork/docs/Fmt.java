package dev.clockwork.docs;

import java.util.Locale;

/**
 * Number formatting for the tables: fixed decimals, {@link Locale#ROOT} (a dot, never a comma, on
 * any machine), and {@code n/a} for what was not measured, so reruns give byte-identical text.
 */
final class Fmt {

    static final String NA = "n/a";
    private static final double MIB = 1024.0 * 1024.0;

    private Fmt() {
    }

    static String fixed(double value, int decimals) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return NA;
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** Operations per second as millions, 2 decimals. */
    static String mops(double opsPerSec) {
        return fixed(opsPerSec / 1e6, 2);
    }

    /** Bytes as MiB, 1 decimal; negative (unknown) as n/a. */
    static String mib(long bytes) {
        return bytes < 0 ? NA : fixed(bytes / MIB, 1);
    }

    static double toMib(long bytes) {
        return bytes < 0 ? Double.NaN : bytes / MIB;
    }

    /** Nanoseconds as microseconds, 2 decimals. */
    static String micros(double nanos) {
        return fixed(nanos / 1000.0, 2);
    }

    /** A count; negative (unknown) as n/a. */
    static String count(long value) {
        return value < 0 ? NA : Long.toString(value);
    }
}
