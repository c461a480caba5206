package dev.clockwork.offheap.clock;

/**
 * What one eviction run has done so far: the charge and entries it freed, the pinned entries it
 * passed (for the effort cap), and the slots it took whose freeing is deferred (Auto: until their
 * chain is unlocked). Thread-confined and reused ({@link ClockShard} keeps one per thread), so
 * eviction allocates nothing once a thread's array has grown to its largest run.
 */
final class EvictionData {
    long freedCharge;
    long freedCount;
    long seenPinned;
    /** Slots taken for eviction whose freeing is deferred (Auto: until a chain is unlocked). */
    long[] owned = new long[16];
    int ownedCount;

    EvictionData reset() {
        freedCharge = 0;
        freedCount = 0;
        seenPinned = 0;
        ownedCount = 0;
        return this;
    }

    void addOwned(long slot) {
        if (ownedCount == owned.length) {
            owned = java.util.Arrays.copyOf(owned, ownedCount * 2); // grows once, then reused
        }
        owned[ownedCount++] = slot;
    }
}
