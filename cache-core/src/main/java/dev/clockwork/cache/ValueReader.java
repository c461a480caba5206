package dev.clockwork.cache;

import java.lang.foreign.MemorySegment;

/**
 * Reads a cached value in place for {@link Cache#read}, and reduces it to a {@code long}: a field,
 * a position found by a search, a checksum.
 *
 * <p>A cache may call it without holding the entry, on a value that is being freed and reused
 * meanwhile, and then throw away what it returned (or threw) and call it again. So a reader must:
 * <ul>
 *   <li>have no effect but its result: no writes to shared state, no I/O;</li>
 *   <li>end, and end quickly, whatever bytes it is given (a length field read from the value may
 *       be garbage: bound every loop by {@code value.byteSize()});</li>
 *   <li>not keep {@code value} past its return.</li>
 * </ul>
 * An exception it throws reaches the caller only if the value was whole while it ran.
 */
@FunctionalInterface
public interface ValueReader {
    /**
     * Reads the value.
     *
     * @param value a read-only view of the value, valid only during this call
     * @return what the caller of {@link Cache#read} gets
     */
    long read(MemorySegment value);
}
