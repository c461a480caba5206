package dev.clockwork.cli.simulate;

import java.io.PrintWriter;

/**
 * Where results go, in the order the simulation makes them: {@link #traceStarted}, then one
 * {@link #row} per (capacity, policy) of that trace, then {@link #traceDone}; trace after trace.
 */
public interface SimReport {

    /** The report {@code -csv}, {@code -json} or neither asks for, printing to {@code out}. */
    static SimReport of(boolean csv, boolean json, PrintWriter out) {
        if (csv) {
            return new CsvReport(out);
        }
        return json ? new JsonReport(out) : new TableReport(out);
    }

    void traceStarted(Trace trace);

    void row(SimResult result);

    void traceDone();
}
