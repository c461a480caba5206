package dev.clockwork.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A typed, forgiving view of one parsed JSON object: the result formats grow fields over time, so
 * a missing field reads as {@code null}, {@code NaN} or an empty object instead of failing, and a
 * number written as a string (JMH writes {@code "NaN"}) still reads as a number.
 */
record Obj(JsonNode node) {

    static final Obj EMPTY = new Obj(JsonNodeFactory.instance.objectNode());

    /** The object view of a parsed value, or {@code null} when it is not an object. */
    static Obj of(JsonNode value) {
        return value != null && value.isObject() ? new Obj(value) : null;
    }

    /** The field names, in the order of the text. */
    List<String> keys() {
        List<String> keys = new ArrayList<>();
        node.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    boolean has(String key) {
        return node.hasNonNull(key);
    }

    /** The field as text (numbers and booleans spelled as JSON does), or {@code null}. */
    String string(String key) {
        return text(node.get(key));
    }

    /** The field as a number; {@code NaN} when missing or not numeric. */
    double number(String key) {
        JsonNode value = node.get(key);
        if (value == null) {
            return Double.NaN;
        }
        if (value.isNumber()) {
            return value.doubleValue();
        }
        if (value.isTextual()) {
            try {
                return Double.parseDouble(value.textValue().trim());
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
        Obj nested = of(node.get(key));
        return nested == null ? EMPTY : nested;
    }

    /**
     * The mean of all numbers in a field holding nested arrays of numbers (JMH's
     * {@code rawData}: forks of iterations); {@code NaN} when there are none.
     */
    double meanOfNumbers(String key) {
        double[] sumAndCount = new double[2];
        addNumbers(node.get(key), sumAndCount);
        return sumAndCount[1] > 0 ? sumAndCount[0] / sumAndCount[1] : Double.NaN;
    }

    private static void addNumbers(JsonNode value, double[] sumAndCount) {
        if (value == null) {
            return;
        }
        if (value.isNumber()) {
            sumAndCount[0] += value.doubleValue();
            sumAndCount[1]++;
        } else if (value.isArray()) {
            value.forEach(v -> addNumbers(v, sumAndCount));
        }
    }

    /** The field as an ordered map of texts (e.g. JMH params, bench flags); empty when missing. */
    Map<String, String> strings(String key) {
        Map<String, String> out = new LinkedHashMap<>();
        object(key).node.properties().forEach(e -> out.put(e.getKey(), text(e.getValue())));
        return out;
    }

    /**
     * A value as text: strings as they are, and a number with no fraction, however it is
     * written, as a whole number ({@code 10.0} reads "10", as a label shows it).
     */
    private static String text(JsonNode value) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (value.isTextual()) {
            return value.textValue();
        }
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            return Long.toString(value.longValue());
        }
        if (value.isNumber()) {
            double d = value.doubleValue();
            return d == Math.rint(d) && !Double.isInfinite(d) ? Long.toString((long) d)
                    : Double.toString(d);
        }
        return value.toString();
    }
}
