package dev.clockwork.cli.common;

import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.workload.ProcessStats;
import dev.clockwork.offheap.CacheOptions;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Checks of the flags both gflags commands ({@code bench}, {@code soak}) take, made
 * where the flags enter so that a refusal names the flag and nothing runs: each returns null
 * when the value is usable, else a message for {@link FlagCommand#refuse}.
 */
public final class SizeChecks {
    private SizeChecks() {
    }

    /**
     * Largest {@code -skew}: every operation draws skew + 1 random numbers for its key, so the
     * per-operation work grows with it; at 1,000 the keys already crowd into the lowest 0.1% of
     * the key space.
     */
    public static final long MAX_SKEW = 1000;

    /**
     * The share of the JVM's maximum heap, in percent, that buffers allocated up front may take,
     * leaving the rest to the JVM and the garbage collector's headroom.
     */
    public static final int HEAP_PERCENT = 75;

    public static String shardBits(int numShardBits) {
        if (numShardBits < -1 || numShardBits > CacheOptions.MAX_SHARD_BITS) {
            return "-num_shard_bits must be in [-1, " + CacheOptions.MAX_SHARD_BITS + "], was "
                    + numShardBits;
        }
        return null;
    }

    public static String skew(long skew) {
        if (skew > MAX_SKEW) {
            return "-skew=" + skew + " is more than " + MAX_SKEW + " (each operation draws -skew"
                    + " + 1 random numbers for its key)";
        }
        return null;
    }

    /**
     * Population fills the cache before the run, inserting one value after another until it is
     * full or the key space runs out: refused when that is more than this machine's memory,
     * where the loop would run until memory is exhausted.
     *
     * @param populateBytes what population would insert (at most the cache's size)
     */
    public static String populationFits(boolean populate, long populateBytes, String sizeFlags) {
        OptionalLong memory = ProcessStats.physicalMemoryBytes();
        if (populate && memory.isPresent() && populateBytes > memory.getAsLong()) {
            return "-populate_cache fills the cache with about " + populateBytes + " bytes ("
                    + sizeFlags + "), more than this machine's memory, " + memory.getAsLong()
                    + " bytes: lower -cache_size, or pass -populate_cache=false";
        }
        return null;
    }

    /**
     * The workers' own buffers, allocated when the run starts: for each of {@code threads}
     * workers, {@code heapBytes} of Java heap (its ring of pinned handles, a value array) and
     * {@code nativeBytes} of native memory (its value buffers). Refused when all of them would
     * take more than {@link #HEAP_PERCENT}% of the JVM's maximum heap, or more native memory
     * than this machine has: the heap would run out, or the machine kill the process.
     *
     * @param heapFlags the flags that set {@code heapBytes}, for the message
     * @param nativeFlags the flags that set {@code nativeBytes}, for the message
     */
    public static String workersFit(long threads, long heapBytes, String heapFlags,
                                    long nativeBytes, String nativeFlags) {
        return workersFit(threads, heapBytes, heapFlags, nativeBytes, nativeFlags,
                Runtime.getRuntime().maxMemory(), ProcessStats.physicalMemoryBytes());
    }

    /** {@link #HEAP_PERCENT}% of {@code maxHeap}, in bytes (a JVM without a limit says 2^63-1). */
    public static long heapAllowance(long maxHeap) {
        return (long) (maxHeap * (HEAP_PERCENT / 100.0));
    }

    /** {@link #workersFit} for a given maximum heap and physical memory. */
    static String workersFit(long threads, long heapBytes, String heapFlags, long nativeBytes,
                             String nativeFlags, long maxHeap, OptionalLong memory) {
        long heapAllowed = heapAllowance(maxHeap);
        if (heapBytes > heapAllowed / threads) {
            return "-threads=" + threads + " workers hold " + heapBytes + " bytes of heap each ("
                    + heapFlags + "), " + heapBytes * threads + " in all, more than "
                    + HEAP_PERCENT + "% of the JVM's maximum heap (" + (maxHeap >> 20)
                    + " MiB): lower -threads or those sizes, or " + Failures.raiseHeap();
        }
        if (memory.isPresent() && nativeBytes > memory.getAsLong() / threads) {
            return "-threads=" + threads + " workers hold " + nativeBytes + " bytes of native"
                    + " memory each (" + nativeFlags + "), " + nativeBytes * threads
                    + " in all, more than this machine's memory, " + memory.getAsLong()
                    + " bytes: lower -threads or the value size";
        }
        return null;
    }

    /**
     * Whether the cache can be built ({@link CacheFactory#check}): the builder's refusal, its
     * arguments named by the flags in {@code builderFlags}.
     */
    public static String cache(CacheFactory.Settings settings, Map<String, String> builderFlags) {
        String problem = CacheFactory.check(settings, builderFlags);
        return problem != null ? problem : fixedTableFits(settings, builderFlags,
                ProcessStats.physicalMemoryBytes());
    }

    /**
     * What a fixed table's slot takes in memory: {@code FixedHyperClockCache.Builder} charges
     * each slot this much (its refusals print the figure), and allocates every slot up front.
     */
    static final long FIXED_SLOT_BYTES = 64;

    /**
     * The share of a fixed table's slots that entries of the estimated charge fill, as its
     * builder sizes it: the table has {@code capacity / (charge x this + slot bytes)} slots,
     * rounded up to a power of two. Used only to estimate the table's memory for a refusal.
     */
    static final double FIXED_TABLE_LOAD_FACTOR = 0.7;

    /**
     * A fixed HyperClock table is allocated, and written, in full when the cache is built,
     * whether or not the run fills it: one sized beyond this machine's memory is refused, where
     * the machine would kill the process (a 8 TiB cache of 8 KiB values wants a 128 GiB table).
     */
    static String fixedTableFits(CacheFactory.Settings s, Map<String, String> builderFlags,
                                 OptionalLong memory) {
        if (!s.cacheType().equals(CacheFactory.FIXED_HYPER_CLOCK) || memory.isEmpty()) {
            return null;
        }
        long charge = s.valueBytesEstimate() > 0 ? s.valueBytesEstimate() : s.valueBytes();
        long tableBytes = fixedTableBytes(s.capacity(), charge);
        if (tableBytes <= memory.getAsLong()) {
            return null;
        }
        String capacity = builderFlags.getOrDefault("capacity", "capacity");
        String entryCharge = builderFlags.getOrDefault("estimatedEntryCharge",
                "estimatedEntryCharge");
        return "-cache_type=" + CacheFactory.FIXED_HYPER_CLOCK + " allocates its table up"
                + " front: " + capacity + " " + s.capacity() + " in entries of " + entryCharge
                + " " + charge + " takes about " + tableBytes + " bytes of it, more than this"
                + " machine's memory, " + memory.getAsLong() + " bytes: lower " + capacity
                + ", raise " + entryCharge + ", or use " + CacheFactory.AUTO_HYPER_CLOCK
                + " (its table grows with what it holds)";
    }

    /** About the memory of a fixed table for {@code capacity} in entries of {@code charge}. */
    static long fixedTableBytes(long capacity, long charge) {
        long slots = Math.max(1L, (long) Math.ceil(capacity
                / (charge * FIXED_TABLE_LOAD_FACTOR + FIXED_SLOT_BYTES)));
        int bits = Long.SIZE - Long.numberOfLeadingZeros(slots - 1); // ceil(log2(slots))
        long maxBits = Long.SIZE - 1 - Long.numberOfTrailingZeros(FIXED_SLOT_BYTES);
        return bits >= maxBits ? Long.MAX_VALUE : (1L << bits) * FIXED_SLOT_BYTES;
    }

    /** The LRU pool ratios, each in [0, 1] and together at most 1. */
    public static String poolRatios(double highPriPoolRatio, double lowPriPoolRatio) {
        if (!(highPriPoolRatio >= 0 && highPriPoolRatio <= 1)) {
            return "-high_pri_pool_ratio must be in [0, 1], was " + highPriPoolRatio;
        }
        if (!(lowPriPoolRatio >= 0 && lowPriPoolRatio <= 1)) {
            return "-low_pri_pool_ratio must be in [0, 1], was " + lowPriPoolRatio;
        }
        if (highPriPoolRatio + lowPriPoolRatio > 1) {
            return "-high_pri_pool_ratio + -low_pri_pool_ratio must not exceed 1, was "
                    + (highPriPoolRatio + lowPriPoolRatio);
        }
        return null;
    }

    /** The share of the key space that fits, and the share of the cache kept pinned. */
    public static String residentAndPinnedRatios(double residentRatio, double pinnedRatio) {
        if (!(residentRatio > 0) || Double.isInfinite(residentRatio)) {
            return "-resident_ratio must be a finite number > 0, was " + residentRatio;
        }
        if (!(pinnedRatio >= 0) || Double.isInfinite(pinnedRatio)) {
            return "-pinned_ratio must be a finite number >= 0, was " + pinnedRatio;
        }
        return null;
    }
}
