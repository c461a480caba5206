package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small recursive-descent JSON parser (RFC 8259): objects become insertion-ordered
 * {@code Map<String, Object>}, arrays {@code List<Object>}, strings {@code String}, integers that
 * fit {@code Long}, other numbers {@code Double}, {@code true}/{@code false} {@code Boolean} and
 * {@code null} {@code null}.
 *
 * <p>Written here rather than pulled in as a dependency because the result files are small and
 * the charts module should need nothing but XChart; errors name the line and column so a broken
 * result file is easy to find.
 */
final class Json {

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** Parses one JSON value that must span all of {@code text} (surrounding whitespace aside). */
    static Object parse(String text) {
        Json parser = new Json(text);
        parser.skipWhitespace();
        Object value = parser.value();
        parser.skipWhitespace();
        if (parser.pos < text.length()) {
            throw parser.error("unexpected '" + text.charAt(parser.pos) + "' after the value");
        }
        return value;
    }

    private Object value() {
        if (pos >= text.length()) {
            throw error("unexpected end of input, expected a value");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || isDigit(c)) {
                    yield number();
                }
                throw error("unexpected '" + c + "', expected a value");
            }
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        expect('{');
        skipWhitespace();
        if (tryConsume('}')) {
            return Collections.unmodifiableMap(map);
        }
        do {
            skipWhitespace();
            if (pos >= text.length() || text.charAt(pos) != '"') {
                throw error("expected a string key but found " + found());
            }
            String key = string();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            map.put(key, value());
            skipWhitespace();
        } while (tryConsume(','));
        expect('}');
        return Collections.unmodifiableMap(map);
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        expect('[');
        skipWhitespace();
        if (tryConsume(']')) {
            return Collections.unmodifiableList(list);
        }
        do {
            skipWhitespace();
            list.add(value());
            skipWhitespace();
        } while (tryConsume(','));
        expect(']');
        return Collections.unmodifiableList(list);
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            } else if (c == '\\') {
                out.append(escape());
            } else if (c < 0x20) {
                pos--;
                throw error("control character in string");
            } else {
                out.append(c);
            }
        }
    }

    private char escape() {
        if (pos >= text.length()) {
            throw error("unterminated escape");
        }
        char c = text.charAt(pos++);
        return switch (c) {
            case '"', '\\', '/' -> c;
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> unicodeEscape();
            default -> {
                pos--;
                throw error("bad escape '\\" + c + "'");
            }
        };
    }

    private char unicodeEscape() {
        if (pos + 4 > text.length()) {
            throw error("truncated \\u escape");
        }
        int code = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(pos), 16);
            if (digit < 0) {
                throw error("bad hex digit in \\u escape");
            }
            code = code * 16 + digit;
            pos++;
        }
        return (char) code;
    }

    private Object number() {
        int start = pos;
        tryConsume('-');
        if (tryConsume('0')) {
            // a leading zero stands alone
        } else if (!digits()) {
            throw error("expected a digit");
        }
        boolean integral = true;
        if (tryConsume('.')) {
            integral = false;
            requireDigits();
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            pos++;
            integral = false;
            if (!tryConsume('+')) {
                tryConsume('-');
            }
            requireDigits();
        }
        return toNumber(text.substring(start, pos), integral);
    }

    private static Number toNumber(String literal, boolean integral) {
        if (integral) {
            try {
                return Long.parseLong(literal);
            } catch (NumberFormatException tooLong) {
                // beyond a long: fall through to a double
            }
        }
        return Double.parseDouble(literal);
    }

    private void requireDigits() {
        if (!digits()) {
            throw error("expected a digit");
        }
    }

    private boolean digits() {
        int start = pos;
        while (pos < text.length() && isDigit(text.charAt(pos))) {
            pos++;
        }
        return pos > start;
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("expected '" + word + "'");
        }
        pos += word.length();
        return value;
    }

    private void expect(char c) {
        if (!tryConsume(c)) {
            throw error("expected '" + c + "' but found " + found());
        }
    }

    private String found() {
        return pos < text.length() ? "'" + text.charAt(pos) + "'" : "end of input";
    }

    private boolean tryConsume(char c) {
        if (pos < text.length() && text.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private JsonException error(String message) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < pos && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new JsonException(message, pos, line, pos - lineStart + 1);
    }
}
