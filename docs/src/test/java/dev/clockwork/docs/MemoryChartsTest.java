package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryChartsTest {

    @TempDir
    Path out;

    @Test
    void oneChartPerValueSizeWithHeapNativeAndPayload() throws Exception {
        Rendered r = Rendered.render(Rendered.fixture("memory"), out);

        assertEquals(List.of("memory-per-entry-64B.png", "memory-per-entry-1024B.png"), r.pngs());
        assertEquals("""
        ### memory-per-entry-64B.png

        Memory per resident entry, 64 B values, in bytes (lower is better)

        Source: `memory.jsonl`

        | cache | resident | heap B/entry | native B/entry | all-in B/entry | overhead B/entry |
        | --- | ---: | ---: | ---: | ---: | ---: |
        | clockwork-fixed | 8000 | 10.0 | 200.0 | 210.0 | 130.0 |
        | caffeine | 10000 | 150.0 | 50.0 | 200.0 | 120.0 |

        ### memory-per-entry-1024B.png

        Memory per resident entry, 1024 B values, in bytes (lower is better)

        Source: `memory.jsonl`

        | cache | resident | heap B/entry | native B/entry | all-in B/entry | overhead B/entry |
        | --- | ---: | ---: | ---: | ---: | ---: |
        | clockwork-fixed | 4000 | 10.0 | 1100.0 | 1110.0 | 70.0 |
        """, r.body());
        r.assertImages();
    }
}
