package dev.clockwork.offheap.clock;

import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.context.CallbackGuard;
import java.util.Arrays;

/**
 * What one eviction run has done so far: the charge and entries it freed, the pinned entries it
 * passed (for the effort cap), the slots it took whose freeing is deferred (Auto: until their
 * chain is unlocked), and whether the admission policy kept a victim against the candidate.
 * Thread-confined and reused ({@link ClockShard} keeps one per thread), so eviction allocates
 * nothing once a thread's array has grown to its largest run. The table's sweep fills it in; the
 * shard accounts for it when the run is over.
 */
final class EvictionData {
    /** The policy asked before each victim is taken, or null to take victims unasked. */
    Admission admission;
    /**
     * Whether the policy is the cache's own (TinyLFU), which never calls back into a cache; a
     * user's policy is asked with the thread marked ({@link CallbackGuard#enterPolicy}).
     */
    boolean trustedPolicy;
    /**
     * What the policy threw, if it did: the run ends as if it had kept the victim, and the insert
     * throws this once it has undone its charges ({@link ClockShard#insert}).
     */
    Throwable policyFailure;
    /**
     * Whether an insert of this thread is using this object now. Only the policy runs user code
     * inside an insert, so an insert that finds it set was called from a policy: refused, as the
     * run in progress would be overwritten.
     */
    boolean busy;
    /** The hashed key of the entry the eviction makes room for. */
    long candidate;
    /** Set when the policy kept a victim: the sweep takes nothing more and the insert fails. */
    boolean rejected;
    long freedCharge;
    long freedCount;
    long seenPinned;
    /** Pinned entries a run may pass per entry it frees; 0: no cap (a strict limit). */
    int effortCap;
    /** Set by the sweep when it gave up on the effort cap. */
    boolean effortExceeded;
    /** Slots taken for eviction whose freeing is deferred (Auto: until a chain is unlocked). */
    long[] owned = new long[16];
    int ownedCount;

    /** Ready for a new run, taking victims unasked. */
    EvictionData reset() {
        admission = null;
        trustedPolicy = true;
        policyFailure = null;
        rejected = false;
        freedCharge = 0;
        freedCount = 0;
        seenPinned = 0;
        effortCap = 0;
        effortExceeded = false;
        ownedCount = 0;
        return this;
    }

    /**
     * Ready for a new run that asks {@code policy} (if not null) before taking each victim and
     * gives up past {@code cap} pinned entries per entry freed (0: never).
     */
    EvictionData reset(Admission policy, boolean trusted, long candidateHash, int cap) {
        reset();
        admission = policy;
        trustedPolicy = trusted;
        candidate = candidateHash;
        effortCap = cap;
        return this;
    }

    /**
     * Whether the run has passed too many pinned entries for what it freed, and records it if
     * so. The product stays in range for any cap: a sweep frees far fewer than
     * {@code Long.MAX_VALUE / cap} entries.
     */
    boolean giveUpOnEffort() {
        if (effortCap != 0 && (freedCount + 1) * effortCap <= seenPinned) {
            effortExceeded = true;
        }
        return effortExceeded;
    }

    /**
     * Asks the policy whether the candidate may displace {@code victimHash}. What the policy
     * throws is kept ({@link #policyFailure}) and answered as a refusal, so that the sweep stops
     * where it is and every slot it took is freed and counted before the exception travels on.
     */
    boolean admits(long victimHash) {
        boolean untrusted = !trustedPolicy;
        if (untrusted) {
            CallbackGuard.enterPolicy();
        }
        try {
            return admission.admit(candidate, victimHash);
        } catch (Throwable t) {
            policyFailure = t;
            return false;
        } finally {
            if (untrusted) {
                CallbackGuard.exitPolicy();
            }
        }
    }

    void addOwned(long slot) {
        if (ownedCount == owned.length) {
            owned = Arrays.copyOf(owned, ownedCount * 2); // grows once, then reused
        }
        owned[ownedCount++] = slot;
    }
}
