package dev.clockwork.docs;

import java.util.List;

/**
 * The runs of one scale result file, in file order. {@code scale.jsonl} holds every cache at
 * several capacities and thread counts (charts and a table); {@code scale-sizes.jsonl} the same
 * at several value sizes (a table only). These files are read here rather than as plain bench
 * files, whose per-file charts cannot hold a capacity-by-threads grid.
 */
record ScaleFile(String source, String stem, List<ScaleRun> runs) {

    static final String SCALE = "scale";
    static final String SIZES = "scale-sizes";

    /** Whether a result file with this stem belongs to the scale family. */
    static boolean isScale(String stem) {
        return SCALE.equals(stem) || SIZES.equals(stem);
    }

    /** Whether the runs differ in value size (the sizes file): it is then a grouping key. */
    boolean bySize() {
        return SIZES.equals(stem);
    }
}
