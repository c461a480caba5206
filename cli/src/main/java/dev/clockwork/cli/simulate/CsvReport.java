package dev.clockwork.cli.simulate;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * {@code -csv}: the header {@value #HEADER}, then one row per result as it comes, the hit ratio
 * a fraction with four decimals; {@code threads} is the threads that replayed it. With
 * {@code -threads} above 1 the header is {@value #CONCURRENT_HEADER}: the same policy's
 * single-threaded hit ratio beside each concurrent one, and the Clockwork caches'
 * {@code admissionRejects} in both runs; a field that does not apply is empty (the
 * single-threaded figures of a row that is itself single-threaded, the rejects of a policy that
 * does not count them). A trace name holding a comma or quote is quoted (RFC 4180).
 */
public final class CsvReport implements SimReport {
    public static final String HEADER = "trace,capacity,policy,threads,hit_ratio";
    public static final String CONCURRENT_HEADER = HEADER
            + ",hit_ratio_1_thread,admission_rejects,admission_rejects_1_thread";

    private final PrintWriter out;
    private final boolean concurrent;

    /** @param concurrent whether {@code -threads} is above 1 ({@link #CONCURRENT_HEADER}) */
    public CsvReport(PrintWriter out, boolean concurrent) {
        this.out = out;
        this.concurrent = concurrent;
        out.println(concurrent ? CONCURRENT_HEADER : HEADER);
        out.flush();
    }

    @Override
    public void traceStarted(Trace trace) {
    }

    @Override
    public void row(SimResult r) {
        out.println(concurrent ? concurrentLine(r) : line(r));
        out.flush();
    }

    @Override
    public void traceDone() {
    }

    /** The CSV row of a result under {@link #HEADER}. */
    public static String line(SimResult r) {
        return quoted(r.trace()) + "," + r.capacity() + "," + r.policy() + "," + r.threads()
                + "," + ratio(r);
    }

    /** The CSV row of a result under {@link #CONCURRENT_HEADER}. */
    public static String concurrentLine(SimResult r) {
        SimResult single = r.singleThread();
        return line(r) + "," + (single == null ? "" : ratio(single)) + ","
                + rejects(r) + "," + (single == null ? "" : rejects(single));
    }

    private static String ratio(SimResult r) {
        return String.format(Locale.ROOT, "%.4f", r.hitRatio());
    }

    private static String rejects(SimResult r) {
        return r.admissionRejects() == SimResult.NOT_EXPOSED ? "" : "" + r.admissionRejects();
    }

    static String quoted(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }
}
