package dev.clockwork.cli.simulate;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.AdmissionPolicy;
import dev.clockwork.offheap.AutoHyperClockCache;
import dev.clockwork.offheap.CacheOptions;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.LruCache;

/**
 * A Clockwork cache driven as a policy: lookup, and on a hit release the handle at once; on a
 * miss insert an 8-byte value, priority LOW, keeping no handle. So nothing stays pinned between
 * accesses and eviction sees every entry. The trace key {@code k} is the 16-byte key
 * {@code (k, 0)}.
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

    /** {@code AutoHyperClockCache.Builder.minAvgEntryCharge}'s documented default. */
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

    /** The name of a type's configuration with TinyLFU admission. */
    public static String withTinyLfu(String type) {
        return type + "_tinylfu";
    }

    static SimPolicy lruCache(Trace trace, long capacity, boolean bytes) {
        return lruCache(trace, capacity, bytes, AdmissionPolicy.NONE);
    }

    static SimPolicy lruCache(Trace trace, long capacity, boolean bytes, AdmissionPolicy policy) {
        return build(LruCache.builder().admission(policy), capacity, bytes);
    }

    static SimPolicy fixedHyperClock(Trace trace, long capacity, boolean bytes) {
        return fixedHyperClock(trace, capacity, bytes, AdmissionPolicy.NONE);
    }

    static SimPolicy fixedHyperClock(Trace trace, long capacity, boolean bytes,
                                     AdmissionPolicy policy) {
        // the table is sized from the mean charge: every entry's, or the trace's mean size
        long estimate = bytes ? Math.max(1, Math.round(trace.meanSize())) : ENTRY_CHARGE;
        return build(FixedHyperClockCache.builder().estimatedEntryCharge(estimate)
                .admission(policy), capacity, bytes);
    }

    static SimPolicy autoHyperClock(Trace trace, long capacity, boolean bytes) {
        return autoHyperClock(trace, capacity, bytes, AdmissionPolicy.NONE);
    }

    static SimPolicy autoHyperClock(Trace trace, long capacity, boolean bytes,
                                    AdmissionPolicy policy) {
        AutoHyperClockCache.Builder b = AutoHyperClockCache.builder().admission(policy);
        long mean = Math.max(1, Math.round(trace.meanSize()));
        if (bytes && mean < AUTO_DEFAULT_MIN_AVG_CHARGE) {
            // below its default the reservation would run out of slots before capacity
            b.minAvgEntryCharge(mean);
        }
        return build(b, capacity, bytes);
    }

    private static SimPolicy build(CacheOptions<?> builder, long capacity, boolean bytes) {
        long unit = bytes ? 1 : ENTRY_CHARGE;
        long capacityCharge = Math.multiplyExact(capacity, unit);
        Cache cache = builder.capacity(capacityCharge).numShardBits(0).chargeMetadata(false)
                .build();
        return new ClockworkPolicy(cache, unit, capacityCharge);
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

    @Override
    public void close() {
        cache.close();
    }
}
