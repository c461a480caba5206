package dev.clockwork.docs;

import java.util.List;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * One chart to write as {@code fileName} plus the table with the same numbers, the chart's title
 * and the result files it came from (relative paths), which {@code tables.md} quotes. A figure
 * without a chart ({@link #tableOnly}) is just a table section, headed by its name: for numbers
 * that no single chart shows.
 */
record Figure(String fileName, String title, List<String> sources, Table table,
        Chart<?, ?> chart) {

    static final String PNG = ".png";

    /** A table section with no chart; {@code name} heads it and has no {@code .png}. */
    static Figure tableOnly(String name, String title, List<String> sources, Table table) {
        return new Figure(name, title, sources, table, null);
    }

    boolean hasChart() {
        return chart != null;
    }
}
