package dev.clockwork.offheap.clock;

import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.entry.EntryStamp;

/**
 * The 64-bit meta word of a clock-cache slot: its bit fields and the predicates on them. It is
 * changed only by atomic read-modify-writes, so that a lookup takes a reference with one add.
 *
 * <pre>
 *  63 62 61  60 ..... 52  51 ............. 26  25 .............. 0
 * +--+--+--+------------+--------------------+------------------+
 * |V |S |O |  tag (9)   |  release counter   | acquire counter  |
 * +--+--+--+------------+--------------------+------------------+
 *  V = visible (findable by lookup), S = shareable (reference counted), O = occupied
 * </pre>
 *
 * <p>The tag is 9 bits of the entry's stamp ({@link EntryStamp}), written with the entry's first
 * word and kept by every change of its counters. Every change that is not a plain add is a CAS
 * from a word read earlier, and the tag makes that word its entry's own: a CAS whose entry was
 * freed meanwhile, and the slot given to another entry whose counters and state happen to be the
 * same (small counters make that common), fails unless the tags agree too: a slot's tags follow
 * one another mod 512 ({@link EntryStamp}), so only an entry a multiple of 512 entries later
 * (bar the one step at the slot's seed) has the freed one's tag. Only a caller's misuse lets an
 * entry be freed under such a CAS (see {@link ClockProtocol#release}).
 *
 * <h2>States</h2>
 * Empty (O=0), Under construction (O), Visible (V S O) and Invisible (S O); what each means and
 * every transition between them are {@link ClockProtocol}'s. The predicates below name them.
 *
 * <h2>Counters</h2>
 * References held = acquire − release (mod 2^26). When that is zero, the common value of both
 * counters is the entry's <em>countdown clock</em> (read as min(value, 3)): the number of eviction
 * sweeps it survives. A new entry starts with its priority's countdown (3/2/1); a hit's release
 * advances the release counter, leaving the clock higher after a sweep resets the counters (a
 * reference given back unused, {@code ClockProtocol.undo}, takes the acquire back instead); a
 * sweep decrements it.
 *
 * <p>The counters stay apart by less than half their range: references are refused past
 * {@link #MAX_REFS} (a lookup or {@code ref} that would pass it throws), and the release counter
 * is brought back below {@link #OVERFLOW_THRESHOLD} by the release that passes it. So the acquire
 * counter, at most release + {@code MAX_REFS} + one stray increment per racing thread, never
 * wraps past the release counter, and {@link #refCount} is exact.
 */
final class ClockMeta {
    static final int COUNTER_BITS = 26;
    static final long COUNTER_MASK = (1L << COUNTER_BITS) - 1;
    static final int ACQUIRE_SHIFT = 0;
    static final int RELEASE_SHIFT = COUNTER_BITS;
    static final long ACQUIRE_ONE = 1L << ACQUIRE_SHIFT;
    static final long RELEASE_ONE = 1L << RELEASE_SHIFT;

    static final int TAG_SHIFT = 2 * COUNTER_BITS;
    static final long TAG_MASK = ((1L << 9) - 1) << TAG_SHIFT;

    static final long OCCUPIED = 1L << 61;
    static final long SHAREABLE = 1L << 62;
    static final long VISIBLE = 1L << 63;
    static final long STATE_MASK = OCCUPIED | SHAREABLE | VISIBLE;

    static final long EMPTY = 0L;
    static final long UNDER_CONSTRUCTION = OCCUPIED;
    static final long VISIBLE_STATE = OCCUPIED | SHAREABLE | VISIBLE;
    static final long INVISIBLE_STATE = OCCUPIED | SHAREABLE;

    /** Countdown values are capped here: an entry survives at most this many idle sweeps. */
    static final int MAX_COUNTDOWN = 3;

    /**
     * Most references one entry may hold: 2^24 - 1 (as an LRU entry). With the release counter
     * below {@link #OVERFLOW_THRESHOLD} (2^25 + 3) the acquire counter stays below 2^26 by far more
     * than the stray increments racing lookups make before they undo them.
     */
    static final long MAX_REFS = (1L << (COUNTER_BITS - 2)) - 1;

    /** Top bit of each counter; cleared together when the release counter nears overflow. */
    static final long COUNTER_TOP_BITS =
            (1L << (ACQUIRE_SHIFT + COUNTER_BITS - 1)) | (1L << (RELEASE_SHIFT + COUNTER_BITS - 1));
    /** Release-counter value past which near-overflow correction clears the counters' top bits. */
    static final long OVERFLOW_THRESHOLD = (1L << (COUNTER_BITS - 1)) + MAX_COUNTDOWN;

    private ClockMeta() {
    }

    static long acquireCount(long meta) {
        return (meta >>> ACQUIRE_SHIFT) & COUNTER_MASK;
    }

    static long releaseCount(long meta) {
        return (meta >>> RELEASE_SHIFT) & COUNTER_MASK;
    }

    static long refCount(long meta) {
        return (acquireCount(meta) - releaseCount(meta)) & COUNTER_MASK;
    }

    static boolean isEmpty(long meta) {
        return (meta & OCCUPIED) == 0;
    }

    static boolean isShareable(long meta) {
        return (meta & SHAREABLE) != 0;
    }

    /** Owned by one thread, filling or freeing the slot (counter bits may hold stray adds). */
    static boolean isUnderConstruction(long meta) {
        return (meta & STATE_MASK) == UNDER_CONSTRUCTION;
    }

    static boolean isVisible(long meta) {
        return (meta & VISIBLE) != 0;
    }

    /** Shareable but no longer findable: erased while referenced. */
    static boolean isInvisible(long meta) {
        return (meta & (SHAREABLE | VISIBLE)) == SHAREABLE;
    }

    /** A visible word with both counters at {@code acquire} and {@code release}. */
    static long visible(long acquire, long release) {
        return VISIBLE_STATE | (release << RELEASE_SHIFT) | (acquire << ACQUIRE_SHIFT);
    }

    /**
     * The first word of a new entry (before its tag), holding the inserter's references: one for
     * the caller if {@code callerRef}, one for the insert itself if {@code insertRef} (an Auto
     * insert holds it until the entry is linked). Its clock reads {@code countdown} once the
     * caller's reference is released as a use and the insert's is taken back.
     */
    static long newEntry(long countdown, boolean callerRef, boolean insertRef) {
        assert countdown >= (callerRef ? 1 : 0) : "a pinned new entry's release needs a countdown";
        long release = countdown - (callerRef ? 1 : 0);
        long acquire = countdown + (insertRef ? 1 : 0);
        return visible(acquire, release);
    }

    /** The same word with both counters set to {@code count} (a clock update): state, tag kept. */
    static long withCounters(long meta, long count) {
        return (meta & (STATE_MASK | TAG_MASK)) | (count << RELEASE_SHIFT)
                | (count << ACQUIRE_SHIFT);
    }

    /** The tag of an entry with this (live) stamp: its bits above the low one. */
    static long tagOf(int stamp) {
        return ((long) (stamp >>> 1) << TAG_SHIFT) & TAG_MASK;
    }

    /** Initial countdown of a new entry: how many sweeps it survives without a hit. */
    static long initialCountdown(Priority priority) {
        return switch (priority) {
            case HIGH -> 3;
            case LOW -> 2;
            case BOTTOM -> 1;
        };
    }
}
