package dev.clockwork.docs;

import java.util.List;

import org.knowm.xchart.internal.chartpart.Chart;

/**
 * One chart to write as {@code fileName} plus the table with the same numbers, the chart's title
 * and the result files it came from (relative paths), which {@code tables.md} quotes.
 */
record Figure(String fileName, String title, List<String> sources, Table table,
        Chart<?, ?> chart) {
}
