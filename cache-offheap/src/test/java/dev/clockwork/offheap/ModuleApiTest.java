package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The library's module exports its API package and nothing else: the clock protocol, the LRU
 * shards and native memory stay internal, whatever is public inside them. The tests run patched
 * into the module, so its descriptor is the one a module-path user gets.
 */
class ModuleApiTest {
    @Test
    void exportsOnlyTheApiPackage() {
        ModuleDescriptor descriptor = ShardedCache.class.getModule().getDescriptor();
        assertEquals("dev.clockwork.offheap", descriptor.name());
        Set<String> exported = new TreeSet<>();
        for (ModuleDescriptor.Exports export : descriptor.exports()) {
            assertTrue(!export.isQualified(), "no qualified exports: " + export);
            exported.add(export.source());
        }
        assertEquals(Set.of("dev.clockwork.offheap"), exported);
        assertTrue(descriptor.packages().containsAll(Set.of("dev.clockwork.offheap.clock",
                "dev.clockwork.offheap.lru", "dev.clockwork.offheap.memory")));
        assertTrue(descriptor.requires().stream()
                .anyMatch(r -> r.name().equals("dev.clockwork.cache")
                && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)));
    }
}
