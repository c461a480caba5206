package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JmhChartsTest {

    @TempDir
    Path out;

    @Test
    void groupsByMethodAndValueSizeWithThreadsAsSeries() throws Exception {
        Rendered r = Rendered.render(Rendered.fixture("jmh"), out);

        assertEquals(List.of("jmh-EvictBenchmark-evict.png", "jmh-PeerHitBenchmark-hit-64B.png"),
                r.pngs());
        assertEquals("""
                ### jmh-EvictBenchmark-evict.png

                EvictBenchmark.evict: throughput in M ops/s (higher is better)

                Source: `run-1.json`

                | table | threads | score (M ops/s) | ± error |
                | --- | ---: | ---: | ---: |
                | fixed effortCap=10 | 1 | 1.50 | 0.05 |
                | fixed effortCap=30 | 1 | 1.00 | n/a |

                ### jmh-PeerHitBenchmark-hit-64B.png

                PeerHitBenchmark.hit, 64 B values: throughput in M ops/s (higher is better)

                Sources: `run-1.json`, `run-2.json`

                | cache | threads | score (M ops/s) | ± error | hit ratio | alloc B/op |
                | --- | ---: | ---: | ---: | ---: | ---: |
                | alpha | 1 | 13.00 | 0.20 | 0.9500 | 0.50 |
                | alpha | 2 | 20.00 | 1.00 | 0.9000 | 0.00 |
                | beta | 1 | 2.50 | n/a | 0.5000 | 16.00 |
                | beta | 2 | 3.00 | 0.10 | n/a | n/a |
                """, r.body());
        r.assertImages();
    }

    @Test
    void theLaterPathWinsAndSaysSo() throws Exception {
        Rendered r = Rendered.render(Rendered.fixture("jmh"), out);

        // run-1.json has alpha/1 thread at 12.00 M ops/s, run-2.json at 13.00: the later wins.
        assertEquals(List.of("run-2.json replaces 1 result(s) from run-1.json"
                + " (same measurement: last path wins)"), r.notes());
        assertEquals(1, r.tables().split("\\| alpha \\| 1 \\|", -1).length - 1);
    }

    @Test
    void residentEntriesIsTheMeanOfTheIterationsNotJmhsSum() {
        // JMH sums an EVENTS counter over iterations: score 60 for iterations 10, 20, 30.
        Obj o = Obj.of(Json.parse("""
                {"benchmark":"b.M.mix_1t","mode":"thrpt","threads":1,"params":{"cache":"x"},
                 "primaryMetric":{"score":5,"scoreError":1,"scoreUnit":"ops/s"},
                 "secondaryMetrics":{"residentEntries":{"score":60,"rawData":[[10,20],[30]]}}}
                """));
        assertEquals(20.0, JmhResult.from(o, "f.json").residentEntries());
        assertEquals(Double.NaN, JmhResult.from(Obj.of(Json.parse("""
                {"benchmark":"b.M.m","primaryMetric":{"score":1}}
                """)), "f.json").residentEntries());
    }

    @Test
    void namesTheFileAfterClassMethodAndValueSize() {
        JmhResult r = new JmhResult("f.json", "dev.clockwork.bench.LruPoolsBenchmark.hit_2t_pooled",
                "avgt", 2, Map.of("valueBytes", "8192"), 1, 0, "us/op", 0, 0, 0, Double.NaN);
        assertEquals("hit_pooled", r.baseMethod());
        assertEquals("jmh-LruPoolsBenchmark-hit_pooled-8192B-avgt.png", JmhFigures.fileName(r));
    }
}
