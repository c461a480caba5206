package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.ClockMeta.isShareable;
import static dev.clockwork.offheap.clock.ClockMeta.refCount;
import static dev.clockwork.offheap.clock.ClockMeta.releaseCount;

/**
 * The rare half of {@link ClockProtocol#correctNearOverflow}: clearing the top bit of both
 * counters of a much-referenced entry's word, by a CAS from a word that is itself past
 * {@link ClockMeta#OVERFLOW_THRESHOLD}. Kept out of the release path, which only tests the
 * threshold, so that the path stays small enough to inline.
 */
final class CounterOverflow {
    private CounterOverflow() {
    }

    /** Clears both counters' top bits while the slot's word is shareable and past the threshold. */
    static void clearTopBits(ClockProtocol table, long slot) {
        long word = table.getMetaOpaque(slot);
        while (isShareable(word) && releaseCount(word) > ClockMeta.OVERFLOW_THRESHOLD) {
            long corrected = word & ~ClockMeta.COUNTER_TOP_BITS;
            assert refCount(corrected) == refCount(word) : "the references are kept";
            long witness = table.compareAndExchangeMeta(slot, word, corrected);
            if (witness == word) {
                return;
            }
            word = witness;
        }
    }
}
