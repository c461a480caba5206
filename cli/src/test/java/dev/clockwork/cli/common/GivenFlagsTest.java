package dev.clockwork.cli.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cli.RunMain;
import dev.clockwork.cli.workload.ProcessStats;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** A refusal of flags that only fail together leads with the one the user set. */
class GivenFlagsTest {

    private static String refused(String... args) {
        Object[] r = RunMain.run(args);
        assertEquals(2, r[0], "stdout:\n" + r[1] + "\nstderr:\n" + r[2]);
        assertEquals("", r[1], "nothing ran");
        assertEquals(1, ((String) r[2]).lines().count(), (String) r[2]);
        return ((String) r[2]).strip();
    }

    @Test
    void tinyValuesAreBlamedNotThePinnedRatioLeftAtItsDefault() {
        assertEquals("clockwork bench: -value_bytes=1 -threads=1: -pinned_ratio=0.25 (default) of"
                + " -cache_size=1073741824 (default) in values of -value_bytes=1 over -threads=1"
                + " pins 268435456 handles per thread, more than 134217728: raise -value_bytes or"
                + " -threads, or lower -pinned_ratio or -cache_size",
                refused("bench", "-threads=1", "-value_bytes=1"));
        assertEquals("clockwork soak: -value_bytes=1 is less than 32, the smallest value that"
                + " carries its key stamp and checksum", refused("soak", "-value_bytes=1"));
    }

    @Test
    void aSmallCacheIsBlamedNotTheDefaultValueSize() {
        assertEquals("clockwork bench: -cache_size=100: -value_bytes=8192 (default) must not"
                + " exceed -cache_size=100", refused("bench", "-cache_size=100"));
        assertEquals("clockwork soak: -cache_size=1000: -value_bytes_max=16384 (default) must"
                + " not exceed the smallest capacity, 900: -cache_size=1000 less"
                + " -vary_capacity_ratio=0.1 (default) of it", refused("soak", "-cache_size=1000"));
    }

    @Test
    void aFlagTheUserSetAndLeadsIsLeftAlone() {
        assertEquals("clockwork bench: -num_shard_bits must be in [-1, 16], was 99",
                refused("bench", "-num_shard_bits=99"));
        assertEquals("clockwork soak: -value_bytes_max=99 is less than -value_bytes_min=100",
                refused("soak", "-value_bytes_min=100", "-value_bytes_max=99"));
    }

    /** Every flag the user set that the refusal names leads it, not only the first. */
    @Test
    void everyGivenFlagLeads() {
        String p = refused("soak", "-cache_type=fixed_hyper_clock_cache", "-cache_size=1048576",
                "-num_shard_bits=16");
        assertTrue(p.startsWith("clockwork soak: -cache_size=1048576 -num_shard_bits=16: the mean"
                + " value size (of -value_bytes_min to -value_bytes_max) 2948 is larger than each"
                + " shard's share"), p);
    }

    /** Advice to pass another value of a default flag is not marked as its default. */
    @Test
    void adviceIsNotMarkedAsADefault() {
        Assumptions.assumeTrue(ProcessStats.physicalMemoryBytes().isPresent());
        String p = refused("bench", "-cache_size=9223372036854775807", "-pinned_ratio=0");
        assertTrue(p.startsWith("clockwork bench: -cache_size=9223372036854775807: -populate_cache"
                + " fills the cache with about"), p);
        assertTrue(p.endsWith("lower -cache_size, or pass -populate_cache=false"), p);
    }
}
