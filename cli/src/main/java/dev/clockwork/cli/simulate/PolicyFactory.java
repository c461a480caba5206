package dev.clockwork.cli.simulate;

/** Makes a fresh policy for one replay of a trace at one capacity. */
@FunctionalInterface
public interface PolicyFactory {

    /**
     * @param trace the trace that will be replayed (OPT reads its future; others may size
     *     themselves from it); accesses arrive in the trace's order
     * @param capacity in entries, or in bytes when {@code bytes}; at least 1
     * @param bytes whether capacity and access sizes are in bytes
     */
    SimPolicy create(Trace trace, long capacity, boolean bytes);

    /**
     * Why {@link #create} would refuse this trace and capacity, or null if it would not; makes
     * nothing. Checked for every policy and capacity before a trace is replayed, so that a
     * refusal comes as one line naming the capacity, before any result is printed. The default
     * refuses nothing: a policy whose construction can fail overrides it.
     */
    default String check(Trace trace, long capacity, boolean bytes) {
        return null;
    }

    /**
     * Whether the policy takes byte capacities and sizes ({@code -bytes}). One that counts
     * entries only is left out of the default policies with {@code -bytes}, and naming it in
     * {@code -policies} with {@code -bytes} is refused.
     */
    default boolean takesBytes() {
        return true;
    }

    /**
     * Whether the policies this makes may be accessed from several threads at once, so that
     * {@code -threads} replays them concurrently; a policy that may not is replayed on one thread
     * whatever {@code -threads} says. The default says no.
     */
    default boolean concurrent() {
        return false;
    }
}
