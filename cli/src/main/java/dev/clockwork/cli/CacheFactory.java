package dev.clockwork.cli;

import dev.clockwork.cache.Cache;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.CacheOptions;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds a cache from cache_bench-style settings, keyed by the {@code -cache_type} name. The names
 * are RocksDB's; add a case here when a new implementation lands.
 */
public final class CacheFactory {
    private CacheFactory() {
    }

    /** HyperClockCache with a fixed-size table sized from an estimated entry charge. */
    public static final String FIXED_HYPER_CLOCK = "fixed_hyper_clock_cache";
    /** HyperClockCache with a table that grows as needed (RocksDB: AutoHyperClockCache). */
    public static final String AUTO_HYPER_CLOCK = "auto_hyper_clock_cache";
    /** RocksDB's default cache_type; means {@link #AUTO_HYPER_CLOCK} there. */
    public static final String HYPER_CLOCK = "hyper_clock_cache";
    /** Sharded LRU with three priority pools. */
    public static final String LRU = "lru_cache";

    /** Every name accepted by {@code -cache_type}, built or not. */
    public static final List<String> KNOWN_TYPES =
            List.of(FIXED_HYPER_CLOCK, HYPER_CLOCK, AUTO_HYPER_CLOCK, LRU);

    /** The names {@link #create} can build today. */
    public static final List<String> IMPLEMENTED_TYPES =
            List.of(FIXED_HYPER_CLOCK, HYPER_CLOCK, AUTO_HYPER_CLOCK, LRU);

    /**
     * Cache settings, as cache_bench passes them.
     *
     * @param cacheType one of {@link #KNOWN_TYPES}
     * @param capacity {@code -cache_size}
     * @param valueBytes {@code -value_bytes}
     * @param valueBytesEstimate {@code -value_bytes_estimate}; 0 = none
     * @param numShardBits {@code -num_shard_bits}; -1 = automatic
     * @param strictCapacityLimit cache_bench always uses false
     * @param evictionEffortCap {@code -eviction_effort_cap} (HyperClock only)
     * @param hashSeed seed of the key hash; cache_bench passes {@code seed & INT32_MAX} (see
     *     {@link #hashSeedFor}), which makes a run's table layout reproducible from its seed
     * @param highPriPoolRatio LRU only; cache_bench always uses 0.5
     * @param lowPriPoolRatio LRU only; cache_bench always uses 0 (RocksDB's default)
     * @param admission {@code -admission}: one of {@link #ADMISSIONS}
     */
    public record Settings(String cacheType, long capacity, long valueBytes,
                           long valueBytesEstimate, int numShardBits,
                           boolean strictCapacityLimit, int evictionEffortCap, long hashSeed,
                           double highPriPoolRatio, double lowPriPoolRatio, String admission) {
    }

    /** {@code -admission} values: no admission policy, or TinyLFU. */
    public static final List<String> ADMISSIONS = List.of("none", "tinylfu");

    /** Why {@code -admission} cannot be {@code value}, or null if it can. */
    public static String checkAdmission(String value) {
        return ADMISSIONS.contains(value) ? null
                : "-admission must be one of " + String.join(", ", ADMISSIONS) + ", was " + value;
    }

    private static AdmissionPolicy admissionPolicy(String value) {
        String problem = checkAdmission(value);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return value.equals("tinylfu") ? AdmissionPolicy.TINY_LFU : AdmissionPolicy.NONE;
    }

    /** cache_bench's {@code hash_seed = seed & INT32_MAX} for a run with the given seed. */
    public static long hashSeedFor(long seed) {
        return seed & 0x7FFF_FFFFL;
    }

    /** Returns null if {@code cacheType} can be built, else a one-line reason it cannot. */
    public static String checkType(String cacheType) {
        if (IMPLEMENTED_TYPES.contains(cacheType)) {
            return null;
        }
        if (KNOWN_TYPES.contains(cacheType)) {
            return "cache_type " + cacheType + " is not implemented yet (implemented: "
                    + String.join(", ", IMPLEMENTED_TYPES) + ")";
        }
        if (cacheType.equals("clock_cache")) {
            return "cache_type clock_cache (RocksDB's old clock cache) was removed from RocksDB; "
                    + "use " + FIXED_HYPER_CLOCK;
        }
        return "unknown cache_type '" + cacheType + "' (known: " + String.join(", ", KNOWN_TYPES)
                + ")";
    }

    /**
     * Builds the cache.
     *
     * @throws IllegalArgumentException if the type cannot be built (message from
     *     {@link #checkType}) or the builder rejects a setting (see {@link #check})
     */
    public static Cache create(Settings s) {
        return builder(s).admission(admissionPolicy(s.admission())).build();
    }

    /**
     * Checks that {@link #create} would build the cache, building nothing: null if so, else the
     * builder's refusal with each builder argument it names replaced by the flag that set it.
     *
     * @param flags for each builder argument (capacity, numShardBits, estimatedEntryCharge,
     *     minAvgEntryCharge, evictionEffortCap, highPriPoolRatio, lowPriPoolRatio), how to name
     *     it to the user; arguments without an entry keep their name
     */
    public static String check(Settings s, Map<String, String> flags) {
        try {
            builder(s).validate();
            return null;
        } catch (IllegalArgumentException e) {
            return inFlags(e.getMessage(), flags);
        }
    }

    /** {@code message}, each whole word that is a key of {@code flags} replaced by its value. */
    static String inFlags(String message, Map<String, String> flags) {
        if (flags.isEmpty()) {
            return message;
        }
        List<String> names = flags.keySet().stream().map(Pattern::quote).toList();
        Matcher m = Pattern.compile("\\b(" + String.join("|", names) + ")\\b").matcher(message);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(flags.get(m.group(1))));
        }
        return m.appendTail(out).toString();
    }

    /** The builder for these settings, with every option set; nothing is allocated. */
    private static CacheOptions<?> builder(Settings s) {
        String problem = checkType(s.cacheType());
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return switch (s.cacheType()) {
            case FIXED_HYPER_CLOCK -> HyperClockCache.builder()
                    .capacity(s.capacity())
                    // as cache_bench: the estimate flag overrides, else the actual value size
                    .estimatedEntryCharge(s.valueBytesEstimate() > 0
                            ? s.valueBytesEstimate() : s.valueBytes())
                    .numShardBits(s.numShardBits())
                    .strictCapacityLimit(s.strictCapacityLimit())
                    .evictionEffortCap(s.evictionEffortCap())
                    .hashSeed(s.hashSeed());
            case HYPER_CLOCK, AUTO_HYPER_CLOCK -> {
                var builder = HyperClockCache.builder()
                        .capacity(s.capacity())
                        .numShardBits(s.numShardBits())
                        .strictCapacityLimit(s.strictCapacityLimit())
                        .evictionEffortCap(s.evictionEffortCap())
                        .hashSeed(s.hashSeed());
                long minAvgEntryCharge = autoMinAvgEntryCharge(s);
                if (minAvgEntryCharge > 0) {
                    builder.minAvgEntryCharge(minAvgEntryCharge);
                }
                yield builder;
            }
            case LRU -> LruCache.builder()
                    .capacity(s.capacity())
                    .numShardBits(s.numShardBits())
                    .strictCapacityLimit(s.strictCapacityLimit())
                    .highPriPoolRatio(s.highPriPoolRatio())
                    .lowPriPoolRatio(s.lowPriPoolRatio())
                    .hashSeed(s.hashSeed());
            default -> throw new IllegalArgumentException(checkType(s.cacheType()));
        };
    }

    /**
     * The Auto table's minimum average entry charge, or 0 for its default
     * ({@link #AUTO_DEFAULT_MIN_AVG_ENTRY_CHARGE}): {@code -value_bytes_estimate} when set, as in
     * cache_bench; else the value size when it is smaller than the default. cache_bench keeps
     * the default there, and its table then runs out of slots long before the capacity is used:
     * with 64-byte values, a 1 GiB cache holds 1.9 million entries instead of 6.3 million (a
     * tenth of a 64-byte key space of 4x the capacity, where the capacity would hold a third).
     */
    public static long autoMinAvgEntryCharge(Settings s) {
        if (s.valueBytesEstimate() > 0) {
            return s.valueBytesEstimate();
        }
        return s.valueBytes() < AUTO_DEFAULT_MIN_AVG_ENTRY_CHARGE ? Math.max(1, s.valueBytes()) : 0;
    }

    /** {@code HyperClockCache.Builder.minAvgEntryCharge}'s documented default (RocksDB's). */
    public static final long AUTO_DEFAULT_MIN_AVG_ENTRY_CHARGE = 450;

    /** Table slots in use, for caches with a table of slots (HyperClock); empty otherwise. */
    public static OptionalLong tableSlots(Cache cache) {
        if (cache instanceof HyperClockCache hcc) {
            return OptionalLong.of(hcc.tableSlots());
        }
        return OptionalLong.empty();
    }

    /** The implementation's name, as cache_bench prints {@code Cache::Name()}. */
    public static String implName(Cache cache) {
        return cache.getClass().getSimpleName();
    }
}
