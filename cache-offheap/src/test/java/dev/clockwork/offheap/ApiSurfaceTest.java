package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.clockwork.cache.Cache;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What the caches' common base class offers users beyond {@link Cache}: the shard count, the id
 * its JFR events carry and the evicted charge, read-only figures that take no argument. Its
 * internals take raw native addresses and trust them (handing an entry to a visitor,
 * for one); a public method there would let any caller read arbitrary memory, so a new public or
 * protected method fails here until it is meant as API.
 */
class ApiSurfaceTest {

    @Test
    void shardedCacheAddsOnlyItsFiguresToCache() {
        Set<String> cacheMethods = Arrays.stream(Cache.class.getMethods())
                .map(Method::getName).collect(Collectors.toSet());
        Set<String> extra = new TreeSet<>();
        for (Method m : ShardedCache.class.getDeclaredMethods()) {
            boolean exposed = Modifier.isPublic(m.getModifiers())
                    || Modifier.isProtected(m.getModifiers());
            if (exposed && !cacheMethods.contains(m.getName())) {
                extra.add(m.getName());
            }
        }
        assertEquals(Set.of("cacheId", "evictedCharge", "numShards"), extra);
    }
}
