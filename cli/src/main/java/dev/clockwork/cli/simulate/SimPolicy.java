package dev.clockwork.cli.simulate;

/**
 * A cache policy as the simulator drives it: one access at a time, single-threaded, or from
 * several threads at once when its factory says it may be ({@link PolicyFactory#concurrent}). An
 * access looks the key up and, on a miss, inserts it (a policy may decline to keep it).
 *
 * <p>Sizes are in the capacity's unit: 1 for capacities in entries, the access's size in bytes
 * for byte capacities. A policy never keeps an entry larger than its whole capacity.
 */
public interface SimPolicy extends AutoCloseable {

    /** Accesses {@code key} of {@code size} units; returns whether it was a hit. */
    boolean access(long key, long size);

    /**
     * The inserts the policy's admission has refused so far, as its cache's stats count them;
     * {@link SimResult#NOT_EXPOSED} for a policy that does not count them.
     */
    default long admissionRejects() {
        return SimResult.NOT_EXPOSED;
    }

    /** Frees what the policy holds outside the heap; the policy is not used afterwards. */
    @Override
    default void close() {
    }
}
