package dev.clockwork.cli.simulate;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.CacheOptions;
import dev.clockwork.offheap.HyperClockCache;
import dev.clockwork.offheap.LruCache;

/**
 * A Clockwork cache driven as a policy: lookup, and on a hit release the handle at once; on a
 * miss insert an 8-byte value, priority LOW, keeping no handle. So nothing stays pinned between
 * accesses and eviction sees every entry. The trace key {@code k} is the 16-byte key
 * {@code (k, 0)}. The caches are concurrent, and so is this: {@code -threads} replays through
 * it from several threads.
 *
 * <p>The factories build each type through its public builder in its default configuration but
 * for what a replay needs fixed: one shard ({@code numShardBits(0)}, so the whole capacity is one
 * LRU list or one clock), and {@code chargeMetadata(false)} (so the capacity holds the trace's
 * entries, not their slots or records). Charges: capacities in entries give every entry the
 * charge {@link #ENTRY_CHARGE} and the cache {@code capacity * ENTRY_CHARGE}; byte capacities
 * charge each entry its size.
 */
public final class ClockworkPolicy implements SimPolicy {
    public static final String LRU_CACHE = "lru_cache";
    public static final String FIXED_HYPER_CLOCK = "fixed_hyper_clock_cache";
    public static final String AUTO_HYPER_CLOCK = "auto_hyper_clock_cache";

    /**
     * The charge of one entry when capacities are in entries. Chosen above
     * {@link #AUTO_DEFAULT_MIN_AVG_CHARGE} so that the Auto table's default reservation holds
     * every entry the capacity allows; the value's own size plays no part.
     */
    public static final long ENTRY_CHARGE = 1024;

    /** Largest capacity in entries: {@code capacity * ENTRY_CHARGE} must fit in a long. */
    public static final long MAX_ENTRIES = Long.MAX_VALUE / ENTRY_CHARGE;

    /** {@code HyperClockCache.Builder.minAvgEntryCharge}'s documented default. */
    static final long AUTO_DEFAULT_MIN_AVG_CHARGE = 450;

    private static final byte[] VALUE = new byte[8];

    private final Cache cache;
    private final long unitCharge;
    private final long capacityCharge;

    /**
     * @param cache an empty cache of capacity {@code capacityCharge}, used by this policy alone
     * @param unitCharge the charge of one unit of an access's size
     */
    public ClockworkPolicy(Cache cache, long unitCharge, long capacityCharge) {
        this.cache = cache;
        this.unitCharge = unitCharge;
        this.capacityCharge = capacityCharge;
    }

    /** The name of a type's configuration with admission off ({@code AdmissionPolicy.NONE}). */
    public static String withoutAdmission(String type) {
        return type + "_no_admission";
    }

    /** A type's builder for a trace, before the capacity and what every type shares are set. */
    @FunctionalInterface
    interface BuilderFor {
        CacheOptions<?> builder(Trace trace, boolean bytes);
    }

    /**
     * Makes a Clockwork cache of one type for each replay, and checks up front, through the
     * builder's own {@code validate()}, that it can: the builders refuse some capacities (a
     * fixed table too small for one entry of the trace's mean size, say), and a refusal found
     * only when the replay starts would come after results were printed.
     */
    private record Factory(BuilderFor type, boolean fixedTable) implements PolicyFactory {
        @Override
        public SimPolicy create(Trace trace, long capacity, boolean bytes) {
            long unit = unitCharge(bytes);
            long capacityCharge = Math.multiplyExact(capacity, unit);
            return new ClockworkPolicy(configured(type.builder(trace, bytes), capacityCharge)
                    .build(), unit, capacityCharge);
        }

        /** The caches are concurrent: any number of threads may look up and insert at once. */
        @Override
        public boolean concurrent() {
            return true;
        }

        @Override
        public String check(Trace trace, long capacity, boolean bytes) {
            long unit = unitCharge(bytes);
            if (capacity > Long.MAX_VALUE / unit) {
                return "capacity " + capacity + " x " + unit + " bytes an entry is more than "
                        + Long.MAX_VALUE + " bytes";
            }
            if (fixedTable && bytes && capacity / meanCharge(trace) > MAX_FIXED_TABLE_ENTRIES) {
                return "a fixed table for " + capacity + " bytes of entries of the trace's mean"
                        + " size, " + meanCharge(trace) + " bytes, would be sized for "
                        + capacity / meanCharge(trace) + " entries, more than "
                        + MAX_FIXED_TABLE_ENTRIES + " (the table is allocated up front, 64"
                        + " bytes a slot)";
            }
            try {
                configured(type.builder(trace, bytes), capacity * unit).validate();
                return null;
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
    }

    /**
     * Most entries a fixed table may be sized for with capacities in bytes: as many as the
     * capacities in entries allow ({@link SimulateOptions#MAX_ENTRIES}), for the same reason.
     */
    static final long MAX_FIXED_TABLE_ENTRIES = SimulateOptions.MAX_ENTRIES;

    /** lru_cache with the given admission policy. */
    static PolicyFactory lruCache(AdmissionPolicy policy) {
        return new Factory((trace, bytes) -> LruCache.builder().admission(policy), false);
    }

    /** fixed_hyper_clock_cache, its table sized from the mean charge, with the given admission. */
    static PolicyFactory fixedHyperClock(AdmissionPolicy policy) {
        return new Factory((trace, bytes) -> HyperClockCache.builder()
                .estimatedEntryCharge(bytes ? meanCharge(trace) : ENTRY_CHARGE)
                .admission(policy), true);
    }

    /** auto_hyper_clock_cache with the given admission policy. */
    static PolicyFactory autoHyperClock(AdmissionPolicy policy) {
        return new Factory((trace, bytes) -> {
            HyperClockCache.Builder b = HyperClockCache.builder().admission(policy);
            long mean = meanCharge(trace);
            if (bytes && mean < AUTO_DEFAULT_MIN_AVG_CHARGE) {
                // below its default the reservation would run out of slots before capacity
                b.minAvgEntryCharge(mean);
            }
            return b;
        }, false);
    }

    /** The trace's mean access size, rounded, at least 1: the charge tables are sized for. */
    private static long meanCharge(Trace trace) {
        return Math.max(1, Math.round(trace.meanSize()));
    }

    private static long unitCharge(boolean bytes) {
        return bytes ? 1 : ENTRY_CHARGE;
    }

    /** What every type shares: the capacity, one shard, entries charged without metadata. */
    private static CacheOptions<?> configured(CacheOptions<?> builder, long capacityCharge) {
        return builder.capacity(capacityCharge).numShardBits(0).chargeMetadata(false);
    }

    @Override
    public boolean access(long key, long size) {
        long handle = cache.lookup(key, 0);
        if (handle != Cache.MISS) {
            cache.release(handle);
            return true;
        }
        long charge = size * unitCharge;
        if (charge <= capacityCharge) { // a larger charge is refused by insert
            cache.insert(key, 0, VALUE, 0, VALUE.length, charge, Priority.LOW);
        }
        return false;
    }

    /**
     * The cache's {@code admissionRejects}. Its TinyLFU's records dropped under contention
     * ({@code TinyLfu.droppedRecords()}) are not exposed by the cache's API, so not reported.
     */
    @Override
    public long admissionRejects() {
        return cache.stats().admissionRejects();
    }

    @Override
    public void close() {
        cache.close();
    }
}
