package dev.clockwork.offheap.admission;

import dev.clockwork.cache.admission.Admission;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * W-TinyLFU admission (Einziger, Friedman, Manes, "TinyLFU: A Highly Efficient Cache Admission
 * Policy", ACM ToS 2017): a candidate displaces a victim only if the {@link FrequencySketch} has
 * seen it more often lately; new entries first pass through a small window, sized by
 * {@link WindowTuner}, where recency alone keeps them.
 *
 * <h2>Recording accesses without a contended write</h2>
 * A lookup does not touch the sketch. It appends its key to one of {@value #STRIPES} small
 * buffers, picked by thread, each on cache lines of its own; the thread that fills a buffer drains
 * it into the sketch if it gets the sketch's lock at once, and otherwise drops the buffer's
 * records and counts them ({@link #droppedRecords}). So a lookup writes two words of a line its
 * own thread mostly owns, never waits, and the sketch has one writer at a time. Threads sharing a
 * stripe may overwrite each other's records: lost increments, which a sketch tolerates; a record
 * is a {@code long}, so never torn. A single thread's buffer fills and drains at the same points
 * on every run, so a single-threaded replay is deterministic.
 *
 * <h2>Admitting</h2>
 * {@link #admit} compares estimates: the candidate wins if its estimate is higher than the
 * victim's. A candidate of estimate at least {@value #HASH_FLOODING_FLOOR} that loses is admitted
 * once in {@value #HASH_FLOODING_ODDS} anyway (Caffeine's defence against an attacker who keeps a
 * victim's estimate high by colliding keys). Each decision is also evidence for the window's size
 * (the refused candidate, or the evicted victim, becomes a ghost).
 *
 * <h2>The window</h2>
 * An LRU cache keeps a real window ({@link #windowShare}): its new entries are judged only when
 * they leave it. A HyperClock cache has no insertion order to keep one by, so the policy stands
 * in for it there ({@code emulateWindow}): the candidate's estimate is raised by the window's share
 * of {@value #MAX_BIAS}, the bias that admits everything, so that a recency workload, whose
 * window grows, is admitted more freely.
 *
 * <h2>Sizing: bounded by what the cache can hold, grown as it fills</h2>
 * The sketch and the tuner cover {@link #sketchEntries} entries, 14 bytes of heap each (8 of
 * sketch, 6 of ghosts). Invariant: never more than {@link #entryLimit()}, the entries the cache
 * can hold at its smallest charge as its builder knows them (a Fixed table's occupancy limit, an
 * Auto table's reservation of slots, the records an LRU's slabs can name), capped at
 * {@link FrequencySketch#MAX_ENTRIES}; so the heap follows what the cache can store, never its
 * capacity ({@code Long.MAX_VALUE} included). Within that bound, the sketch is sized at
 * construction, and on each insert that calls for more, for the least of:
 * <ul>
 *   <li>the entry limit;
 *   <li>capacity / average charge inserted (capacity / {@value #FIRST_GUESS_CHARGE} before the
 *   first insert): the entries the cache holds when full, as the charges tell;
 *   <li>the entries inserted so far rounded up to a power of two, and at least
 *   {@value #INITIAL_ENTRIES}: the entries the cache may hold now.
 * </ul>
 * So it starts small, doubles as the cache fills, and stays put once the cache is full. It never
 * shrinks, and it grows only for at least 1/{@value #GROWTH_STEP_DIVISOR} more entries than it
 * covers, so that a wobbling average charge does not reset it for a few entries.
 *
 * <p>A grow replaces the sketch and the tuner with empty ones (the window's share is kept), as
 * Caffeine's {@code ensureCapacity} does, rather than copying counts: the sketch keeps no keys,
 * and a key's counters move when the table does. Growth happens mostly while the cache fills,
 * before eviction asks for admission, and a bounded number of times (at most
 * log2({@link FrequencySketch#MAX_ENTRIES} / {@value #INITIAL_ENTRIES}) = 14 doublings, plus
 * a step each time a falling average charge raises the full-cache estimate by an eighth), so
 * little history is lost.
 *
 * <p>Growing is thread-safe: the grow runs under the drain lock, on the inserting thread if it
 * takes the lock at once, else on the thread holding it, when it lets go (see
 * {@link #unlock}: no grow is lost, the last insert's included), and drains, the sketch's only
 * writers, hold the same lock,
 * so none writes to a sketch being replaced or pairs a sketch with a tuner of another size. Both
 * are published through volatile fields, whole: a sketch's arrays and sample size are final.
 * {@link #admit} reads them racily; an estimate from the sketch just replaced skews one decision,
 * a ghost added to the tuner just replaced is lost evidence. The arrays are allocated at
 * construction and on those grows only, never per access: a grow that an insert left for the
 * holder of the drain lock may run at the end of an access's drain, but only as often as grows
 * happen (see above); otherwise {@link #recordAccess} allocates nothing.
 */
public final class TinyLfu implements Admission {
    /** Buffers; a power of two, a few per core of a large machine. */
    static final int STRIPES = 32;
    /** Records per buffer; a power of two. */
    static final int RECORDS = 16;
    /** Longs per stripe: count, dropped, records, padded to 256 bytes (two lines and a guard). */
    private static final int STRIDE = 32;
    private static final int COUNT = 0;
    private static final int DROPPED = 1;
    private static final int FIRST_RECORD = 2;
    /** The first guess at the average charge, until inserts tell: a small database block. */
    static final long FIRST_GUESS_CHARGE = 4096;
    /**
     * Entries the sketch covers at least (when the cache can hold that many) before the inserts
     * call for more: 56 KiB of sketch and tuner, so a small cache is sized once, by its charges.
     */
    public static final long INITIAL_ENTRIES = 4096;
    /**
     * A grow is made only for at least 1/this more entries than the sketch covers: a wobbling
     * average charge must not reset the sketch for a few entries.
     */
    static final long GROWTH_STEP_DIVISOR = 8;
    static final int HASH_FLOODING_FLOOR = 6;
    /** A bias that admits every candidate: estimates are at most 16. */
    static final int MAX_BIAS = 17;
    /** A record's low bit says whether the lookup hit; keys are compared without it. */
    private static final long HIT_BIT = 1;
    static final int HASH_FLOODING_ODDS = 128;

    private static final VarHandle DRAINING;
    private static final VarHandle DEFERRED_GROW;

    static {
        try {
            DRAINING = MethodHandles.lookup().findVarHandle(TinyLfu.class, "draining", int.class);
            DEFERRED_GROW = MethodHandles.lookup().findVarHandle(TinyLfu.class, "deferredGrow",
                    long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long capacity;
    /** Most entries the sketch covers: what the cache can hold, capped for the sketch. */
    private final long entryLimit;
    /** The cache has no window of its own: a bias stands in for it in {@link #admit}. */
    private final boolean emulateWindow;
    /** The stripes, {@link #STRIDE} longs each, plus one stride of padding in front. */
    private final long[] buffers = new long[(STRIPES + 1) * STRIDE];
    /** 1 while a thread drains into (or rebuilds) the sketch. */
    @SuppressWarnings("unused") // through DRAINING
    private volatile int draining;
    /**
     * The most entries an insert wanted a grow for, or 0 when no grow waits: the holder of the
     * drain lock makes it when it lets go ({@link #unlock}).
     */
    @SuppressWarnings("unused") // through DEFERRED_GROW
    private volatile long deferredGrow;
    /** Replaced (grown) only under the drain lock; read racily by estimates. */
    private volatile FrequencySketch sketch;
    /** Replaced with the sketch, for as many entries, under the drain lock. */
    private volatile WindowTuner tuner;
    // Racy sums of what was inserted, for sizing: an estimate, so lost updates do no harm.
    private long insertedCount;
    private long insertedCharge;
    /** State of the hash-flooding coin; racy on purpose (any bits will do). */
    private long coin = 0x2545_F491_4F6C_DD1DL;

    /**
     * A policy for a cache of {@code capacity} bytes (or entries, with charge 1 each) that can
     * hold at most {@code maxEntries} entries; its heap is bounded by the latter (see "Sizing").
     *
     * @param capacity the cache's capacity, in the unit of its charges
     * @param maxEntries the most entries the cache can hold, at its smallest charge
     * @param cacheHasWindow whether the cache keeps the window itself ({@link #windowShare});
     *     if not, {@link #admit} biases decisions towards the candidate instead
     */
    public TinyLfu(long capacity, long maxEntries, boolean cacheHasWindow) {
        this.capacity = Math.max(1, capacity);
        this.entryLimit = Math.max(1, Math.min(maxEntries, FrequencySketch.MAX_ENTRIES));
        this.emulateWindow = !cacheHasWindow;
        long entries = entriesWanted(FIRST_GUESS_CHARGE, 0);
        this.sketch = new FrequencySketch(entries);
        this.tuner = new WindowTuner(entries, WindowTuner.FIRST_SHARE);
    }

    // ---------------------------------------------------------------- recording

    private static int stripeBase() {
        int id = (int) Thread.currentThread().threadId();
        int stripe = (id ^ (id >>> 5)) & (STRIPES - 1);
        return (stripe + 1) * STRIDE;
    }

    @Override
    public void recordAccess(long keyHash, boolean hit) {
        int base = stripeBase();
        long[] b = buffers;
        int n = (int) b[base + COUNT];
        b[base + FIRST_RECORD + (n & (RECORDS - 1))] = (keyHash & ~HIT_BIT) | (hit ? HIT_BIT : 0);
        b[base + COUNT] = ++n;
        if (n >= RECORDS) {
            drainOrDrop(base);
        }
    }

    /** Drains a full buffer into the sketch, or, if another thread holds the sketch, drops it. */
    private void drainOrDrop(int base) {
        if (tryLock()) {
            try {
                drain(base);
            } finally {
                unlock();
            }
        } else {
            long[] b = buffers;
            b[base + DROPPED] += Math.min(RECORDS, b[base + COUNT]);
            b[base + COUNT] = 0;
        }
    }

    /** Under the lock: counts the buffer's records in the sketch and the tuner; empties it. */
    private void drain(int base) {
        long[] b = buffers;
        int n = (int) Math.min(RECORDS, b[base + COUNT]);
        FrequencySketch s = sketch;
        WindowTuner t = tuner;
        for (int i = 0; i < n; i++) {
            long record = b[base + FIRST_RECORD + i];
            s.increment(record & ~HIT_BIT);
            t.onAccess(record & ~HIT_BIT, (record & HIT_BIT) != 0);
        }
        b[base + COUNT] = 0;
    }

    @Override
    public double windowShare() {
        return tuner.share();
    }

    private boolean tryLock() {
        return (int) DRAINING.compareAndExchange(this, 0, 1) == 0;
    }

    /**
     * Lets the drain lock go, first making the grow an insert left for it. The insert writes
     * {@link #deferredGrow} and then tries the lock; this thread releases the lock and then reads
     * {@link #deferredGrow}, both accesses volatile (sequentially consistent: the release is a
     * volatile store for that reason, not a release store, which a later load may pass). So
     * either the insert takes the lock and grows itself, or this thread sees its request and
     * takes the lock again: a grow asked for while the lock was held is never lost.
     */
    private void unlock() {
        do {
            try {
                if ((long) DEFERRED_GROW.getVolatile(this) != 0) {
                    grow((long) DEFERRED_GROW.getAndSet(this, 0L));
                }
            } finally {
                DRAINING.setVolatile(this, 0); // also if the grow's allocation fails
            }
        } while ((long) DEFERRED_GROW.getVolatile(this) != 0 && tryLock());
    }

    /** Asks for a grow to {@code entries} (at least), for whoever holds the drain lock next. */
    private void deferGrow(long entries) {
        long seen = (long) DEFERRED_GROW.getVolatile(this);
        while (seen < entries) {
            long witness = (long) DEFERRED_GROW.compareAndExchange(this, seen, entries);
            if (witness == seen) {
                return;
            }
            seen = witness;
        }
    }

    /** Records dropped because another thread held the sketch (read racily: a hint). */
    public long droppedRecords() {
        long sum = 0;
        for (int s = 1; s <= STRIPES; s++) {
            sum += buffers[s * STRIDE + DROPPED];
        }
        return sum;
    }

    // ---------------------------------------------------------------- admitting

    @Override
    public boolean admit(long candidateHash, long victimHash) {
        FrequencySketch s = sketch;
        WindowTuner t = tuner;
        int candidate = s.frequency(candidateHash & ~HIT_BIT);
        int victim = s.frequency(victimHash & ~HIT_BIT);
        int bias = emulateWindow ? (int) Math.round(t.share() * MAX_BIAS) : 0;
        boolean admitted = candidate + bias > victim
                || (candidate >= HASH_FLOODING_FLOOR && flipCoin());
        if (admitted) {
            t.onEvicted(victimHash & ~HIT_BIT);
        } else {
            t.onRefused(candidateHash & ~HIT_BIT);
        }
        return admitted;
    }

    /** True once in {@link #HASH_FLOODING_ODDS}, from a xorshift of racy state. */
    private boolean flipCoin() {
        long x = coin;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        coin = x;
        return (x & (HASH_FLOODING_ODDS - 1)) == 0;
    }

    // ---------------------------------------------------------------- sizing

    @Override
    public void recordInsert(long charge) {
        long count = ++insertedCount;
        long sum = insertedCharge += Math.max(1, charge);
        long wanted = entriesWanted(Math.max(1, sum / count), count);
        if (worthGrowing(wanted, sketch.entries())) {
            deferGrow(wanted);
            if (tryLock()) {
                unlock(); // makes the grow asked for above, or a larger one
            }
        }
    }

    /**
     * The entries the sketch should cover (see "Sizing"): the inserted count rounded up to a
     * power of two, at least {@link #INITIAL_ENTRIES}, but at most the entries of the average
     * charge that fill the capacity and at most {@link #entryLimit}.
     */
    private long entriesWanted(long averageCharge, long inserted) {
        long full = Math.max(1, capacity / averageCharge);
        long filling = Math.max(INITIAL_ENTRIES, roundUpToPowerOfTwo(inserted));
        return Math.min(entryLimit, Math.min(full, filling));
    }

    private static long roundUpToPowerOfTwo(long n) {
        return n <= 1 ? 1 : Long.highestOneBit(n - 1) << 1;
    }

    /** Whether {@code wanted} entries are enough more than {@code covered} to rebuild for. */
    private static boolean worthGrowing(long wanted, long covered) {
        return wanted >= covered + Math.max(1, covered / GROWTH_STEP_DIVISOR);
    }

    /**
     * Under the lock: a new, empty sketch and tuner for {@code entries}, unless the sketch has
     * grown meanwhile, or {@code entries} is 0 (a request another unlock made already) (see
     * "Sizing" for why this is safe against drains and admits).
     */
    private void grow(long entries) {
        if (worthGrowing(entries, sketch.entries())) {
            sketch = new FrequencySketch(entries);
            tuner = new WindowTuner(entries, tuner.share());
        }
    }

    /** Heap bytes of the sketch, the tuner and the buffers. */
    public long bytes() {
        return sketch.bytes() + tuner.bytes() + 8L * buffers.length;
    }

    /**
     * The entry count the sketch and the tuner are sized for now.
     *
     * @return between 1 and {@link #entryLimit()}; grows with the entries inserted
     */
    public long sketchEntries() {
        return sketch.entries();
    }

    /**
     * The most entries the sketch will ever be sized for.
     *
     * @return the cache's bound on the entries it holds, capped at 2^26
     */
    public long entryLimit() {
        return entryLimit;
    }

    /** Events between agings of the current sketch: ten per entry it is sized for. */
    long sampleSize() {
        return sketch.sampleSize();
    }

    /** The sketch's estimate for a key, 0..16, for tests and diagnostics; drains nothing. */
    public int frequency(long keyHash) {
        return sketch.frequency(keyHash & ~HIT_BIT);
    }
}
