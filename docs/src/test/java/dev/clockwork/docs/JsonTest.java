package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void parsesObjectsInOrderWithNestedValues() {
        Object parsed = Json.parse("{\"b\":1,\"a\":{\"x\":[true,false,null]},\"c\":\"s\"}");
        Map<?, ?> map = (Map<?, ?>) parsed;
        assertEquals(List.of("b", "a", "c"), List.copyOf(map.keySet()));
        assertEquals(1L, map.get("b"));
        assertEquals("s", map.get("c"));
        List<?> inner = (List<?>) ((Map<?, ?>) map.get("a")).get("x");
        assertEquals(3, inner.size());
        assertEquals(Boolean.TRUE, inner.get(0));
        assertEquals(Boolean.FALSE, inner.get(1));
        assertNull(inner.get(2));
    }

    @Test
    void parsesEmptyContainersAndDeepNesting() {
        assertEquals(Map.of(), Json.parse("{}"));
        assertEquals(List.of(), Json.parse("[ ]"));
        assertEquals(List.of(List.of(List.of(Map.of("k", List.of())))),
                Json.parse("[[[{\"k\":[]}]]]"));
    }

    @Test
    void decodesEscapes() {
        assertEquals("a\"b\\c/d", Json.parse("\"a\\\"b\\\\c\\/d\""));
        assertEquals("\u00b7gc.alloc.rate.norm", Json.parse("\"\\u00b7gc.alloc.rate.norm\""));
        assertEquals("\u00b7raw", Json.parse("\"\u00b7raw\""));
        assertEquals("t\tn\nr\rb\bf\f", Json.parse("\"t\\tn\\nr\\rb\\bf\\f\""));
    }

    @Test
    void parsesNumbers() {
        assertEquals(0L, Json.parse("0"));
        assertEquals(42L, Json.parse("42"));
        assertEquals(-7L, Json.parse("-7"));
        assertEquals(3.25, Json.parse("3.25"));
        assertEquals(-0.5, Json.parse("-0.5"));
        assertEquals(1.5e3, Json.parse("1.5e3"));
        assertEquals(2e-2, Json.parse("2E-2"));
        assertEquals(1e10, Json.parse("1e+10"));
        assertEquals(9.223372036854776E19, Json.parse("92233720368547758070"));
    }

    @Test
    void skipsWhitespaceEverywhere() {
        Object parsed = Json.parse(" \n\t{ \"a\" :\r\n [ 1 , 2 ] }\n ");
        assertEquals(Map.of("a", List.of(1L, 2L)), parsed);
    }

    @Test
    void reportsWhereMalformedInputBreaks() {
        JsonException e = assertThrows(JsonException.class, () -> Json.parse("{\"a\":1,}"));
        assertEquals(7, e.offset());
        assertTrue(e.getMessage().contains("line 1, column 8"), e.getMessage());

        e = assertThrows(JsonException.class, () -> Json.parse("[1,\n 2\n x]"));
        assertTrue(e.getMessage().contains("line 3, column 2"), e.getMessage());
    }

    @Test
    void rejectsEachKindOfMistake() {
        for (String bad : List.of("", "{", "[1 2]", "{\"a\" 1}", "{a:1}", "\"open", "01", "1.",
                "-", "1e", "tru", "nul", "\"\\x\"", "\"\\u12g4\"", "[1] 2", "\"a\nb\"")) {
            assertThrows(JsonException.class, () -> Json.parse(bad), bad);
        }
    }
}
