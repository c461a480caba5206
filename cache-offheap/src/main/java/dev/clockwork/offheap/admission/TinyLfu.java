package dev.clockwork.offheap.admission;

import dev.clockwork.cache.admission.Admission;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * TinyLFU admission: a candidate displaces a victim only if the {@link FrequencySketch} has seen
 * it more often lately.
 *
 * <h2>Recording accesses without a contended write</h2>
 * A lookup does not touch the sketch. It appends its key to one of {@value #STRIPES} small
 * buffers, picked by thread, each on cache lines of its own; the thread that fills a buffer drains
 * it into the sketch if it gets the sketch's lock at once, and otherwise drops the buffer's
 * records and counts them ({@link #droppedRecords}). So a lookup writes two words of a line its
 * own thread mostly owns, never waits, and the sketch has one writer at a time. Threads sharing a
 * stripe may overwrite each other's records: lost increments, which a sketch tolerates; a record
 * is a {@code long}, so never torn.
 *
 * <h2>Admitting, and how much recency weighs</h2>
 * {@link #admit} first drains the caller's own buffer if it can (so a single thread's decisions see
 * all its accesses, and a single-threaded replay is deterministic), then compares estimates:
 * admit if the candidate's, plus a {@link #bias}, is higher than the victim's. The bias is how much
 * the policy favours the new (recency) over the frequent: 0 is plain TinyLFU, {@value #MAX_BIAS}
 * admits everything (the cache's own eviction order alone). It is tuned by hill climbing on the
 * hit ratio, as Vitess's theine tunes its "LRU factor": after every period of
 * {@link FrequencySketch#SAMPLE_PER_ENTRY} accesses per entry, if the hit ratio fell, the climb
 * turns round; the step shrinks each period so that a steady workload settles, and starts over
 * when the hit ratio moves by {@value #RESTART} or more. Recency-heavy workloads climb to a high
 * bias, frequency-heavy ones stay low, with one default configuration for all. A candidate of estimate at least {@value #HASH_FLOODING_FLOOR}
 * that loses is admitted once in {@value #HASH_FLOODING_ODDS} anyway (Caffeine's defence against an
 * attacker who keeps a victim's estimate high by colliding keys).
 *
 * <h2>Sizing</h2>
 * A byte capacity does not say how many entries the cache holds: the sketch starts sized for
 * capacity / {@value #FIRST_GUESS_CHARGE} entries and is rebuilt (empty) for
 * capacity / average charge whenever the charges inserted so far say the cache holds more than
 * twice the entries it was sized for.
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
    static final int HASH_FLOODING_FLOOR = 6;
    /** A bias that admits every candidate: estimates are at most 16. */
    static final int MAX_BIAS = 17;
    /** The climb's first step; it halves at each turn, down to 1. */
    static final int FIRST_STEP = 4;
    /** A record's low bit says whether the lookup hit; keys are compared without it. */
    private static final long HIT_BIT = 1;
    static final int HASH_FLOODING_ODDS = 128;

    private static final VarHandle DRAINING;

    static {
        try {
            DRAINING = MethodHandles.lookup().findVarHandle(TinyLfu.class, "draining", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long capacity;
    /** The stripes, {@link #STRIDE} longs each, plus one stride of padding in front. */
    private final long[] buffers = new long[(STRIPES + 1) * STRIDE];
    /** 1 while a thread drains into (or rebuilds) the sketch. */
    @SuppressWarnings("unused") // through DRAINING
    private volatile int draining;
    /** Replaced only under the drain lock; read racily by estimates. */
    private volatile FrequencySketch sketch;
    private long sketchEntries;
    // Racy sums of what was inserted, for sizing: an estimate, so lost updates do no harm.
    private long insertedCount;
    private long insertedCharge;
    /** State of the hash-flooding coin; racy on purpose (any bits will do). */
    private long coin = 0x2545_F491_4F6C_DD1DL;
    /** Added to the candidate's estimate; changed only under the drain lock. */
    private volatile int bias;
    // The climb, under the drain lock.
    private long periodAccesses;
    private long periodHits;
    private double lastHitRatio = -1;
    /** The climb's current step, in bias units; signed: the direction it goes. */
    private double step = FIRST_STEP;
    /** The bias as the climb holds it; {@link #bias} is it rounded. */
    private double climbedBias;

    /** A policy for a cache of {@code capacity} bytes (or entries, with charge 1 each). */
    public TinyLfu(long capacity) {
        this.capacity = Math.max(1, capacity);
        this.sketchEntries = Math.max(1, this.capacity / FIRST_GUESS_CHARGE);
        this.sketch = new FrequencySketch(sketchEntries);
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

    /** Under the lock: counts the buffer's records in the sketch and empties it. */
    private void drain(int base) {
        long[] b = buffers;
        int n = (int) Math.min(RECORDS, b[base + COUNT]);
        FrequencySketch s = sketch;
        long hits = 0;
        for (int i = 0; i < n; i++) {
            long record = b[base + FIRST_RECORD + i];
            s.increment(record & ~HIT_BIT);
            hits += record & HIT_BIT;
        }
        b[base + COUNT] = 0;
        periodAccesses += n;
        periodHits += hits;
        if (periodAccesses >= SAMPLE_PER_PERIOD * sketchEntries) {
            climb();
        }
    }

    /** Accesses per entry in one period of the climb. */
    private static final int SAMPLE_PER_PERIOD = 2;
    /** A hit-ratio fall smaller than this is noise: the climb goes on. */
    private static final double NOISE = 0.005;

    /**
     * Under the lock, at the end of a period: moves the bias one step on, the same way if the hit
     * ratio did not fall, else the other way with half the step.
     */
    private void climb() {
        double ratio = (double) periodHits / periodAccesses;
        if (lastHitRatio >= 0) {
            double change = ratio - lastHitRatio;
            if (Math.abs(change) >= RESTART) {
                step = Math.copySign(FIRST_STEP, step); // the workload changed: climb afresh
            } else {
                step *= STEP_DECAY; // settle where the hit ratio is best
            }
            if (change < -NOISE) {
                step = -step;
            }
        }
        climbedBias = Math.max(0, Math.min(MAX_BIAS, climbedBias + step));
        bias = (int) Math.round(climbedBias);
        lastHitRatio = ratio;
        periodAccesses = 0;
        periodHits = 0;
    }

    /** The step shrinks by this factor each period, as Caffeine's climber's does. */
    private static final double STEP_DECAY = 0.9;
    /** A hit-ratio change this large restarts the climb with its first step. */
    private static final double RESTART = 0.05;

    /** How much the candidate's estimate is raised before it is compared, 0..{@value #MAX_BIAS}. */
    public int bias() {
        return bias;
    }

    private boolean tryLock() {
        return (int) DRAINING.compareAndExchange(this, 0, 1) == 0;
    }

    private void unlock() {
        DRAINING.setRelease(this, 0);
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
        int base = stripeBase();
        if (buffers[base + COUNT] != 0 && tryLock()) {
            try {
                drain(base);
            } finally {
                unlock();
            }
        }
        FrequencySketch s = sketch;
        int candidate = s.frequency(candidateHash & ~HIT_BIT);
        int victim = s.frequency(victimHash & ~HIT_BIT);
        if (candidate + bias > victim) {
            return true;
        }
        return candidate >= HASH_FLOODING_FLOOR && flipCoin();
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
        long entries = capacity / Math.max(1, sum / count);
        if (entries > 2 * sketchEntries && tryLock()) {
            try {
                resize(entries);
            } finally {
                unlock();
            }
        }
    }

    /** Under the lock: a new, empty sketch for {@code entries}, unless one that large exists. */
    private void resize(long entries) {
        if (entries > 2 * sketchEntries) {
            sketchEntries = entries;
            sketch = new FrequencySketch(entries);
        }
    }

    /** Heap bytes of the sketch and the buffers. */
    public long bytes() {
        return sketch.bytes() + 8L * buffers.length;
    }

    /** The entry count the sketch is sized for now. */
    public long sketchEntries() {
        return sketchEntries;
    }

    /** The sketch's estimate for a key, 0..16, for tests and diagnostics; drains nothing. */
    public int frequency(long keyHash) {
        return sketch.frequency(keyHash & ~HIT_BIT);
    }
}
