package dev.clockwork.offheap;

/**
 * What {@link EngineCache#dump} wrote.
 *
 * @param entries the entries written
 * @param valueBytes their values' bytes, summed
 * @param fileBytes the dump's length in bytes: values, records' headers, blocks and trailer
 * @param nanos how long the dump took
 */
public record DumpSummary(long entries, long valueBytes, long fileBytes, long nanos) {
}
