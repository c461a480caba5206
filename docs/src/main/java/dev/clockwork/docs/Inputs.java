package dev.clockwork.docs;

import java.util.List;

/**
 * Everything read from a results directory, already deduplicated and in a stable order, so the
 * chart builders are pure functions of it.
 */
record Inputs(List<JmhResult> jmh, List<BenchFile> bench, List<MemoryRow> memory,
        List<ScaleFile> scale) {
}
