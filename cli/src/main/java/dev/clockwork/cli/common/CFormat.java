package dev.clockwork.cli.common;

import dev.clockwork.cli.workload.Random64;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;

/** C {@code printf} conversions that Java's {@code Formatter} does differently. */
public final class CFormat {
    private CFormat() {
    }

    /**
     * C's {@code %g}: 6 significant digits, trailing zeros removed, exponent form outside
     * 1e-4..1e6.
     */
    public static String g(double v) {
        if (Double.isNaN(v)) {
            return "nan";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        if (v == 0.0) {
            return 1.0 / v < 0 ? "-0" : "0";
        }
        BigDecimal rounded = new BigDecimal(v).round(new MathContext(6, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= 6) {
            String mantissa = stripZeros(rounded.movePointLeft(exponent)
                    .setScale(5, RoundingMode.HALF_EVEN).toPlainString());
            int e = Math.abs(exponent);
            return mantissa + "e" + (exponent < 0 ? "-" : "+") + (e < 10 ? "0" : "") + e;
        }
        return stripZeros(rounded.setScale(Math.max(0, 5 - exponent), RoundingMode.HALF_EVEN)
                .toPlainString());
    }

    private static String stripZeros(String s) {
        if (s.indexOf('.') < 0) {
            return s;
        }
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
    }

    /** RocksDB's {@code BytesToHumanString}: "%.2f KB|MB|GB|TB" with 1024 steps, from KB up. */
    public static String bytesToHuman(long bytes) {
        String[] units = {"KB", "MB", "GB", "TB"};
        double size = Random64.unsignedToDouble(bytes) / 1024;
        int unit = 0;
        while (unit < 3 && size >= 1024) {
            size /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.2f %s", size, units[unit]);
    }
}
