package dev.clockwork.offheap.events;

/**
 * What an event reads of the shard it happened in, when a recording wants the event: its usage,
 * capacity and limit switch. Every shard is one ({@code Shard} extends it), so events depend on
 * nothing of the cache but this.
 */
public interface ShardGauges {
    /** Bytes charged to the shard: entries and, where charged, their metadata. */
    long usage();

    /** The shard's share of the capacity. */
    long capacity();

    /** Whether an insert that cannot make room fails. */
    boolean strict();
}
