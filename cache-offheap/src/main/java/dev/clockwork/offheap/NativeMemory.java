package dev.clockwork.offheap;

import dev.clockwork.offheap.memory.NativeAllocator;

/**
 * What every Clockwork cache in this process holds in native memory, for monitoring and for
 * tests that check a closed cache returned every byte.
 */
public final class NativeMemory {
    private NativeMemory() {
    }

    /**
     * Native bytes allocated and not yet freed by all Clockwork caches in this process: values,
     * tables and records. Zero once every cache is closed.
     *
     * @return the bytes outstanding now, over all caches of this process
     */
    public static long outstandingBytes() {
        return NativeAllocator.outstandingBytes();
    }

    /**
     * Bytes of address space reserved by the caches' growable tables (Auto HyperClock), resident
     * or not. Zero once every cache is closed.
     *
     * @return the bytes reserved now, over all caches of this process
     */
    public static long reservedBytes() {
        return NativeAllocator.reservedBytes();
    }
}
