package dev.clockwork.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Lookups that hit and missed, reported by JMH per second as the {@code hits} and {@code misses}
 * columns, so that a mix's hit ratio sits beside its throughput.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class LookupCounts {
    public long hits;
    public long misses;

    @Setup(Level.Iteration)
    public void reset() {
        hits = 0;
        misses = 0;
    }
}
