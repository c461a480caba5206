package dev.clockwork.docs;

import java.util.List;

/**
 * The {@code clockwork bench} runs of one {@code .jsonl} file, in file order: the runs of one
 * file are compared with each other, so each file gets its own charts named after its stem.
 */
record BenchFile(String source, String stem, List<BenchRun> runs) {
}
