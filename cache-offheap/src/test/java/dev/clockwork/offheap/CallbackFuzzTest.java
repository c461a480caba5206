package dev.clockwork.offheap;

import static dev.clockwork.offheap.CallbackKit.isCallbacksOwn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.EntryVisitor;
import dev.clockwork.cache.ValueReader;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.offheap.admission.TinyLfu;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Untrusted callbacks under random use (issue 25): {@value #THREADS} threads interleave valid
 * calls on one small cache of each type with hostile callbacks, and the cache must never hang,
 * hand out another key's bytes, let through an exception other than a callback's own or a
 * refusal, or lose track of a byte.
 *
 * <h2>The hostile callbacks</h2>
 * <ul>
 *   <li>The cache's admission policy decides like TinyLFU (it wraps one) or at random, and now
 *       and then, from {@code admit}, {@code recordAccess}, {@code recordInsert} or
 *       {@code windowShare}: throws (an unchecked exception, an error, or a checked exception
 *       thrown sneakily), calls back into the cache (from {@code admit}: a lookup, read and
 *       release of the victim, an erase of it, an insert, get, read, usage, entryCount, close;
 *       from the others: lookup, insert, erase, get), or, from {@code windowShare}, answers NaN,
 *       an infinity, 1e300, 1.5 or -1.</li>
 *   <li>Readers ({@code Cache.read}) and visitors ({@code forEachEntry}) throw, call back
 *       (lookup, insert, erase) or read past the end of their view.</li>
 * </ul>
 * A callback inside a callback behaves (a thread-local depth), so that calls cannot recurse
 * without end. Half the seeds set a strict capacity limit, whose eviction path differs; the
 * seed also picks TinyLFU's decisions or a coin's, and who closes the cache at the end.
 *
 * <h2>What is checked</h2>
 * <ul>
 *   <li>Every exception that reaches a caller is a callback's own, an
 *       {@link IllegalStateException} or {@link IllegalArgumentException}, or an
 *       {@link IndexOutOfBoundsException} from a reader or visitor that read past its view.</li>
 *   <li>A call back is served or refused with IllegalStateException as the contract says:
 *       everything from an LRU policy or visitor (it runs under a shard's lock) is refused;
 *       insert and close from a HyperClock policy are refused, the rest served; nothing from a
 *       reader, or from recordAccess or recordInsert, is refused.</li>
 *   <li>Every value read (lookup, get, read, visit, and the callbacks' own reads) is its key's
 *       (values carry key and version, {@link MisuseKit}).</li>
 *   <li>No thread is still running {@value #HANG_SECONDS} s after the deadline (the failure
 *       names every stuck thread with its stack).</li>
 *   <li>After the run, once every handle is released: nothing pinned or standalone; erasing
 *       every key leaves no entry, usage exactly the table's charge (0 for LRU) and no value
 *       block out; then the cache is closed from a callback (a reader, a visitor, recordAccess)
 *       or plainly, and the native balance returns to where it was.</li>
 * </ul>
 *
 * <h2>Running</h2>
 * Seeded like {@link MisuseFuzzTest}: the seed is printed and named in failures, and
 * {@code -Dclockwork.callbacks.seed=N} replays one (the interleaving differs). Runs
 * {@value #DEFAULT_SECONDS} s per cache type by default; soak with
 * {@code -Dclockwork.callbacks.seconds=600}.
 */
class CallbackFuzzTest {
    static final int THREADS = 4;
    static final int KEYS = 48;
    private static final long DEFAULT_SECONDS = 3;
    private static final long SECONDS = Long.getLong("clockwork.callbacks.seconds",
            DEFAULT_SECONDS);
    private static final Long SEED = Long.getLong("clockwork.callbacks.seed");
    private static final long HANG_SECONDS = 30;
    /** About 50 values; two shards, so that LRU calls back across shards too. */
    private static final long CAPACITY = 16 << 10;
    private static final int SHARD_BITS = 1;
    private static final int VALUE_BASE = 256;
    private static final int MAX_HELD = 4;
    /** What {@code read} is told to return for an absent key (never a version). */
    private static final long ABSENT = -7;
    /** What the fuzz's readers return for bytes of no value of their key. */
    private static final long NOT_OWN = MisuseKit.NOT_THIS_KEY;
    /** Who closes the cache at the end ({@link Run#closeFromACallback}), by the run's choice. */
    private static final String[] CLOSERS = {"a reader", "a visitor", "recordAccess", "the test"};
    /** The reader's and visitor's behaviour that reads one byte past the end of its view. */
    private static final int PAST_VIEW = 2;
    private static final double[] BAD_SHARES = {Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, 1e300, 1.5, -1};

    /** The calls a worker makes, with their weights out of 100. */
    private enum Op {
        LOOKUP(18), INSERT(16), INSERT_PINNED(6), ERASE(8), GET(12), READ(18), RELEASE(14),
        VISIT(3), SET_CAPACITY(1), READ_HELD(4);

        final int weight;

        Op(int weight) {
            this.weight = weight;
        }

        private static final Op[] BY_PERCENT = MisuseKit.byPercent(values(), op -> op.weight);
    }

    /** A failure of the fuzz's own checks: never a callback's exception, never excused. */
    static final class Broken extends RuntimeException {
        Broken(String message) {
            super(message);
        }
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void hostileCallbacksNeverHangCorruptOrLeak(CacheKind kind) throws InterruptedException {
        long seed = SEED != null ? SEED : System.nanoTime() ^ kind.ordinal();
        long baseline = NativeMemory.outstandingBytes();
        Run run = new Run(kind, seed);
        System.out.println("CallbackFuzzTest " + kind + ": seed " + seed + ", " + SECONDS + " s, "
                + (run.policy.coin ? "coin" : "TinyLFU") + " decisions"
                + (run.strict ? ", strict capacity limit" : ""));
        run.execute();
        run.checkQuietCache();
        run.closeFromACallback();
        assertEquals(baseline, NativeMemory.outstandingBytes(), run.where()
                + ": native balance after close (below: a double free; above: a leak)");
        System.out.println("CallbackFuzzTest " + kind + ": " + run.stats());
    }

    /** One reference a worker holds. */
    private record Held(long handle, long key) {
    }

    /** One fuzz run on one cache. */
    private static final class Run {
        final CacheKind kind;
        final long seed;
        final HostilePolicy policy;
        final ShardedCache cache;
        final long[] hashes = CallbackKit.hashes(KEYS);
        final AtomicLong versions = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final LongAdder calls = new LongAdder();
        final LongAdder ownReachedCaller = new LongAdder();
        final LongAdder refusedCalls = new LongAdder();
        /** Outcomes of calls back, by "where: call -> outcome". */
        final Map<String, LongAdder> callBacks = new ConcurrentHashMap<>();
        /** Whether the cache has a strict capacity limit (its eviction path differs). */
        final boolean strict;
        /** How {@link #closeFromACallback} closes the cache. */
        final int closeHow;
        volatile boolean stop;
        long deadline;

        Run(CacheKind kind, long seed) {
            this.kind = kind;
            this.seed = seed;
            // The run's choices, from a stream apart from the workers' (seeded by its split).
            SplittableRandom choices = new SplittableRandom(~seed);
            this.strict = choices.nextBoolean();
            this.closeHow = choices.nextInt(CLOSERS.length);
            this.policy = new HostilePolicy(this,
                    new TinyLfu(CAPACITY, Long.MAX_VALUE, kind == CacheKind.LRU),
                    choices.nextBoolean());
            this.cache = MisuseKit.build(kind, CAPACITY, VALUE_BASE, SHARD_BITS, policy);
            cache.setStrictCapacityLimit(strict);
        }

        String where() {
            return kind + " seed " + seed + " (rerun: -Dclockwork.callbacks.seed=" + seed + ")";
        }

        void execute() throws InterruptedException {
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
            SplittableRandom seeds = new SplittableRandom(seed);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Worker worker = new Worker(this, t, seeds.split());
                Thread thread = new Thread(worker::runGuarded, "callback-fuzz-" + t);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
            long joinBy = deadline + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
            for (Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinBy - System.nanoTime())));
            }
            StringBuilder stuck = new StringBuilder();
            for (Thread t : threads) {
                if (t.isAlive()) {
                    stuck.append("\n  ").append(CallbackKit.stackOf(t));
                }
            }
            if (!stuck.isEmpty()) {
                stop = true;
                throw new AssertionError(where() + ": HANG, threads still running " + HANG_SECONDS
                        + " s after the deadline (cache left open):" + stuck);
            }
            Throwable failed = failure.get();
            if (failed != null) {
                policy.quiet = true;
                cache.close();
                throw new AssertionError(where() + ": " + failed.getMessage(), failed);
            }
        }

        /** Every handle released; the cache must be exact, and empty once every key is erased. */
        void checkQuietCache() {
            policy.quiet = true;
            try {
                for (long key = 1; key <= KEYS; key++) {
                    CallbackKit.holdsOwnBytes(cache, key, MisuseKit.lengthOf(key, VALUE_BASE));
                }
                CallbackKit.eraseAllAndCheckEmpty(cache, KEYS, where());
            } catch (RuntimeException | Error e) {
                cache.close();
                throw e;
            }
        }

        /**
         * Closes the cache from inside a callback (chosen by the seed): a reader, a visitor, or
         * recordAccess; or plainly. The call around it may be refused once the cache is closed.
         * A second close must change nothing.
         */
        void closeFromACallback() {
            assertTrue(MisuseKit.insert(cache, 1, versions.incrementAndGet(),
                    MisuseKit.lengthOf(1, VALUE_BASE)), where() + ": insert into the empty cache");
            try {
                switch (closeHow) {
                    case 0 -> cache.read(1, ~1L, value -> {
                        cache.close();
                        return 0;
                    }, ABSENT);
                    case 1 -> cache.forEachEntry((key0, key1, value, charge) -> cache.close(), 1);
                    case 2 -> {
                        policy.closeOnAccess = true;
                        long h = cache.lookup(1, ~1L);
                        if (h != Cache.MISS) {
                            cache.release(h);
                        }
                    }
                    default -> cache.close();
                }
            } catch (IllegalStateException closed) {
                // the call that closed the cache may not finish
            }
            cache.close();
            System.out.println("CallbackFuzzTest " + kind + ": closed from " + CLOSERS[closeHow]);
        }

        /** Counts a call back's outcome, and fails a call back the contract does not allow. */
        void callBack(String where, String call, Runnable body) {
            String outcome;
            try {
                body.run();
                outcome = "served";
            } catch (Broken e) {
                throw e;
            } catch (IllegalStateException e) {
                outcome = "refused";
            } catch (RuntimeException | Error e) {
                if (!isCallbacksOwn(e)) {
                    throw new Broken(where + ": " + call + " from a callback threw " + e);
                }
                outcome = "callback's own";
            }
            String expected = expectedOutcome(where, call);
            if (!expected.equals(outcome)
                    && !outcome.equals("callback's own")) {
                throw new Broken(where + ": " + call + " from a callback was " + outcome
                        + ", the contract says " + expected);
            }
            callBacks.computeIfAbsent(where + ": " + call + " -> " + outcome,
                    k -> new LongAdder()).increment();
        }

        /**
         * What the contract says of a call back: "served" or "refused". An LRU
         * policy and visitor run under a shard's lock: every call is refused. A HyperClock
         * policy runs inside the insert: insert and close are refused, the rest served; its
         * visitor holds only a reference: served. Readers, recordAccess and recordInsert run
         * outside every lock: served.
         */
        String expectedOutcome(String where, String call) {
            boolean locked = where.equals("admit") || where.equals("windowShare")
                    || where.equals("visitor");
            if (kind == CacheKind.LRU && locked) {
                return "refused";
            }
            if (where.equals("admit") || where.equals("windowShare")) {
                return call.equals("insert") || call.equals("close") ? "refused" : "served";
            }
            return "served";
        }

        String stats() {
            StringBuilder sb = new StringBuilder().append(calls.sum()).append(" calls, ")
                    .append(ownReachedCaller.sum()).append(" callbacks' exceptions reached the"
                    + " caller, ").append(refusedCalls.sum()).append(" calls refused; ")
                    .append(policy.thrown.sum()).append(" thrown by the policy; calls back:");
            new TreeMap<>(callBacks).forEach((k, v) -> sb.append("\n    ").append(k)
                    .append(": ").append(v.sum()));
            return sb.toString();
        }
    }

    /** Depth of callbacks on this thread: a callback inside a callback behaves. */
    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    /** The worker running on this thread, whose random numbers the callbacks draw. */
    private static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

    /**
     * Whether the calling thread may act up now: inside a worker, not inside another callback.
     * Enters a callback if so ({@link #exit} in a {@code finally}).
     */
    private static Worker enterHostile() {
        int[] depth = DEPTH.get();
        Worker worker = CURRENT.get();
        if (depth[0] != 0 || worker == null || worker.run.policy.quiet) {
            return null;
        }
        depth[0]++;
        return worker;
    }

    private static void exit() {
        DEPTH.get()[0]--;
    }

    /**
     * The cache's policy: TinyLFU's decisions or a coin's, now and then acting up (see the class
     * comment). Calls from threads that are not workers, and calls from inside a callback, go
     * straight to TinyLFU.
     */
    private static final class HostilePolicy implements Admission {
        final Run run;
        final TinyLfu decisions;
        final boolean coin;
        final LongAdder thrown = new LongAdder();
        volatile boolean quiet;
        volatile boolean closeOnAccess;

        HostilePolicy(Run run, TinyLfu decisions, boolean coin) {
            this.run = run;
            this.decisions = decisions;
            this.coin = coin;
        }

        @Override
        public void recordAccess(long keyHash, boolean hit) {
            decisions.recordAccess(keyHash, hit);
            if (closeOnAccess) {
                closeOnAccess = false;
                run.cache.close();
                return;
            }
            Worker w = enterHostile();
            if (w != null) {
                try {
                    w.actUp("recordAccess", 300, 150, keyHash);
                } finally {
                    exit();
                }
            }
        }

        @Override
        public void recordInsert(long charge) {
            decisions.recordInsert(charge);
            Worker w = enterHostile();
            if (w != null) {
                try {
                    w.actUp("recordInsert", 200, 100, 0);
                } finally {
                    exit();
                }
            }
        }

        @Override
        public boolean admit(long candidateHash, long victimHash) {
            Worker w = enterHostile();
            if (w == null) {
                return decisions.admit(candidateHash, victimHash);
            }
            try {
                w.actUp("admit", 40, 15, victimHash);
                return coin ? w.random.nextBoolean() : decisions.admit(candidateHash, victimHash);
            } finally {
                exit();
            }
        }

        @Override
        public double windowShare() {
            Worker w = enterHostile();
            if (w == null) {
                return decisions.windowShare();
            }
            try {
                w.actUp("windowShare", 500, 300, 0);
                return w.random.nextInt(4) == 0 ? BAD_SHARES[w.random.nextInt(BAD_SHARES.length)]
                        : decisions.windowShare();
            } finally {
                exit();
            }
        }
    }

    /** One thread's calls and what it holds. */
    private static final class Worker {
        final Run run;
        final ShardedCache cache;
        final int id;
        final SplittableRandom random;
        final List<Held> held = new ArrayList<>();
        final byte[] dst = new byte[VALUE_BASE + 8];
        String lastCall = "none";

        Worker(Run run, int id, SplittableRandom random) {
            this.run = run;
            this.cache = run.cache;
            this.id = id;
            this.random = random;
        }

        void runGuarded() {
            CURRENT.set(this);
            try {
                while (!run.stop && System.nanoTime() - run.deadline < 0) {
                    step();
                }
                CURRENT.remove(); // the releases below, and their policy calls, behave
                while (!held.isEmpty()) {
                    cache.release(held.removeLast().handle);
                }
            } catch (Throwable t) {
                run.stop = true;
                run.failure.compareAndSet(null, new AssertionError("thread " + id + ", in "
                        + lastCall + ": " + t, t));
            }
        }

        private long randomKey() {
            return 1 + random.nextInt(KEYS);
        }

        private void step() {
            run.calls.increment();
            Op op = Op.BY_PERCENT[random.nextInt(100)];
            if (held.size() >= MAX_HELD && (op == Op.LOOKUP || op == Op.INSERT_PINNED)) {
                op = Op.RELEASE;
            }
            if (held.isEmpty() && (op == Op.RELEASE || op == Op.READ_HELD)) {
                op = Op.LOOKUP;
            }
            lastCall = op.toString();
            long key = randomKey();
            int behaviour = random.nextInt(10);
            // A reader or visitor reading past its view: its IndexOutOfBoundsException may reach
            // us.
            boolean pastView = (op == Op.READ || op == Op.VISIT) && behaviour == PAST_VIEW;
            try {
                switch (op) {
                    case LOOKUP -> lookup(key);
                    case INSERT -> insert(key);
                    case INSERT_PINNED -> insertPinned(key);
                    case ERASE -> cache.erase(key, ~key);
                    case GET -> get(key);
                    case READ -> read(key, behaviour);
                    case RELEASE -> cache.release(held.remove(random.nextInt(held.size())).handle);
                    case VISIT -> visit(behaviour);
                    case SET_CAPACITY -> cache.setCapacity(CAPACITY);
                    case READ_HELD -> readHeld(held.get(random.nextInt(held.size())));
                }
            } catch (Broken e) {
                throw e;
            } catch (Throwable t) {
                judge(t, pastView);
            }
        }

        /** An insert of {@code key}'s next version, charged its length; whether it was taken. */
        boolean insert(long key) {
            return MisuseKit.insert(cache, key, run.versions.incrementAndGet(),
                    MisuseKit.lengthOf(key, VALUE_BASE));
        }

        /** An exception that reached this caller: a callback's own, a refusal, or a failure. */
        private void judge(Throwable t, boolean pastView) {
            if (isCallbacksOwn(t)) {
                run.ownReachedCaller.increment();
            } else if (t instanceof IllegalStateException
                    || t instanceof IllegalArgumentException) {
                run.refusedCalls.increment();
            } else if (!(pastView && t instanceof IndexOutOfBoundsException)) {
                throw new Broken("a " + t + " reached the caller: " + stackTop(t));
            }
        }

        private static String stackTop(Throwable t) {
            StackTraceElement[] s = t.getStackTrace();
            return s.length == 0 ? "(no stack)" : s[0] + (s.length > 1 ? " < " + s[1] : "");
        }

        // ------------------------------------------------------------ valid calls

        private void lookup(long key) {
            long h = cache.lookup(key, ~key);
            if (h != Cache.MISS) {
                Held x = new Held(h, key);
                held.add(x);
                readHeld(x);
            }
        }

        private void insertPinned(long key) {
            long h = MisuseKit.insertPinned(cache, key, run.versions.incrementAndGet(),
                    MisuseKit.lengthOf(key, VALUE_BASE));
            if (h != Cache.MISS) {
                Held x = new Held(h, key);
                held.add(x);
                readHeld(x);
            }
        }

        private void readHeld(Held x) {
            expectOwn(cache.value(x.handle), x.key, "value through a held handle");
        }

        private void get(long key) {
            int n = cache.get(key, ~key, dst, 0);
            if (n != Cache.ABSENT) {
                expectOwn(MemorySegment.ofArray(dst).asSlice(0, n), key, "get");
            }
        }

        /** A read with a reader that may act up ({@link #reader}). */
        private void read(long key, int behaviour) {
            long result = cache.read(key, ~key, reader(key, behaviour), ABSENT);
            if (result != ABSENT && (result < 0 || result == NOT_OWN)) {
                throw new Broken("read of key " + key + " returned " + result
                        + ": the reader's result on bytes of no value of the key");
            }
        }

        /**
         * A reader of {@code key}'s versions: by {@code behaviour}, 7 throws one of its own,
         * {@link #PAST_VIEW} reads past its view, 8 and 9 call back (lookup, insert, erase, get)
         * first, the others just read.
         */
        private ValueReader reader(long key, int behaviour) {
            int length = MisuseKit.lengthOf(key, VALUE_BASE);
            return value -> {
                switch (behaviour) {
                    case 7 -> throw CallbackKit.sneaky(CallbackKit.ownFailure(key, "reader"));
                    case PAST_VIEW -> value.get(ValueLayout.JAVA_BYTE, value.byteSize());
                    case 8, 9 -> {
                        Worker w = enterHostile();
                        if (w != null) {
                            try {
                                w.callBackOnce("reader", key);
                            } finally {
                                exit();
                            }
                        }
                    }
                    default -> {
                    }
                }
                return MisuseKit.versionOf(value, key, length);
            };
        }

        /**
         * A visit with a visitor that may act up: by {@code behaviour}, 1 throws one of its own at
         * the third entry, {@link #PAST_VIEW} reads past its view, 3 calls back (lookup, insert,
         * erase, get) at each entry, the others just check each entry's bytes.
         */
        private void visit(int behaviour) {
            int[] seen = new int[1];
            EntryVisitor visitor = (key0, key1, value, charge) -> {
                if (key1 != ~key0) {
                    throw new Broken("visited key (" + key0 + ", " + key1 + ") never inserted");
                }
                expectOwn(value, key0, "visitor");
                seen[0]++;
                switch (behaviour) {
                    case 1 -> {
                        if (seen[0] == 3) {
                            throw CallbackKit.sneaky(CallbackKit.ownFailure(key0, "visitor"));
                        }
                    }
                    case PAST_VIEW -> value.get(ValueLayout.JAVA_BYTE, value.byteSize());
                    case 3 -> {
                        Worker w = enterHostile();
                        if (w != null) {
                            try {
                                w.callBackOnce("visitor", key0);
                            } finally {
                                exit();
                            }
                        }
                    }
                    default -> {
                    }
                }
            };
            cache.forEachEntry(visitor, 1 + random.nextInt(8));
        }

        // ------------------------------------------------------------ callbacks acting up

        /**
         * A policy method acting up: one in {@code throwOneIn} calls throws one of the
         * callbacks' own; one in {@code callBackOneIn} calls back into the cache.
         */
        void actUp(String where, int throwOneIn, int callBackOneIn, long victimHash) {
            if (random.nextInt(throwOneIn) == 0) {
                run.policy.thrown.increment();
                throw CallbackKit.sneaky(CallbackKit.ownFailure(random.nextInt(3), where));
            }
            if (random.nextInt(callBackOneIn) == 0) {
                long victim = CallbackKit.keyOf(victimHash, run.hashes);
                callBackOnce(where, victim != 0 ? victim : randomKey());
            }
        }

        /** One call back into the cache from callback {@code where}, about {@code key}. */
        void callBackOnce(String where, long key) {
            boolean fromAdmit = where.equals("admit");
            int choice = random.nextInt(fromAdmit ? 9 : 4);
            switch (choice) {
                case 0 -> run.callBack(where, "lookup", () -> {
                    long h = cache.lookup(key, ~key);
                    if (h != Cache.MISS) {
                        try {
                            expectOwn(cache.value(h), key, where + ": lookup");
                        } finally {
                            cache.release(h);
                        }
                    }
                });
                case 1 -> run.callBack(where, "insert", () -> insert(randomKey()));
                case 2 -> run.callBack(where, "erase", () -> cache.erase(key, ~key));
                case 3 -> run.callBack(where, "get", () -> {
                    byte[] mine = new byte[VALUE_BASE + 8];
                    int n = cache.get(key, ~key, mine, 0);
                    if (n != Cache.ABSENT) {
                        expectOwn(MemorySegment.ofArray(mine).asSlice(0, n), key, where + ": get");
                    }
                });
                case 4 -> run.callBack(where, "read", () -> {
                    long v = cache.read(key, ~key, value -> MisuseKit.versionOf(value, key,
                            MisuseKit.lengthOf(key, VALUE_BASE)), ABSENT);
                    if (v != ABSENT && v < 0) {
                        throw new Broken(where + ": read of " + key + " returned " + v);
                    }
                });
                case 5 -> run.callBack(where, "usage", cache::usage);
                case 6 -> run.callBack(where, "entryCount", cache::entryCount);
                case 7 -> run.callBack(where, "close", cache::close);
                default -> run.callBack(where, "pinnedUsage", cache::pinnedUsage);
            }
        }

        private static void expectOwn(MemorySegment bytes, long key, String how) {
            int length = MisuseKit.lengthOf(key, VALUE_BASE);
            if (MisuseKit.versionOf(bytes, key, length) == MisuseKit.NOT_THIS_KEY) {
                throw new Broken("OTHER BYTES: " + how + " of key " + key + " read "
                        + MisuseKit.describe(bytes));
            }
        }
    }
}
