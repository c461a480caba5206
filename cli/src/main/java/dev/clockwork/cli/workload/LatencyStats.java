package dev.clockwork.cli.workload;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Per-thread operation latencies in nanoseconds: an HdrHistogram (3 significant digits) for the
 * percentiles, plus exact count, sum, sum of squares, min and max for the average and standard
 * deviation (computed as RocksDB's HistogramStat does). Not thread-safe; merge after the run.
 */
public final class LatencyStats {
    /** Longer latencies are recorded as this value. */
    public static final long MAX_TRACKABLE_NANOS = TimeUnit.MINUTES.toNanos(10);

    private final Histogram histogram = new Histogram(MAX_TRACKABLE_NANOS, 3);
    private long count;
    private long sum;
    private double sumOfSquares;
    private long min = Long.MAX_VALUE;
    private long max;

    public void record(long nanos) {
        long v = Math.max(0, Math.min(nanos, MAX_TRACKABLE_NANOS));
        histogram.recordValue(v);
        count++;
        sum += v;
        sumOfSquares += (double) v * v;
        if (v < min) {
            min = v;
        }
        if (v > max) {
            max = v;
        }
    }

    public void add(LatencyStats other) {
        histogram.add(other.histogram);
        count += other.count;
        sum += other.sum;
        sumOfSquares += other.sumOfSquares;
        min = Math.min(min, other.min);
        max = Math.max(max, other.max);
    }

    public long count() {
        return count;
    }

    public long max() {
        return count == 0 ? 0 : max;
    }

    public double average() {
        return count == 0 ? 0.0 : (double) sum / count;
    }

    public double standardDeviation() {
        if (count == 0) {
            return 0.0;
        }
        double n = count;
        double s = sum;
        double variance = (sumOfSquares * n - s * s) / (n * n);
        return Math.sqrt(Math.max(variance, 0.0));
    }

    /** The value at a percentile (0..100), from the histogram. */
    public double percentile(double p) {
        return count == 0 ? 0.0 : histogram.getValueAtPercentile(p);
    }

    /** The summary lines of RocksDB's {@code HistogramStat::ToString()} (without its buckets). */
    public String format() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Count: %d Average: %.4f  StdDev: %.2f%n",
                count, average(), standardDeviation()));
        sb.append(String.format(Locale.ROOT, "Min: %d  Median: %.4f  Max: %d%n",
                count == 0 ? 0 : min, percentile(50), count == 0 ? 0 : max));
        sb.append(String.format(Locale.ROOT,
                "Percentiles: P50: %.2f P75: %.2f P99: %.2f P99.9: %.2f P99.99: %.2f%n",
                percentile(50), percentile(75), percentile(99), percentile(99.9),
                percentile(99.99)));
        sb.append("------------------------------------------------------")
                .append(System.lineSeparator());
        return sb.toString();
    }
}
