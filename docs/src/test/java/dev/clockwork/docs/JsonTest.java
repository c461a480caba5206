package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void parsesObjectsInOrderWithNestedValues() {
        JsonNode map = Json.parse("{\"b\":1,\"a\":{\"x\":[true,false,null]},\"c\":\"s\"}");
        assertEquals(List.of("b", "a", "c"), Obj.of(map).keys());
        assertTrue(map.get("b").isIntegralNumber());
        assertEquals(1L, map.get("b").longValue());
        assertEquals("s", map.get("c").textValue());
        JsonNode inner = map.get("a").get("x");
        assertEquals(3, inner.size());
        assertEquals(Boolean.TRUE, inner.get(0).booleanValue());
        assertEquals(Boolean.FALSE, inner.get(1).booleanValue());
        assertTrue(inner.get(2).isNull());
    }

    @Test
    void parsesEmptyContainersAndDeepNesting() {
        assertTrue(Json.parse("{}").isObject() && Json.parse("{}").isEmpty());
        assertTrue(Json.parse("[ ]").isArray() && Json.parse("[ ]").isEmpty());
        JsonNode deep = Json.parse("[[[{\"k\":[]}]]]");
        assertEquals(1, deep.size());
        assertEquals(1, deep.get(0).size());
        assertEquals(1, deep.get(0).get(0).size());
        assertEquals(List.of("k"), Obj.of(deep.get(0).get(0).get(0)).keys());
        assertTrue(deep.get(0).get(0).get(0).get("k").isArray()
                && deep.get(0).get(0).get(0).get("k").isEmpty());
    }

    @Test
    void decodesEscapes() {
        assertEquals("a\"b\\c/d", Json.parse("\"a\\\"b\\\\c\\/d\"").textValue());
        assertEquals("\u00b7gc.alloc.rate.norm",
                Json.parse("\"\\u00b7gc.alloc.rate.norm\"").textValue());
        assertEquals("\u00b7raw", Json.parse("\"\u00b7raw\"").textValue());
        assertEquals("t\tn\nr\rb\bf\f", Json.parse("\"t\\tn\\nr\\rb\\bf\\f\"").textValue());
    }

    @Test
    void parsesNumbers() {
        assertEquals(0L, Json.parse("0").longValue());
        assertEquals(42L, Json.parse("42").longValue());
        assertEquals(-7L, Json.parse("-7").longValue());
        assertTrue(Json.parse("-7").canConvertToLong());
        assertEquals(3.25, Json.parse("3.25").doubleValue());
        assertEquals(-0.5, Json.parse("-0.5").doubleValue());
        assertEquals(1.5e3, Json.parse("1.5e3").doubleValue());
        assertEquals(2e-2, Json.parse("2E-2").doubleValue());
        assertEquals(1e10, Json.parse("1e+10").doubleValue());
        assertTrue(Json.parse("1e+10").isFloatingPointNumber());
        assertEquals(9.223372036854776E19, Json.parse("92233720368547758070").doubleValue());
    }

    @Test
    void skipsWhitespaceEverywhere() {
        JsonNode parsed = Json.parse(" \n\t{ \"a\" :\r\n [ 1 , 2 ] }\n ");
        assertEquals(List.of("a"), Obj.of(parsed).keys());
        assertEquals(2, parsed.get("a").size());
        assertEquals(1L, parsed.get("a").get(0).longValue());
        assertEquals(2L, parsed.get("a").get(1).longValue());
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
