package dev.clockwork.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Each thread's position in a benchmark's precomputed key sequence; threads start far apart so
 * that two threads do not walk the same keys in step.
 */
@State(Scope.Thread)
public class KeyCursor {
    int position;

    @Setup(Level.Trial)
    public void start(ThreadParams thread) {
        position = thread.getThreadIndex() * 0x9E37_79B9;
    }

    /** The next index into a sequence of {@code mask + 1} (a power of two) entries. */
    int next(int mask) {
        int p = position & mask;
        position = p + 1;
        return p;
    }
}
