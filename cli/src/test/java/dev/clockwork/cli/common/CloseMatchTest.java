package dev.clockwork.cli.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class CloseMatchTest {
    private static final List<String> FLAGS =
            List.of("threads", "cache_size", "num_shard_bits", "value_bytes", "value_bytes_min");

    @Test
    void typosMatch() {
        assertEquals("threads", CloseMatch.of("threds", FLAGS)); // a letter missing
        assertEquals("threads", CloseMatch.of("thraeds", FLAGS)); // two swapped
        assertEquals("cache_size", CloseMatch.of("cache-size", FLAGS)); // one wrong
        assertEquals("value_bytes", CloseMatch.of("value_byte", FLAGS));
    }

    @Test
    void aUniquePartMatches() {
        assertEquals("num_shard_bits", CloseMatch.of("shard_bits", FLAGS));
        assertNull(CloseMatch.of("value", FLAGS), "in two names");
        assertNull(CloseMatch.of("bit", FLAGS), "too short to stand for a name");
    }

    @Test
    void differentWordsDoNot() {
        assertNull(CloseMatch.of("zzz", FLAGS));
        assertNull(CloseMatch.of("duration", FLAGS));
        assertNull(CloseMatch.of("t", FLAGS));
    }

    @Test
    void distanceCountsEachEditOnce() {
        assertEquals(0, CloseMatch.distance("abc", "abc"));
        assertEquals(1, CloseMatch.distance("abc", "acb"));
        assertEquals(1, CloseMatch.distance("abc", "ab"));
        assertEquals(3, CloseMatch.distance("", "abc"));
        assertEquals(2, CloseMatch.distance("kitten", "sitte"));
    }
}
