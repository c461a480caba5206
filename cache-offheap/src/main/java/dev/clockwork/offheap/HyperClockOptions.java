package dev.clockwork.offheap;

import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.clock.ClockShard;
import dev.clockwork.offheap.clock.ClockShardContext;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.context.CloseGate;

/**
 * Options shared by the HyperClock cache builders ({@link HyperClockCache#builder()} and the
 * {@link FixedHyperClockCache.Builder} its {@code estimatedEntryCharge} turns it into): the
 * common {@link CacheOptions} and the eviction effort cap.
 *
 * @param <B> the concrete builder, returned by each setter for chaining
 */
public abstract class HyperClockOptions<B extends HyperClockOptions<B>> extends CacheOptions<B> {
    /** RocksDB's default minimum shard size for HyperClockCache when choosing shard bits. */
    static final long MIN_SHARD_BYTES = 32L << 20;

    HyperClockOptions(BuilderSettings settings) {
        super(settings);
    }

    @Override
    long minShardBytes() {
        return MIN_SHARD_BYTES;
    }

    /**
     * How many pinned entries an eviction sweep may pass per entry it frees before it gives up
     * and lets usage exceed capacity (non-strict only); at least 1, default 30. Under heavy
     * pinning the cache may then hold about 1/cap more than its capacity instead of burning CPU.
     *
     * @param cap pinned entries passed per entry freed, {@code >= 1}; {@link #validate()}
     *     refuses less
     * @return this builder
     */
    public B evictionEffortCap(int cap) {
        settings.evictionEffortCap = cap;
        return self();
    }

    @Override
    public void validate() {
        super.validate();
        Args.requireInRange("evictionEffortCap", settings.evictionEffortCap, 1, Integer.MAX_VALUE);
    }

    @Override
    public abstract HyperClockCache build();

    /** Makes one shard (and its table) given what every shard is made with. */
    interface ClockShardMaker {
        ClockShard make(ClockShardContext context);
    }

    /** Makes every shard (see {@link CacheOptions#makeShards}), all closing with {@code gate}. */
    final ClockShard[] makeShards(CacheContext context, CloseGate gate, Admission admission,
                                  ClockShardMaker maker) {
        int effortCap = settings.evictionEffortCap;
        return makeShards(new ClockShard[shardCount()], context, admission,
                shard -> maker.make(new ClockShardContext(shard, effortCap, gate)));
    }
}
