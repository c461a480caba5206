package dev.clockwork.cache;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * Starts loading a value the cache does not hold, for {@link Cache#getOrLoadAsync}: for engines
 * whose reads are asynchronous (io_uring, an {@code AsynchronousFileChannel}). {@link #load}
 * runs on the calling thread and should only start the I/O; the cache stores the value on the
 * thread that completes the returned future.
 *
 * <p>One load per key at a time is shared by every caller of that key, synchronous and
 * asynchronous alike (a {@link ValueLoader} of a synchronous caller and this one are never both
 * running for one key). The rules of {@link ValueLoader} hold for {@link #load} itself; a
 * future completed exceptionally fails every caller of the load with its exception (unwrapped
 * from a {@link java.util.concurrent.CompletionException}).
 *
 * <p>The segment the future completes with is copied into the cache before the callers' futures
 * complete; it stays the loader's, and must stay readable until then.
 */
@FunctionalInterface
public interface AsyncValueLoader {
    /**
     * Starts loading the value of a key.
     *
     * @param key0 the key's first 64 bits
     * @param key1 the key's second 64 bits
     * @return a future of the value (at most {@code Integer.MAX_VALUE} bytes and at most the
     *     cache's capacity; never null, nor completed with null)
     * @throws Exception if the load could not even start; it reaches every caller of this load
     */
    CompletableFuture<MemorySegment> load(long key0, long key1) throws Exception;
}
