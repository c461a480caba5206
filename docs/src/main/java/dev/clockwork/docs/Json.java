package dev.clockwork.docs;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * Reads result files with Jackson, strictly (RFC 8259: no comments, no trailing commas or
 * tokens, no leading zeros), into its tree model: objects keep their field order, integers that
 * fit a {@code long} are {@code long} nodes, larger ones big-integer nodes, others doubles.
 * A malformed text is a {@link JsonException} that names the line and column.
 */
final class Json {
    private Json() {
    }

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** Parses one JSON value that must span all of {@code text} (surrounding whitespace aside). */
    static JsonNode parse(String text) {
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            throw at == null ? new JsonException(e.getOriginalMessage(), 0, 1, 1)
                    : new JsonException(e.getOriginalMessage(), (int) at.getCharOffset(),
                            at.getLineNr(), at.getColumnNr());
        }
        if (node == null || node.isMissingNode()) {
            throw new JsonException("unexpected end of input, expected a value", text.length(),
                    1, text.length() + 1);
        }
        return node;
    }
}
