package dev.clockwork.cli.soak;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.workload.KeyGen;
import dev.clockwork.offheap.NativeMemory;
import java.util.OptionalLong;

/**
 * The leak accounting at the end of a soak, once every worker has released its handles: the
 * pinned usage must be 0; after erasing every key the run can have used, the cache must hold no
 * entries and charge only what an empty cache of its table size does; after close, the native
 * bytes and reserved address space must be back to their values before the cache was made.
 *
 * @param keys the key numbers {@code [0, keys)} the run can have used
 * @param drained whether the key space was small enough to erase key by key
 *     ({@link #MAX_DRAIN_KEYS}); the drain figures are -1 when it was not
 * @param expectedUsage what an empty cache of the table size charges, or -1 when unknown
 */
record LeakCheck(long keys, long pinnedUsage, boolean drained, long entriesAfterDrain,
        long usageAfterDrain,
                 long expectedUsage, long nativeAfterDrain, long nativeAfterClose,
                 long reservedAfterClose, long nativeBaseline, long reservedBaseline) {

    /** Largest key space erased key by key after the run (beyond it the drain is skipped). */
    static final long MAX_DRAIN_KEYS = 1L << 27;

    boolean pinnedOk() {
        return pinnedUsage == 0;
    }

    boolean drainOk() {
        return !drained || entriesAfterDrain == 0
                && (expectedUsage < 0 || usageAfterDrain == expectedUsage);
    }

    boolean nativeOk() {
        return nativeAfterClose == nativeBaseline && reservedAfterClose == reservedBaseline;
    }

    boolean leakFree() {
        return pinnedOk() && drainOk() && nativeOk();
    }

    /**
     * What an empty cache charges per table slot (HyperClock tables charge their slots): 0 for
     * a cache without a slot table, -1 when its usage is not a whole number of slots. Measured
     * on the new, empty cache.
     */
    static long emptyUsagePerSlot(Cache cache) {
        OptionalLong slots = CacheFactory.tableSlots(cache);
        long usage = cache.usage();
        if (slots.isEmpty()) {
            return 0;
        }
        if (slots.getAsLong() > 0 && usage % slots.getAsLong() == 0) {
            return usage / slots.getAsLong();
        }
        return -1;
    }

    /** Checks the pinned usage, erases keys {@code [0, maxKey)}, then closes the cache. */
    static LeakCheck run(Cache cache, long maxKey, long emptyUsagePerSlot, long nativeBaseline,
                         long reservedBaseline) {
        long pinnedUsage = cache.pinnedUsage();
        boolean drained = maxKey <= MAX_DRAIN_KEYS;
        long entries = -1;
        long usage = -1;
        long expected = -1;
        long nativeAfterDrain = -1;
        if (drained) {
            KeyGen gen = new KeyGen();
            for (long k = 0; k < maxKey; k++) {
                gen.encode(k);
                cache.erase(gen.key0(), gen.key1());
            }
            entries = cache.entryCount();
            usage = cache.usage();
            nativeAfterDrain = NativeMemory.outstandingBytes();
            if (emptyUsagePerSlot >= 0) {
                expected = emptyUsagePerSlot * CacheFactory.tableSlots(cache).orElse(0);
            }
        }
        cache.close();
        return new LeakCheck(maxKey, pinnedUsage, drained, entries, usage, expected,
                nativeAfterDrain,
                NativeMemory.outstandingBytes(), NativeMemory.reservedBytes(), nativeBaseline,
                reservedBaseline);
    }
}
