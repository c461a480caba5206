package dev.clockwork.offheap.clock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

// Padding in the JCTools manner: fields of a superclass are laid out before a subclass's, so each
// hot counter sits between 64-byte runs of unused longs and never shares a cache line with another
// counter or with the table's read-mostly fields.

abstract class CountersPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

abstract class UsageField extends CountersPad0 {
    /** Bytes charged to the shard (entries, standalone entries and, if charged, the table). */
    volatile long usage;
}

abstract class CountersPad1 extends UsageField {
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

abstract class OccupancyField extends CountersPad1 {
    /** Slots in use or reserved by an insert in flight. */
    volatile long occupancy;
}

abstract class CountersPad2 extends OccupancyField {
    long p20, p21, p22, p23, p24, p25, p26, p27;
}

abstract class ClockPointerField extends CountersPad2 {
    /** Where the next eviction sweep starts; advanced in steps by concurrent evictors. */
    volatile long clockPointer;
}

/**
 * A shard's three contended counters, each on its own cache line. Updates are relaxed in spirit
 * (RocksDB uses relaxed atomics for them); Java has no relaxed read-modify-write, so the cheapest
 * available modes are used and the counters carry no ordering duties.
 */
public abstract class PaddedCounters extends ClockPointerField {
    long p30, p31, p32, p33, p34, p35, p36, p37;

    static final VarHandle USAGE;
    static final VarHandle OCCUPANCY;
    static final VarHandle CLOCK_POINTER;

    static {
        try {
            var lookup = MethodHandles.lookup();
            USAGE = lookup.findVarHandle(UsageField.class, "usage", long.class)
                    .withInvokeExactBehavior();
            OCCUPANCY = lookup.findVarHandle(OccupancyField.class, "occupancy", long.class)
                    .withInvokeExactBehavior();
            CLOCK_POINTER = lookup.findVarHandle(ClockPointerField.class, "clockPointer", long.class)
                    .withInvokeExactBehavior();
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Volatile, though release would do: HotSpot compiles getAndAddRelease to a CAS retry loop,
     * getAndAdd to one lock xadd (see ClockSlots#getAndAddMetaRelease).
     */
    public final long addUsage(long delta) {
        return (long) USAGE.getAndAdd((UsageField) this, delta);
    }

    public final long usage() {
        return (long) USAGE.getOpaque((UsageField) this);
    }

    public final boolean casUsage(long expected, long update) {
        return USAGE.weakCompareAndSetPlain((UsageField) this, expected, update);
    }

    public final long addOccupancy(long delta) {
        return (long) OCCUPANCY.getAndAdd((OccupancyField) this, delta);
    }

    public final long occupancy() {
        return (long) OCCUPANCY.getOpaque((OccupancyField) this);
    }

    /** Volatile rather than release, as {@link #addUsage}. */
    public final long advanceClock(long step) {
        return (long) CLOCK_POINTER.getAndAdd((ClockPointerField) this, step);
    }
}
