package dev.clockwork.cli.bench;

import java.util.List;
import java.util.function.Predicate;

/**
 * {@code -preset}: named defaults for a workload, applied after parsing to every flag the
 * command line did not give, and the resolution of {@code -value_bytes_mix} into the mean
 * {@code -value_bytes} the rest of the run sizes itself by.
 *
 * <p>{@value #BLOCK_CACHE}: a storage engine's block cache, as {@code -preset}'s help describes
 * it. Its choices: blocks of 4, 8 and 16 KiB (what RocksDB and most LSM and B-tree engines
 * use); a data set three times the cache; cache_bench's skew 5; every read a lookup that reads
 * the block and inserts it on a miss (the engine's read path), with 5 % of the reads one-off
 * scans of 4,096 consecutive blocks (a compaction or a full-table scan that fills the cache);
 * keys of files of 4,096 blocks (the stable cache keys an engine uses); a block held only while
 * it is read (no pinned ratio); a minute of timed run, long enough for old-generation
 * collections of a heap-held cache.
 */
final class BenchPreset {
    private BenchPreset() {
    }

    static final String NONE = "none";
    static final String BLOCK_CACHE = "block_cache";
    static final List<String> NAMES = List.of(NONE, BLOCK_CACHE);

    /**
     * Applies {@code o.preset} to the flags {@code given} does not name (with their dash, e.g.
     * {@code "-skew"}), then resolves {@code -value_bytes_mix}. Returns null, or why the flags
     * cannot be used together.
     */
    static String resolve(BenchOptions o, Predicate<String> given) {
        if (!NAMES.contains(o.preset)) {
            return "-preset must be one of " + String.join(", ", NAMES) + ", was " + o.preset;
        }
        if (given.test("-value_bytes") && given.test("-value_bytes_mix")) {
            return "-value_bytes and -value_bytes_mix: give one (with a mix, -value_bytes is its"
                    + " mean)";
        }
        if (o.preset.equals(BLOCK_CACHE)) {
            blockCache(o, given);
        }
        return resolveMix(o);
    }

    private static void blockCache(BenchOptions o, Predicate<String> given) {
        if (!given.test("-value_bytes") && !given.test("-value_bytes_mix")) {
            o.valueBytesMix = List.of(4096L, 8192L, 16384L);
        }
        if (!given.test("-resident_ratio")) {
            o.workload.residentRatio = 1.0 / 3;
        }
        if (!given.test("-file_keys") && !given.test("-degenerate_hash_bits")) {
            o.fileKeys = 4096;
        }
        if (!given.test("-pinned_ratio")) {
            o.workload.pinnedRatio = 0;
        }
        if (!given.test("-duration") && !given.test("-ops_per_thread")) {
            o.duration = 60;
        }
        boolean mixGiven = given.test("-lookup_insert_percent") || given.test("-insert_percent")
                || given.test("-blind_insert_percent") || given.test("-lookup_percent")
                || given.test("-erase_percent") || given.test("-scan_percent");
        if (!mixGiven) {
            o.mix.lookupInsertPercent = 95;
            o.mix.insertPercent = 0;
            o.mix.blindInsertPercent = 0;
            o.mix.lookupPercent = 0;
            o.mix.erasePercent = 0;
            o.scanPercent = 5;
        }
    }

    /** Checks the mix's sizes and sets -value_bytes to their mean. */
    private static String resolveMix(BenchOptions o) {
        if (o.valueBytesMix == null || o.valueBytesMix.isEmpty()) {
            return null;
        }
        long sum = 0;
        for (long size : o.valueBytesMix) {
            if (size <= 0 || size > BenchOptions.MAX_VALUE_BYTES) {
                return "-value_bytes_mix: every size must be in [1, " + BenchOptions.MAX_VALUE_BYTES
                        + "], was " + size;
            }
            sum += size;
        }
        o.valueBytes = sum / o.valueBytesMix.size();
        return null;
    }
}
