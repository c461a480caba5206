package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchChartsTest {

    @TempDir
    Path out;

    @Test
    void rendersThroughputLatencyAndTheEffortCapSweep() throws Exception {
        Rendered r = Rendered.render(Rendered.fixture("bench"), out);

        assertEquals(List.of("bench-plain-throughput.png", "bench-plain-latency.png",
                "bench-sweep-throughput.png", "bench-sweep-latency.png",
                "bench-sweep-effort-cap.png", "bench-sweep-effort-cap-rss.png"), r.pngs());
        assertEquals(List.of(), r.notes());
        assertEquals(PLAIN + SWEEP, r.body());
        r.assertImages();
    }

    private static final String PLAIN = """
            ### bench-plain-throughput.png

            plain: throughput, all threads, in M ops/s (higher is better)

            Source: `plain.jsonl`

            | run | threads | M ops/s | hit ratio | entries | native MiB | max RSS MiB |
            | --- | ---: | ---: | ---: | ---: | ---: | ---: |
            | lru_cache 1t | 1 | 1.25 | 0.4000 | 5000 | 2.0 | 100.0 |
            | lru_cache 2t | 2 | 2.00 | 0.4100 | 5100 | n/a | 110.0 |

            ### bench-plain-latency.png

            plain: p99 latency per operation in µs (log scale, lower is better)

            Source: `plain.jsonl`

            | run | operation | count | p50 µs | p99 µs | p99.9 µs | max µs |
            | --- | --- | ---: | ---: | ---: | ---: | ---: |
            | lru_cache 1t | insert | 20 | 0.90 | 2.50 | 7.00 | 90.00 |
            | lru_cache 1t | lookup | 100 | 0.40 | 1.20 | 3.00 | 50.00 |
            | lru_cache 2t | lookup | 200 | 0.45 | 1.30 | 3.50 | 60.00 |

            """;

    private static final String SWEEP = """
        ### bench-sweep-throughput.png

        sweep: throughput, all threads, in M ops/s (higher is better)

        Source: `sweep.jsonl`

        | run | threads | M ops/s | hit ratio | entries | native MiB | max RSS MiB |
        | --- | ---: | ---: | ---: | ---: | ---: | ---: |
        | lru_cache eviction_effort_cap=10 | 2 | 1.00 | 0.5000 | 1000 | 1.0 | 10.0 |
        | lru_cache eviction_effort_cap=100 | 2 | 1.20 | 0.5000 | 1000 | 1.0 | 12.0 |
        | auto_hyper_clock_cache eviction_effort_cap=10 | 2 | 2.00 | 0.2500 | 900 | 0.5 | 20.0 |
        | auto_hyper_clock_cache eviction_effort_cap=100 | 2 | 2.50 | 0.2500 | 900 | 0.5 | 30.0 |

        ### bench-sweep-latency.png

        sweep: p99 latency per operation in µs (log scale, lower is better)

        Source: `sweep.jsonl`

        | run | operation | count | p50 µs | p99 µs | p99.9 µs | max µs |
        | --- | --- | ---: | ---: | ---: | ---: | ---: |
        | lru_cache eviction_effort_cap=10 | lookup | 10 | 0.50 | 1.50 | 2.50 | 10.00 |
        | lru_cache eviction_effort_cap=100 | lookup | 10 | 0.60 | 1.60 | 2.60 | 20.00 |
        | auto_hyper_clock_cache eviction_effort_cap=10 | lookup | 10 | 0.25 | 0.80 | 1.20 | 30.00 |
        | auto_hyper_clock_cache eviction_effort_cap=10 | erase | 5 | 0.30 | 2.00 | 4.00 | 40.00 |
        | auto_hyper_clock_cache eviction_effort_cap=100 | lookup | 10 | 0.20 | 0.70 | 1.10 \
        | 35.00 |

        ### bench-sweep-effort-cap.png

        sweep: throughput vs eviction_effort_cap, in M ops/s (higher is better)

        Source: `sweep.jsonl`

        | series | eviction_effort_cap | M ops/s |
        | --- | ---: | ---: |
        | lru_cache | 10 | 1.00 |
        | lru_cache | 100 | 1.20 |
        | auto_hyper_clock_cache | 10 | 2.00 |
        | auto_hyper_clock_cache | 100 | 2.50 |

        ### bench-sweep-effort-cap-rss.png

        sweep: max RSS vs eviction_effort_cap, in MiB (lower is better)

        Source: `sweep.jsonl`

        | series | eviction_effort_cap | max RSS MiB |
        | --- | ---: | ---: |
        | lru_cache | 10 | 10.0 |
        | lru_cache | 100 | 12.0 |
        | auto_hyper_clock_cache | 10 | 20.0 |
        | auto_hyper_clock_cache | 100 | 30.0 |
        """;
}
