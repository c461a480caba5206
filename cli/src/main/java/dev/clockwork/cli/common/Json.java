package dev.clockwork.cli.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * The JSON of the commands' {@code -json} output: one compact object per line, fields in the
 * order they are put, through one shared Jackson mapper (thread-safe once configured).
 */
public final class Json {
    private Json() {
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** An empty object whose fields keep the order they are put in. */
    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /**
     * Puts a measured double rounded to six decimals (plenty for seconds and ratios, and the
     * line stays short); a value that is not finite has no JSON number and is put as null.
     */
    public static ObjectNode putRounded(ObjectNode node, String key, double value) {
        if (Double.isFinite(value)) {
            node.put(key, Math.round(value * 1e6) / 1e6);
        } else {
            node.putNull(key);
        }
        return node;
    }

    /** The node as one line of JSON. */
    public static String line(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of plain nodes always serializes", e);
        }
    }

    /**
     * Parses one line of JSON.
     *
     * @throws IllegalArgumentException if the line is not JSON
     */
    public static JsonNode read(String line) {
        try {
            return MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage() + " in "
                    + line, e);
        }
    }

    /**
     * A flag's value given as text, as the JSON value that reads back to the same text: a number
     * or boolean when the text is one spelled the way Java prints it ({@code 256}, {@code 0.25},
     * {@code true}), else a string. So a number can be read as a number, and {@link
     * JsonNode#asText()} gives back the exact text.
     */
    public static JsonNode flagValue(String text) {
        if (text.equals("true") || text.equals("false")) {
            return BooleanNode.valueOf(Boolean.parseBoolean(text));
        }
        try {
            long v = Long.parseLong(text);
            if (Long.toString(v).equals(text)) {
                return LongNode.valueOf(v);
            }
        } catch (NumberFormatException notALong) {
            // maybe a double
        }
        try {
            double d = Double.parseDouble(text);
            if (Double.isFinite(d) && Double.toString(d).equals(text)) {
                return DoubleNode.valueOf(d);
            }
        } catch (NumberFormatException notANumber) {
            // text
        }
        return TextNode.valueOf(text);
    }
}
