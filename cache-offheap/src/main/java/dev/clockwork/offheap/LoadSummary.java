package dev.clockwork.offheap;

/**
 * What {@link EngineCache#load} read and inserted from a dump that proved whole.
 *
 * @param records the records the dump held
 * @param inserted the records inserted and accepted
 * @param refused the records whose insert was refused (admission, strict capacity, limits)
 * @param skipped the records not inserted because the cache was full: the coldest
 * @param fileBytes the dump's length in bytes
 * @param nanos how long the load took
 */
public record LoadSummary(long records, long inserted, long refused, long skipped,
                          long fileBytes, long nanos) {
}
