package dev.clockwork.cli.simulate;

import java.io.PrintWriter;

/**
 * Where results go, in the order the simulation makes them: {@link #traceStarted}, then one
 * {@link #row} per (capacity, policy) of that trace, then {@link #traceDone}; trace after trace.
 */
public interface SimReport {

    /**
     * The report {@code -csv}, {@code -json} or neither asks for, printing to {@code out}.
     *
     * @param threads {@code -threads}: above 1, results carry their single-threaded figures
     */
    static SimReport of(boolean csv, boolean json, int threads, PrintWriter out) {
        if (csv) {
            return new CsvReport(out, threads > 1);
        }
        return json ? new JsonReport(out) : new TableReport(out);
    }

    void traceStarted(Trace trace);

    void row(SimResult result);

    void traceDone();
}
