package dev.clockwork.offheap.clock;

/**
 * The two halves of a lookup's momentary reference on a slot, apart, so that a test can put an
 * erase between them: the reference a lookup adds to its home slot before it compares the key
 * ({@link ClockProtocol#tryReference}), and the give-back of a lookup that found another key or
 * an erased entry there ({@link ClockProtocol#undo}). In a real race the erase lands in the few
 * nanoseconds between the two; here it lands there every time. Used through
 * {@code ClockProbe}; not part of the library.
 */
public final class ClockSteps {
    private ClockSteps() {
    }

    /** A lookup's reference add on {@code slot}; returns the stamp of the entry it went to. */
    public static int addReference(ClockShard table, long slot) {
        return table.stampOf(slot, table.getAndAddMeta(slot, ClockMeta.ACQUIRE_ONE));
    }

    /** The give-back of a reference {@link #addReference} took, as a lookup that missed makes it. */
    public static void giveBack(ClockShard table, long slot, int stamp) {
        table.undo(slot, stamp, 1);
    }

    /**
     * Takes one reference off the slot's word without anything else: what the give-back did
     * before it freed an erased entry it left unreferenced. Returns whether the word was still
     * {@code expected}.
     */
    public static boolean dropReferenceOnly(ClockShard table, long slot, long expected) {
        return table.compareAndExchangeMeta(slot, expected, expected - ClockMeta.ACQUIRE_ONE)
                == expected;
    }
}
