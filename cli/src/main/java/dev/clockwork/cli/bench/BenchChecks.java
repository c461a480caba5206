package dev.clockwork.cli.bench;

import static dev.clockwork.cli.bench.BenchOptions.MAX_DEGENERATE_HASH_BITS;
import static dev.clockwork.cli.bench.BenchOptions.MAX_PINNED_PER_THREAD;
import static dev.clockwork.cli.bench.BenchOptions.MAX_PROGRESS_INTERVAL_SECONDS;
import static dev.clockwork.cli.bench.BenchOptions.MAX_THREADS;
import static dev.clockwork.cli.bench.BenchOptions.MAX_VALUE_BYTES;

import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.caches.Targets;
import dev.clockwork.cli.common.CacheFlags;
import dev.clockwork.cli.common.SizeChecks;
import dev.clockwork.cli.common.WorkloadFlags;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether bench's flags can run together, and if not, a refusal that names the flags that stand
 * in the way: each flag's range, the workload's sums and ratios, what the sizes allow (the
 * workers' buffers, pinned handles per thread, the population, the cache the builder would
 * make, for every -compare type too) and what a peer cache cannot do. Reads the flags
 * ({@link BenchOptions}), changes nothing; the checks run in the order of the refusals' priority.
 */
final class BenchChecks {
    private final BenchOptions o;
    private final CacheFlags cache;
    private final WorkloadFlags workload;

    BenchChecks(BenchOptions o) {
        this.o = o;
        this.cache = o.cache;
        this.workload = o.workload;
    }

    /**
     * Checks the flags together.
     *
     * @return null when they are usable, else a message that names the offending flag
     */
    String problem() {
        String typeProblem = Targets.checkType(cache.cacheType);
        if (typeProblem != null) {
            return "-cache_type: " + typeProblem;
        }
        String admissionProblem = CacheFactory.checkAdmission(o.admission);
        if (admissionProblem != null) {
            return admissionProblem;
        }
        String progressProblem = o.progressIntervalProblem();
        if (progressProblem != null) {
            return progressProblem;
        }
        if (o.compare != null) {
            for (String entry : o.compare) {
                String problem = Targets.CompareEntry.parse(entry).check();
                if (problem != null) {
                    return "-compare: " + problem;
                }
            }
        }
        String peerProblem = peerProblem();
        if (peerProblem != null) {
            return peerProblem;
        }
        if (o.earlyExit && o.compare != null && !o.compare.isEmpty()) {
            return "-early_exit cannot be combined with -compare: a run that exits early"
                    + " prints no result to compare";
        }
        if (o.gatherStatsEntriesPerLock < 1) {
            return "-gather_stats_entries_per_lock must be >= 1, was "
                    + o.gatherStatsEntriesPerLock;
        }
        String threadsProblem = workload.threadsProblem(MAX_THREADS,
                " (threads number <= 0)"); // cache_bench's words
        if (threadsProblem != null) {
            return threadsProblem;
        }
        if (o.opsPerThread > Long.MAX_VALUE / workload.threads) {
            return "-ops_per_thread=" + o.opsPerThread + " times -threads=" + workload.threads
                    + " is more than " + Long.MAX_VALUE + " operations in all";
        }
        String sizeProblem = cache.sizeProblem();
        if (sizeProblem != null) {
            return sizeProblem;
        }
        if (o.valueBytes <= 0) {
            return "-value_bytes must be > 0";
        }
        if (o.valueBytes > MAX_VALUE_BYTES) {
            return "-value_bytes=" + o.valueBytes + " is more than " + MAX_VALUE_BYTES;
        }
        if (o.valueBytes > cache.cacheSize) {
            return "-value_bytes=" + o.valueBytes + " must not exceed -cache_size="
                    + cache.cacheSize;
        }
        if (o.scanLength < 1) {
            return "-scan_length must be >= 1, was " + o.scanLength;
        }
        if (!(o.duration >= 0 && o.duration <= MAX_PROGRESS_INTERVAL_SECONDS)) {
            return "-duration must be in [0, " + (long) MAX_PROGRESS_INTERVAL_SECONDS
                    + "] seconds (a year), was " + o.duration;
        }
        String ratioProblem = workload.ratiosProblem();
        if (ratioProblem != null) {
            return ratioProblem;
        }
        return validateMixAndSizes();
    }

    /** The second half of {@link #validate}: the mix, ratios and what the sizes allow. */
    private String validateMixAndSizes() {
        if (!(o.compressibleToRatio >= 0) || Double.isInfinite(o.compressibleToRatio)) {
            return "-compressible_to_ratio must be a finite number >= 0, was "
                    + o.compressibleToRatio;
        }
        String varyProblem = cache.varyCapacityProblem();
        if (varyProblem != null) {
            return varyProblem;
        }
        if (cache.minCapacity() < 1) {
            return "-vary_capacity_ratio=" + cache.varyCapacityRatio + " would set capacities"
                    + " below 1 byte for -cache_size=" + cache.cacheSize;
        }
        if (o.valueBytes > cache.minCapacity()) {
            // the cache refuses an insert larger than its capacity, in the middle of the run
            return "-value_bytes=" + o.valueBytes + " must not exceed the smallest capacity, "
                    + cache.minCapacity() + ": -cache_size=" + cache.cacheSize
                    + " less -vary_capacity_ratio=" + cache.varyCapacityRatio + " of it";
        }
        if (o.maxValueBytes() > cache.minCapacity()) {
            return "-value_bytes_mix: " + o.maxValueBytes() + " must not exceed the smallest"
                    + " capacity, " + cache.minCapacity();
        }
        String mixProblem = o.opMix().check();
        if (mixProblem != null) {
            return mixProblem;
        }
        String poolProblem = cache.poolProblem();
        if (poolProblem != null) {
            return poolProblem;
        }
        if (o.degenerateHashBits < 0 || o.degenerateHashBits > MAX_DEGENERATE_HASH_BITS) {
            return "-degenerate_hash_bits must be in [0, " + MAX_DEGENERATE_HASH_BITS
                    + "], was " + o.degenerateHashBits;
        }
        if (o.fileKeys != 0 && o.degenerateHashBits != 0) {
            return "-file_keys and -degenerate_hash_bits cannot be used together (degenerate keys"
                    + " are built from their hashes, file keys from their files)";
        }
        String problem = firstProblem(cache.shardBitsProblem(), workload.skewProblem(),
                pinnedPerThread(),
                SizeChecks.populationFits(workload.populateCache, o.populateBytes(),
                        "-cache_size, or the key space of -resident_ratio if smaller"),
                Targets.isPeer(cache.cacheType) ? null
                        : SizeChecks.cache(o.cacheSettings(0), o.builderFlags()));
        if (problem == null) { // after pinnedPerThread, which bounds what the rings take
            problem = workersFit();
        }
        if (problem != null) {
            return problem;
        }
        if (o.compare != null) {
            for (String entry : o.compare) {
                String type = Targets.CompareEntry.parse(entry).type();
                if (Targets.isPeer(type)) {
                    continue;
                }
                BenchOptions other = o.copy();
                other.cache.cacheType = type;
                problem = SizeChecks.cache(other.cacheSettings(0), o.builderFlags());
                if (problem != null) {
                    return "-compare: " + type + ": " + problem;
                }
            }
        }
        return null;
    }

    /**
     * The workers' buffers: each a ring of its pinned handles (a long each, three with
     * -verify_values, which keeps their keys) on the heap, and a native value buffer (two with
     * -verify_values).
     */
    private String workersFit() {
        long pins = workload.pinsPerThread(o.totalPinCount());
        int longsPerPin = o.verifyValues ? 3 : 1;
        long heap = (pins + 1) * Long.BYTES * longsPerPin;
        long nativeBytes = o.maxValueBytes() + Long.BYTES + (o.verifyValues ? o.valueBytes : 0);
        return SizeChecks.workersFit(workload.threads, heap, "a ring of " + (pins + 1) + " pinned"
                + " handles: -pinned_ratio=" + workload.pinnedRatio + " of -cache_size="
                + cache.cacheSize
                + " in values of -value_bytes=" + o.valueBytes + (o.verifyValues
                        ? ", 3 longs a handle with -verify_values" : ""), nativeBytes,
                "-value_bytes=" + o.valueBytes + (o.verifyValues ? ", twice with -verify_values"
                        : ""));
    }

    private static String firstProblem(String... problems) {
        for (String problem : problems) {
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    private String pinnedPerThread() {
        long perThread = workload.pinsPerThread(o.totalPinCount());
        if (perThread > MAX_PINNED_PER_THREAD) {
            return "-pinned_ratio=" + workload.pinnedRatio + " of -cache_size=" + cache.cacheSize
                    + " in values of -value_bytes=" + o.valueBytes + " over -threads="
                    + workload.threads + " pins "
                    + perThread + " handles per thread, more than " + MAX_PINNED_PER_THREAD
                    + ": raise -value_bytes or -threads, or lower -pinned_ratio or -cache_size";
        }
        return null;
    }

    /**
     * What a peer cannot do: the checks that read Clockwork's values in place or walk its
     * entries; a JVM too small for Caffeine's cache. Null when nothing stands in the way.
     */
    private String peerProblem() {
        List<String> types = new ArrayList<>();
        if (o.compare == null || o.compare.isEmpty()) {
            types.add(cache.cacheType);
        } else {
            o.compare.forEach(e -> types.add(
                    Targets.CompareEntry.parse(e).type()));
        }
        for (String type : types) {
            if (!Targets.isPeer(type)) {
                continue;
            }
            if (o.verifyValues) {
                return "-verify_values checks values in a Clockwork cache; " + type
                        + " is not one";
            }
            if (o.gatherStats) {
                return "-gather_stats walks a Clockwork cache's entries; " + type
                        + " is not one";
            }
            if (cache.varyCapacityRatio > 0
                    && !Targets.canSetCapacity(type)) {
                return "-vary_capacity_ratio: " + type + " cannot change its capacity";
            }
        }
        if ((o.compare == null || o.compare.isEmpty())
                && Targets.onHeap(cache.cacheType)) {
            long needed = cache.cacheSize + cache.cacheSize / 4;
            long max = Runtime.getRuntime().maxMemory();
            if (max < needed) {
                return "-cache_type=" + cache.cacheType + " holds the cache on the Java heap:"
                        + " -cache_size=" + cache.cacheSize + " needs a heap of at least " + needed
                        + " bytes, and this JVM's limit is " + max + " (raise -Xmx, e.g."
                        + " CLOCKWORK_JAVA_OPTS=-Xmx" + Math.max(1, 2 * (cache.cacheSize >> 30))
                        + "g ./clockwork bench ...; -compare sizes each JVM itself)";
            }
        }
        return null;
    }
}
