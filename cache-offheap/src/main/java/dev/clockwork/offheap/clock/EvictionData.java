package dev.clockwork.offheap.clock;

import dev.clockwork.cache.admission.Admission;

/**
 * What one eviction run has done so far: the charge and entries it freed, the pinned entries it
 * passed (for the effort cap), the slots it took whose freeing is deferred (Auto: until their
 * chain is unlocked), and whether the admission policy kept a victim against the candidate. Thread-confined and reused ({@link ClockShard} keeps one per thread), so
 * eviction allocates nothing once a thread's array has grown to its largest run.
 */
final class EvictionData {
    /** The policy asked before each victim is taken, or null to take victims unasked. */
    Admission admission;
    /** The hashed key of the entry the eviction makes room for. */
    long candidate;
    /** Set when the policy kept a victim: the sweep takes nothing more and the insert fails. */
    boolean rejected;
    long freedCharge;
    long freedCount;
    long seenPinned;
    /** Slots taken for eviction whose freeing is deferred (Auto: until a chain is unlocked). */
    long[] owned = new long[16];
    int ownedCount;

    /** Ready for a new run, taking victims unasked. */
    EvictionData reset() {
        admission = null;
        rejected = false;
        freedCharge = 0;
        freedCount = 0;
        seenPinned = 0;
        ownedCount = 0;
        return this;
    }

    /** Ready for a new run that asks {@code policy} (if not null) before taking each victim. */
    EvictionData reset(Admission policy, long candidateHash) {
        reset();
        admission = policy;
        candidate = candidateHash;
        return this;
    }

    void addOwned(long slot) {
        if (ownedCount == owned.length) {
            owned = java.util.Arrays.copyOf(owned, ownedCount * 2); // grows once, then reused
        }
        owned[ownedCount++] = slot;
    }
}
