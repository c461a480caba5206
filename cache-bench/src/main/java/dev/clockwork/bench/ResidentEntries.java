package dev.clockwork.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The entries a cache holds, as JMH's {@code residentEntries} secondary result, so that a mix's
 * throughput is read beside how much it holds (the same byte capacity buys each peer a different
 * number of entries). Thread 0 samples the count every {@value #EVERY} calls (the count is not
 * free for every peer); the others report 0, so JMH's sum over threads is the count.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class ResidentEntries {
    public long residentEntries;
    private boolean reporter;

    @Setup(Level.Trial)
    public void start(ThreadParams thread) {
        reporter = thread.getThreadIndex() == 0;
    }

    static final int EVERY = 1 << 16;
    private int calls;

    /** Called once per benchmark call. */
    void sample(BenchPeer peer) {
        if (reporter && (++calls & (EVERY - 1)) == 0) {
            residentEntries = peer.entryCount();
        }
    }
}
