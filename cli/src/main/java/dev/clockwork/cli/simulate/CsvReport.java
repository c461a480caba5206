package dev.clockwork.cli.simulate;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * {@code -csv}: the header {@value #HEADER}, then one row per result as it comes, the hit ratio
 * a fraction with four decimals. A trace name holding a comma or quote is quoted (RFC 4180).
 */
public final class CsvReport implements SimReport {
    public static final String HEADER = "trace,capacity,policy,hit_ratio";

    private final PrintWriter out;

    public CsvReport(PrintWriter out) {
        this.out = out;
        out.println(HEADER);
        out.flush();
    }

    @Override
    public void traceStarted(Trace trace) {
    }

    @Override
    public void row(SimResult r) {
        out.println(line(r));
        out.flush();
    }

    @Override
    public void traceDone() {
    }

    /** The CSV row of a result. */
    public static String line(SimResult r) {
        return quoted(r.trace()) + "," + r.capacity() + "," + r.policy() + ","
                + String.format(Locale.ROOT, "%.4f", r.hitRatio());
    }

    static String quoted(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }
}
