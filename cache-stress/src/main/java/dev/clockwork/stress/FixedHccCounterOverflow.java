package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.ClockProbe;
import dev.clockwork.offheap.FixedHyperClockCache;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * Two hits on one entry whose counters are about to overflow, each correcting them.
 *
 * <p>The acquire and release counters are 30 bits each. A much-read entry that no sweep lowers
 * (the cache never needs to evict) counts up until a release finds the release counter past
 * half its range ({@link ClockProbe#OVERFLOW_THRESHOLD}) and clears the top bit of both
 * counters with one atomic AND. That keeps the difference (the references held) and the
 * countdown (every value above 3 reads as 3), and doing it twice is harmless: the bit is
 * already clear. Both readers here release past the threshold, so their corrections race with
 * each other and with the other reader's acquire and release.
 *
 * <p>Set-up: A's counters are set (white-box) to threshold + 1, both, with no reference held.
 * Each reader adds one acquire and one release; so at the end both counters must be
 * threshold + 3 with the top bit cleared, i.e. 6, and no reference is held. r3 shows the
 * counters and the references left, the arbiter's own excluded.
 */
@JCStressTest
@Description("Two lookup + read + release of A race while A's counters sit just past the "
        + "near-overflow threshold, so both releases clear the counters' top bits. The "
        + "corrections must keep the reference count exact and leave the counters small.")
@Outcome(id = "HIT, HIT, C6_R0, OK", expect = ACCEPTABLE,
        desc = "Both hits read A; the counters were corrected (once or twice, alike) to "
                + "threshold + 3 - 2^29 = 6 with no reference left.")
@Outcome(id = "EX_.*, .*, .*, .*", expect = FORBIDDEN,
        desc = "A release threw: a correction lost or invented a reference.")
@Outcome(id = ".*, EX_.*, .*, .*", expect = FORBIDDEN,
        desc = "A release threw: a correction lost or invented a reference.")
@Outcome(id = ".*, .*, C.*_R(?!0).*, .*", expect = FORBIDDEN,
        desc = "UNBALANCED COUNTERS: a correction cleared the top bit of one counter but not "
                + "the other; A would look pinned forever (or released too often).")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: the counters not corrected (C near 2^29), A gone or reading "
                + "other bytes, or accounting off at the end.")
@State
public class FixedHccCounterOverflow {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_2);
    private final String setup;

    public FixedHccCounterOverflow() {
        VersionedKeys.insert(cache, A, 0, Priority.HIGH);
        long h = VersionedKeys.lookup(cache, A);
        cache.release(h); // counters equal again; the handle still names A's slot
        long meta = ClockProbe.meta(cache, h);
        setup = ClockProbe.setCounters(cache, h, meta, ClockProbe.OVERFLOW_THRESHOLD + 1)
                ? null : "SETUP_RACE";
    }

    @Actor
    public void reader1(LLLL_Result r) {
        r.r1 = VersionedKeys.lookupReadRelease(cache, A);
    }

    @Actor
    public void reader2(LLLL_Result r) {
        r.r2 = VersionedKeys.lookupReadRelease(cache, A);
    }

    @Arbiter
    public void arbiter(LLLL_Result r) {
        r.r3 = setup != null ? setup : FixedFixture.counters(cache, A);
        r.r4 = FixedFixture.checkDrainClose(cache, A);
    }
}
