package dev.clockwork.cli.simulate;

import dev.clockwork.cli.workload.Random64;
import java.util.Arrays;

/**
 * Zipf-distributed ranks in {@code [0, n)}: rank r is drawn with probability proportional to
 * {@code 1 / (r + 1)^s}. By inversion over the cumulative distribution, precomputed once
 * (8n bytes) and searched in O(log n) per draw; exact up to double rounding.
 */
final class ZipfSampler {
    private final double[] cumulative;

    ZipfSampler(int n, double exponent) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be >= 1, was " + n);
        }
        cumulative = new double[n];
        double sum = 0;
        for (int r = 0; r < n; r++) {
            sum += 1.0 / Math.pow(r + 1, exponent);
            cumulative[r] = sum;
        }
        for (int r = 0; r < n; r++) {
            cumulative[r] /= sum;
        }
        cumulative[n - 1] = 1.0;
    }

    /** The next rank, from 53 random bits of {@code random}. */
    int next(Random64 random) {
        double u = (random.next() >>> 11) * 0x1.0p-53; // uniform in [0, 1)
        int i = Arrays.binarySearch(cumulative, u);
        // an exact match at i: u is past rank i's share; otherwise the insertion point
        return i >= 0 ? Math.min(i + 1, cumulative.length - 1) : -i - 1;
    }
}
