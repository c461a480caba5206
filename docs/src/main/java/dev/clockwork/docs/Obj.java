package dev.clockwork.docs;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A typed, forgiving view of one parsed JSON object: the result formats grow fields over time, so
 * a missing field reads as {@code null}, {@code NaN} or an empty object instead of failing, and a
 * number written as a string (JMH writes {@code "NaN"}) still reads as a number.
 */
record Obj(Map<String, Object> fields) {

    static final Obj EMPTY = new Obj(Map.of());

    /** The object view of a parsed value, or {@code null} when it is not an object. */
    @SuppressWarnings("unchecked")
    static Obj of(Object value) {
        return value instanceof Map<?, ?> map ? new Obj((Map<String, Object>) map) : null;
    }

    boolean has(String key) {
        return fields.get(key) != null;
    }

    /** The field as text (numbers and booleans spelled as JSON does), or {@code null}. */
    String string(String key) {
        return text(fields.get(key));
    }

    /** The field as a number; {@code NaN} when missing or not numeric. */
    double number(String key) {
        Object value = fields.get(key);
        if (value instanceof Number n) {
            return n.doubleValue();
        }
        if (value instanceof String s) {
            try {
                return Double.parseDouble(s.trim());
            } catch (NumberFormatException notANumber) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }

    /** The field as a whole number, or {@code absent} when missing or not numeric. */
    long integer(String key, long absent) {
        double value = number(key);
        return Double.isNaN(value) ? absent : (long) value;
    }

    /** The field as an object; {@link #EMPTY} when missing or not an object. */
    Obj object(String key) {
        Obj nested = of(fields.get(key));
        return nested == null ? EMPTY : nested;
    }

    /**
     * The mean of all numbers in a field holding nested arrays of numbers (JMH's
     * {@code rawData}: forks of iterations); {@code NaN} when there are none.
     */
    double meanOfNumbers(String key) {
        double[] sumAndCount = new double[2];
        addNumbers(fields.get(key), sumAndCount);
        return sumAndCount[1] > 0 ? sumAndCount[0] / sumAndCount[1] : Double.NaN;
    }

    private static void addNumbers(Object value, double[] sumAndCount) {
        if (value instanceof Number n) {
            sumAndCount[0] += n.doubleValue();
            sumAndCount[1]++;
        } else if (value instanceof java.util.List<?> list) {
            list.forEach(v -> addNumbers(v, sumAndCount));
        }
    }

    /** The field as an ordered map of texts (e.g. JMH params, bench flags); empty when missing. */
    Map<String, String> strings(String key) {
        Map<String, String> out = new LinkedHashMap<>();
        object(key).fields.forEach((k, v) -> out.put(k, text(v)));
        return out;
    }

    private static String text(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Double d && d == Math.rint(d) && !d.isInfinite()) {
            return Long.toString(d.longValue());
        }
        return value.toString();
    }
}
