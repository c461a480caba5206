package dev.clockwork.offheap;

import dev.clockwork.cache.internal.Args;
import dev.clockwork.offheap.context.CacheContext;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Values moving between the caller's memory and the cache's: the checks of a caller's source and
 * destination, and the copy of a value into native memory that an insert stores. Apart from
 * {@link ShardedCache} because they are the value transfer, the same for every cache type and
 * independent of the index; static, on primitive values, so that the paths that call them
 * allocate nothing and call nothing virtual. Reading a stored value back is the read protocol's
 * ({@link OptimisticRead}), and a handle's ({@link ShardedCache#copyValue}).
 */
final class ValueCopies {
    private ValueCopies() {
    }

    /** A segment value's length, refused above what a record's 32-bit length can hold. */
    static int checkLength(long length) {
        if (length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("value is " + length + " bytes; at most "
                    + Integer.MAX_VALUE + " are supported");
        }
        return (int) length;
    }

    /** Refuses a null array, and an offset and length that do not lie inside it. */
    static void checkArray(byte[] value, int offset, int length) {
        Args.requireNonNull("value", value);
        if (offset < 0 || length < 0 || offset > value.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length
                    + " do not fit value of " + value.length + " bytes");
        }
    }

    /** Refuses a destination of {@code size} bytes without room for {@code length} at offset. */
    static void checkRoom(long size, long offset, int length) {
        if (offset < 0 || offset > size - length) {
            throw new IllegalArgumentException("dst has room for " + (size - offset)
                    + " bytes at offset " + offset + ", value has " + length);
        }
    }

    /**
     * Copies {@code length} bytes of {@code segment} (from 0) or of {@code array} (from
     * {@code offset}; the other null) into new value memory of the cache, and returns its
     * address, owned by the caller. If the copy fails (closed meanwhile, or a bad source
     * segment), the memory is freed before the exception goes on.
     */
    static long copyIn(CacheContext context, MemorySegment segment, byte[] array, int offset,
                       int length) {
        long address = context.values.allocate(length);
        try {
            if (segment != null) {
                MemorySegment.copy(segment, 0, context.all(), address, length);
            } else {
                MemorySegment.copy(array, offset, context.all(), ValueLayout.JAVA_BYTE, address,
                        length);
            }
        } catch (RuntimeException | Error e) {
            context.values.free(address, length);
            throw e;
        }
        return address;
    }
}
