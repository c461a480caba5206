/**
 * The cache dump format: a versioned, checksummed stream of a cache's entries, hottest first,
 * that a new cache loads to start warm after a restart ({@link dev.clockwork.cache.dump.DumpFormat}
 * gives the layout). {@link dev.clockwork.cache.dump.DumpWriter} writes one,
 * {@link dev.clockwork.cache.dump.DumpReader} reads and verifies one, and refuses anything else
 * with a {@link dev.clockwork.cache.dump.DumpFormatException} naming what is wrong.
 */
package dev.clockwork.cache.dump;
