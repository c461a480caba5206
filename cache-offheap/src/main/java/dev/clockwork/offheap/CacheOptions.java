package dev.clockwork.offheap;

import dev.clockwork.cache.EntryKind;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.context.CacheContext;
import dev.clockwork.offheap.entry.EntryStamp;
import dev.clockwork.offheap.shard.Shard;
import dev.clockwork.offheap.shard.ShardContext;
import dev.clockwork.offheap.shard.ShardSizing;
import dev.clockwork.offheap.stats.KindCounts;
import java.util.Arrays;
import java.util.List;

/**
 * Options every off-heap cache builder shares: capacity, sharding, the strict limit, metadata
 * charging, the hash seed, stats and admission. Each builder's {@code build()} validates them
 * ({@link #validate()}) and names the first bad one.
 *
 * <h2>Sizes and limits</h2>
 * <ul>
 *   <li><b>Capacity</b>: any positive {@code long}; each of the 2^numShardBits shards gets an
 *       even share, rounded up, but at most its share of {@link #MAX_USAGE}. So a capacity of
 *       {@link #MAX_USAGE} or more ({@code Long.MAX_VALUE} for "unbounded") makes a cache that
 *       evicts only at {@link #MAX_USAGE}; {@code capacity()} still reports the value set.</li>
 *   <li><b>Usage</b>: inserts keep a shard's usage within {@code MAX_USAGE / 2^numShardBits}
 *       (an Auto table's slots, charged as it grows, may add at most its reservation, 128 GiB
 *       for all shards), so neither a shard's usage nor the cache's sum of them can overflow a
 *       {@code long}. An insert that would take its shard past that share is refused, with or
 *       without a strict limit, and counted in {@code memoryLimitRejects}; so is any charge
 *       above it. Below {@link #MAX_USAGE} capacity it only matters for pinned entries held
 *       over capacity.</li>
 *   <li><b>Slots and records</b>: a handle names a slot (HyperClock) or record (LRU) and its
 *       shard in 31 bits ({@code MAX_LOCATION_BITS}), so a cache has at most 2^31 of them, a
 *       shard {@code 2^(31 - numShardBits)}. Each cache type says what it does at its limit.</li>
 * </ul>
 *
 * @param <B> the concrete builder, returned by each setter for chaining
 */
public abstract class CacheOptions<B extends CacheOptions<B>> {
    /**
     * A handle names a slot or record and its shard in this many bits, 31: the rest of its 64
     * hold the entry's 31-bit generation and a kind bit ({@link EntryStamp}).
     */
    static final int MAX_LOCATION_BITS = ShardSizing.MAX_LOCATION_BITS;
    /** log2 of the most shards a cache may have (65,536). */
    public static final int MAX_SHARD_BITS = 16;
    /**
     * Most bytes a cache's usage may reach, 2^56 (64 PiB), shared evenly by its shards. Beyond
     * any memory, and 128 times below {@code Long.MAX_VALUE}, which leaves room for what the
     * limit cannot stop: a HyperClock insert checks its shard's usage after adding its charge
     * (and takes the charge back if that passed the limit), so for an instant the counter may
     * hold the charges of every insert in flight, each at most the shard's share; it would take
     * 127 of them at once, each charged the whole share, to overflow. Sums over shards stay below
     * {@code Long.MAX_VALUE} as well.
     */
    public static final long MAX_USAGE = 1L << 56;

    /** The options themselves, shared with any builder this one hands them to. */
    final BuilderSettings settings;

    CacheOptions(BuilderSettings settings) {
        this.settings = settings;
    }

    @SuppressWarnings("unchecked")
    final B self() {
        return (B) this;
    }

    /** The smallest shard worth its own lock or table when choosing shard bits by default. */
    abstract long minShardBytes();

    /**
     * Capacity in bytes, 1 to {@code Long.MAX_VALUE}; required. Each shard gets
     * {@code ceil(capacity / 2^numShardBits)}, but at most {@code MAX_USAGE / 2^numShardBits}
     * (see {@link #MAX_USAGE}): a larger capacity, {@code Long.MAX_VALUE} for "unbounded", acts
     * as {@link #MAX_USAGE}. The same holds for {@code setCapacity}.
     *
     * @param bytes the capacity in bytes; {@link #validate()} refuses one below 1, and an unset one
     * @return this builder
     */
    public B capacity(long bytes) {
        settings.capacity = bytes;
        return self();
    }

    /**
     * log2 of the shard count, 0..16 ({@link #MAX_SHARD_BITS}); -1 (default) picks, as RocksDB
     * does, one more shard bit per doubling of capacity over the minimum shard size (32 MiB for
     * HyperClock, 512 KiB for LRU), up to 64 shards. More shards leave fewer slots or records to
     * each: at most {@code 2^(31 - numShardBits)} per shard (a handle names a slot or record
     * and its shard in 31 bits).
     *
     * @param bits log2 of the shard count, 0 to 16, or -1 for the default; {@link #validate()}
     *     refuses other values
     * @return this builder
     */
    public B numShardBits(int bits) {
        settings.numShardBits = bits;
        return self();
    }

    /**
     * Whether an insert that would exceed capacity (with nothing left to evict) fails.
     *
     * @param strict {@code true} to refuse such inserts; {@code false} (default) to let usage
     *     exceed capacity (see {@code Cache.setStrictCapacityLimit})
     * @return this builder
     */
    public B strictCapacityLimit(boolean strict) {
        settings.strictCapacityLimit = strict;
        return self();
    }

    /**
     * Whether each entry's 64-byte slot or record counts against capacity (default true, as in
     * RocksDB). A fixed table charges all its slots up front; an Auto table charges slots as it
     * grows, outside the strict limit's check, so growth can take usage a few slots past a strict
     * limit; an LRU cache adds 64 bytes to each entry's charge.
     *
     * @param charge {@code true} (default) to count slots or records against capacity
     * @return this builder
     */
    public B chargeMetadata(boolean charge) {
        settings.chargeMetadata = charge;
        return self();
    }

    /**
     * Seed of the key hash; vary it across hosts to decorrelate their tables.
     *
     * @param seed any value; the default is a constant, the same in every process
     * @return this builder
     */
    public B hashSeed(long seed) {
        settings.hashSeed = seed;
        return self();
    }

    /**
     * Whether lookups count hits and misses in {@code stats()} (default true). A count is a plain
     * add to a per-thread-group stripe, exact for one thread and approximate when more threads
     * than stripes look up at once (see {@code LookupCounts}); off saves that add. The other
     * counters are always kept, exactly.
     *
     * @param record {@code true} (default) to count hits and misses; {@code false} leaves them 0
     * @return this builder
     */
    public B recordStats(boolean record) {
        settings.recordStats = record;
        return self();
    }

    /**
     * The kinds of entries the cache counts ({@link EntryKind}): inserts given one of them tag
     * their entries with it, and {@code stats().kinds()} reports each one's usage, entries, and
     * the hits and misses of lookups that name it ({@code lookup(key0, key1, kind)}); the
     * visitor of {@code forEachEntry} is told each entry's kind. Inserting or looking up a kind
     * not declared here is refused. None by default, and then kinds cost nothing.
     *
     * @param kinds the kinds, at most one per index (so at most {@value EntryKind#MAX_INDEX});
     *     replaces kinds given before
     * @return this builder
     * @throws NullPointerException if {@code kinds} or one of them is null
     * @throws IllegalArgumentException if two share an index, or one is
     *     {@link EntryKind#DEFAULT}
     */
    public B kinds(EntryKind... kinds) {
        Args.requireNonNull("kinds", kinds);
        List<EntryKind> list = Arrays.asList(kinds.clone());
        KindCounts.byIndex(list); // checks them
        settings.kinds = List.copyOf(list);
        return self();
    }

    /**
     * Which admission policy decides whether an insert may evict (default
     * {@link AdmissionPolicy#TINY_LFU}; {@link AdmissionPolicy#NONE} keeps every insert, the most
     * recent first); see {@link Admission} for where each cache type asks it.
     *
     * @param policy the policy; replaces a policy object given to {@link #admission(Admission)}
     * @return this builder
     * @throws NullPointerException if {@code policy} is null
     */
    public B admission(AdmissionPolicy policy) {
        settings.admissionPolicy = Args.requireNonNull("admission", policy);
        settings.admission = Admission.ALWAYS;
        return self();
    }

    /**
     * An admission policy of the caller's own, asked as {@link Admission} describes. One instance
     * serves one cache: it is told of that cache's accesses.
     *
     * @param admission the policy object; replaces a policy given to
     *     {@link #admission(AdmissionPolicy)}; {@link Admission#ALWAYS} turns admission off
     * @return this builder
     * @throws NullPointerException if {@code admission} is null
     */
    public B admission(Admission admission) {
        settings.admission = Args.requireNonNull("admission", admission);
        settings.admissionPolicy = AdmissionPolicy.NONE;
        return self();
    }

    /**
     * Checks every option as {@code build()} does, without allocating anything; subclasses add
     * theirs. Useful to vet a configuration before building it.
     *
     * @throws IllegalArgumentException naming the first bad option; for sizes that do not go
     *     together, naming each and what to change
     */
    public void validate() {
        Args.requirePositive("capacity", settings.capacity);
        Args.requireInRange("numShardBits", settings.numShardBits, -1, MAX_SHARD_BITS);
    }

    /**
     * Builds the cache, after {@link #validate()}.
     *
     * @return a new cache, holding native memory until it is closed
     * @throws IllegalArgumentException as {@link #validate()}
     */
    public abstract ShardedCache build();

    final int shardBits() {
        return settings.numShardBits >= 0 ? settings.numShardBits
                : ShardSizing.defaultShardBits(settings.capacity, minShardBytes());
    }

    final int shardCount() {
        return 1 << shardBits();
    }

    /** Makes one shard from what every shard of either family is made with. */
    interface ShardMaker<S extends Shard> {
        S make(ShardContext shard);
    }

    /**
     * Fills {@code shards} with new shards, each given its share of the capacity and of
     * {@link #MAX_USAGE}. If one cannot be made, closes the arena, frees those already made and
     * rethrows: a failed build holds no native memory.
     */
    final <S extends Shard> S[] makeShards(S[] shards, CacheContext context, Admission admission,
                                           ShardMaker<S> maker) {
        BuilderSettings o = settings;
        int shardBits = Integer.numberOfTrailingZeros(shards.length);
        long perShard = ShardedCache.perShardCapacity(o.capacity, shards.length);
        long usageLimit = shardUsageLimit(shardBits);
        try {
            for (int i = 0; i < shards.length; i++) {
                shards[i] = maker.make(new ShardContext(i, shardBits, perShard, usageLimit,
                        o.strictCapacityLimit, o.chargeMetadata, context, admission));
            }
        } catch (RuntimeException | Error e) {
            context.closeArena();
            for (S shard : shards) {
                if (shard != null) {
                    shard.freeAll();
                }
            }
            throw e;
        }
        return shards;
    }

    /** Each shard's share of {@link #MAX_USAGE}, the most its usage may reach. */
    static long shardUsageLimit(int shardBits) {
        return MAX_USAGE >> shardBits;
    }

    /**
     * Most slots (HyperClock) or records (LRU) a shard may have when there are
     * {@code 2^shardBits} shards, as far as handles are concerned (see
     * {@link #MAX_LOCATION_BITS}); each cache type may have a lower limit of its own.
     *
     * @param shardBits log2 of the shard count, 0 to {@link #MAX_SHARD_BITS}
     * @return {@code 2^(31 - shardBits)}
     */
    public static long maxLocationsPerShard(int shardBits) {
        return ShardSizing.maxLocationsPerShard(shardBits);
    }
}
