package dev.clockwork.bench;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.function.IntFunction;

/**
 * The Caffeine cache the lookup benchmarks read: {@code Cache<Long, byte[]>} bounded to exactly
 * its {@code n} entries (keys {@code 0..n-1}, boxed once), maintenance run on the calling
 * thread, filled and checked to hold every entry, so that each read is a hit at capacity.
 */
final class CaffeineFill {
    final Cache<Long, byte[]> cache;
    /** Key {@code i}, boxed once at setup so that a read allocates no key. */
    final Long[] boxed;

    CaffeineFill(int n, IntFunction<byte[]> valueOf) {
        cache = Caffeine.newBuilder().maximumSize(n).executor(Runnable::run).build();
        boxed = new Long[n];
        for (int i = 0; i < n; i++) {
            boxed[i] = (long) i;
            cache.put(boxed[i], valueOf.apply(i));
        }
        cache.cleanUp();
        if (cache.estimatedSize() != n) {
            throw new IllegalStateException("Caffeine holds " + cache.estimatedSize()
                    + " entries, expected " + n);
        }
    }
}
