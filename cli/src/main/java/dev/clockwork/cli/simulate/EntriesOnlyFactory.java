package dev.clockwork.cli.simulate;

import java.util.function.IntFunction;
import java.util.function.LongFunction;

/**
 * Makes a policy that counts entries only (ARC, LIRS, CLOCK-Pro: their lists and targets count
 * pages, and the papers define nothing for sizes). It does not take {@code -bytes}, and may
 * refuse some capacities in entries.
 *
 * @param make makes the policy for a capacity in entries
 * @param capacityRefusal why a capacity in entries is refused, or null
 */
record EntriesOnlyFactory(IntFunction<SimPolicy> make, LongFunction<String> capacityRefusal)
        implements PolicyFactory {

    @Override
    public SimPolicy create(Trace trace, long capacity, boolean bytes) {
        String refusal = check(trace, capacity, bytes);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        return make.apply(Math.toIntExact(capacity));
    }

    @Override
    public String check(Trace trace, long capacity, boolean bytes) {
        if (bytes) {
            return "it counts entries only, not bytes";
        }
        return capacityRefusal.apply(capacity);
    }

    @Override
    public boolean takesBytes() {
        return false;
    }
}
