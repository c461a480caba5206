package dev.clockwork.offheap;

import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.admission.TinyLfu;
import dev.clockwork.offheap.clock.AutoClockTable;
import dev.clockwork.offheap.stats.KindCounts;
import java.util.List;

/**
 * Every option of every cache builder, in one object that the builders write through and read
 * when they build. A builder that hands its options on to another ({@link HyperClockCache.Builder}
 * to the fixed table's) hands the same object, so an option is declared once here and set by one
 * setter, whichever builder the user holds. Defaults are the documented ones of each setter.
 */
final class BuilderSettings {
    // CacheOptions: every cache.
    long capacity = -1;
    int numShardBits = -1;
    boolean strictCapacityLimit;
    boolean chargeMetadata = true;
    long hashSeed = 0x5eed_c10c_c0de_5eedL;
    /** A policy of the caller's own, or {@link Admission#ALWAYS} for {@link #admissionPolicy}. */
    Admission admission = Admission.ALWAYS;
    AdmissionPolicy admissionPolicy = AdmissionPolicy.TINY_LFU;
    boolean recordStats = true;
    /** The entry kinds the cache counts ({@link CacheOptions#kinds}); none by default. */
    List<EntryKind> kinds = List.of();

    /** Counters for the kinds, new for each cache built. */
    KindCounts kindCounts() {
        return kinds.isEmpty() ? KindCounts.NONE : new KindCounts(kinds);
    }

    // HyperClockOptions: both HyperClock tables.
    int evictionEffortCap = 30;
    /** Set only by the fixed table's builder, which requires it positive; Auto ignores it. */
    long estimatedEntryCharge;
    long minAvgEntryCharge = AutoClockTable.DEFAULT_MIN_AVG_ENTRY_CHARGE;

    // LruCache.Builder.
    double highPriPoolRatio = 0.5;
    /** Whether the caller set {@link #highPriPoolRatio}; see {@link #highPriPoolRatio()}. */
    boolean highPriPoolRatioGiven;
    double lowPriPoolRatio = 0.0;

    /**
     * The LRU's high pool's share: as given, else RocksDB's 0.5, or with an admission policy
     * W-TinyLFU's protected region, 0.8 (of what the window leaves).
     */
    double highPriPoolRatio() {
        if (highPriPoolRatioGiven) {
            return highPriPoolRatio;
        }
        return admission == Admission.ALWAYS && admissionPolicy == AdmissionPolicy.NONE
                ? 0.5 : PROTECTED_SHARE;
    }

    /** W-TinyLFU's protected share of the main region, as in Caffeine. */
    static final double PROTECTED_SHARE = 0.8;

    /**
     * The admission policy for the cache being built: the caller's own, or a new one of
     * {@link #admissionPolicy} for this cache's capacity (a policy's state is per cache), whose
     * heap is bounded by {@code maxEntries}.
     *
     * @param maxEntries the most entries the cache can hold, at its smallest charge (all shards)
     */
    Admission admissionFor(boolean cacheHasWindow, long maxEntries) {
        if (admission != Admission.ALWAYS || admissionPolicy == AdmissionPolicy.NONE) {
            return admission;
        }
        return new TinyLfu(Math.min(capacity, CacheOptions.MAX_USAGE), maxEntries, cacheHasWindow);
    }
}
