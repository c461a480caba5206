package dev.clockwork.cli.soak;

import java.util.Locale;

/**
 * The soak's rule for "RSS is flat", and how it shows memory. The RSS itself comes from
 * {@link dev.clockwork.cli.workload.ProcessStats#rssBytes}; where the OS does not give it the
 * RSS is unknown (-1) and the rule is not judged.
 */
final class SoakMemory {
    private SoakMemory() {
    }

    static final long MIB = 1024 * 1024;

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
