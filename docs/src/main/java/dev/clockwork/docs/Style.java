package dev.clockwork.docs;

import java.awt.Color;
import java.awt.Font;
import java.awt.font.FontRenderContext;
import java.util.Collection;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.DoubleStream;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries.CategorySeriesRenderStyle;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The one look of every chart: 900x500 pixels, fonts large enough to read when the PNG is scaled
 * down in a Markdown page, the legend under the plot, a white background and a fixed colour order
 * (so the same series keeps its colour across reruns).
 */
final class Style {

    static final int WIDTH = 900;
    static final int HEIGHT = 500;
    /** Above this max/min ratio a linear axis hides the small values: switch to log. */
    static final double LOG_RATIO = 100;
    /** About how many characters of legend fit in one row under a plot of {@link #WIDTH}. */
    private static final int LEGEND_ROW_CHARS = 110;

    private static final Color[] COLORS = {
        new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
        new Color(0xbcbd22), new Color(0x17becf),
    };

    private Style() {
    }

    /** An empty grouped bar chart. */
    static CategoryChart bars(String title, String xTitle, String yTitle) {
        CategoryChart chart = new CategoryChart(WIDTH, HEIGHT);
        dress(chart, title, xTitle, yTitle);
        chart.getStyler().setAvailableSpaceFill(0.8).setOverlapped(false);
        return chart;
    }

    /**
     * An empty chart of lines over categories (e.g. percentiles), markers on the points: for
     * values that read as a curve rather than as separate bars.
     */
    static CategoryChart categoryLines(String title, String xTitle, String yTitle) {
        CategoryChart chart = new CategoryChart(WIDTH, HEIGHT);
        dress(chart, title, xTitle, yTitle);
        chart.getStyler().setDefaultSeriesRenderStyle(CategorySeriesRenderStyle.Line)
                .setOverlapped(true) // each point over its category, not spread like bars
                .setMarkerSize(8);
        return chart;
    }

    /** The colour of series {@code i} in the fixed order, for a series that must keep its own. */
    static Color color(int i) {
        return COLORS[Math.floorMod(i, COLORS.length)];
    }

    /** An empty line chart with markers on the measured points. */
    static XYChart lines(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChart(WIDTH, HEIGHT);
        dress(chart, title, xTitle, yTitle);
        chart.getStyler().setMarkerSize(8);
        return chart;
    }

    /** Adds a line series that draws every point as a circle. */
    static void addLine(XYChart chart, String name, double[] x, double[] y) {
        XYSeries series = chart.addSeries(name, x, y);
        series.setMarker(SeriesMarkers.CIRCLE);
    }

    /** Rotates the category labels when they would otherwise run into each other. */
    static void fitLabels(CategoryChart chart, Collection<String> categories) {
        int longest = categories.stream().mapToInt(String::length).max().orElse(0);
        if ((long) longest * categories.size() > 90) {
            // vertical: a slanted label is anchored by its end and reads as the next bar's
            chart.getStyler().setXAxisLabelRotation(90);
        }
    }

    /** Stacks the legend entries when one row under the plot could not hold them. */
    static void fitLegend(Chart<?, ?> chart) {
        int width = chart.getSeriesMap().keySet().stream().mapToInt(n -> n.length() + 6).sum();
        if (width > LEGEND_ROW_CHARS) {
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        }
    }

    /** A log y axis when the positive values span more than {@link #LOG_RATIO}. */
    static void logYIfWide(AxesChartStyler styler, Collection<Double> values) {
        if (isWide(values)) {
            logY(styler, values);
        }
    }

    /**
     * A log y axis starting at the power of ten below the smallest positive value (bar charts
     * otherwise start at 0, which a log axis cannot show).
     */
    static void logY(AxesChartStyler styler, Collection<Double> values) {
        double min = positives(values).min().orElse(1);
        styler.setYAxisLogarithmic(true);
        styler.setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
    }

    static boolean isWide(Collection<Double> values) {
        double min = positives(values).min().orElse(1);
        double max = positives(values).max().orElse(1);
        return max / min > LOG_RATIO;
    }

    private static DoubleStream positives(Collection<Double> values) {
        return values.stream().filter(Objects::nonNull).mapToDouble(Double::doubleValue)
                .filter(v -> v > 0 && !Double.isInfinite(v));
    }

    /** Bold title type, one point smaller at a time until the title fits the chart's width. */
    static Font titleFont(String title) {
        FontRenderContext context = new FontRenderContext(null, true, true);
        int size = 17;
        Font font = new Font(Font.SANS_SERIF, Font.BOLD, size);
        while (size > 10 && font.getStringBounds(title, context).getWidth() > WIDTH - 30) {
            font = new Font(Font.SANS_SERIF, Font.BOLD, --size);
        }
        return font;
    }

    private static <S extends AxesChartStyler> void dress(Chart<S, ?> chart, String title,
            String xTitle, String yTitle) {
        chart.setTitle(title);
        chart.setXAxisTitle(xTitle);
        chart.setYAxisTitle(yTitle);
        S styler = chart.getStyler();
        styler.setChartTitleFont(titleFont(title))
                .setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13))
                .setLegendPosition(Styler.LegendPosition.OutsideS)
                .setLegendLayout(Styler.LegendLayout.Horizontal)
                .setChartBackgroundColor(Color.WHITE)
                .setChartTitleBoxVisible(false)
                .setSeriesColors(COLORS)
                .setAntiAlias(true);
        styler.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14))
                .setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13))
                .setLocale(Locale.ROOT);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotGridLinesColor(new Color(0xdddddd));
    }
}
