package dev.clockwork.offheap.context;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Keeps untrusted callbacks from calling back into a cache where that would corrupt it or hang.
 *
 * <p>Two kinds of user code run while a cache is in the middle of something:
 * <ul>
 *   <li>An {@link dev.clockwork.cache.EntryVisitor} of an LRU cache, and a user's
 *       {@link dev.clockwork.cache.admission.Admission} policy asked by an LRU cache, run with a
 *       shard's monitor held ({@link #enterLocked}). A monitor is re-entrant, so a call back into
 *       that shard would change its list under the walk that called out; a call into another
 *       shard takes that shard's monitor while holding this one, and two threads doing so in
 *       opposite order deadlock.</li>
 *   <li>A user's admission policy asked by a HyperClock cache runs inside the cache's close gate
 *       ({@link #enterPolicy}): a close from there would wait for itself.</li>
 * </ul>
 * The thread running such a callback is marked (a per-thread count of each kind, so nested
 * callbacks unwind correctly), and the calls that could do harm ask first:
 * <ul>
 *   <li>every call of an LRU cache that takes a shard's monitor asks {@link #refuseIfLocked}: a
 *       thread inside a locked callback (of any cache) is refused while this cache has one
 *       running;</li>
 *   <li>every {@code close()} asks {@link #refuseIfInPolicy}: no cache is closed from inside an
 *       admission policy (an LRU visitor may close its cache: the walk finishes the job).</li>
 * </ul>
 *
 * <h2>Why no lock cycle can form</h2>
 * A thread can wait for a shard monitor while holding another only from inside a locked
 * callback of that other monitor's cache, and such a cache's {@link #running} count is non-zero
 * from before the callback starts until it ends. In a cycle of such waits, consider the thread
 * whose call was checked last: every other thread of the cycle was inside its callback by then,
 * so the cache it called had a non-zero count, and the thread itself was marked: the check
 * refused it. (The count is volatile and the check reads it after the thread's own mark was
 * made, so the check cannot miss a callback that began before it.)
 *
 * <h2>Cost</h2>
 * Built-in policies do not call back and are not guarded. A guarded callback costs two atomic
 * adds on the cache's count and two thread-local updates. A checked call reads the count (one
 * volatile read of a field that is almost always 0 and so stays shared in every core's cache)
 * and only while it is non-zero looks up the thread's marks.
 */
public final class CallbackGuard {
    /** Index in a thread's marks: callbacks run with a shard monitor held. */
    private static final int LOCKED = 0;
    /** Index in a thread's marks: admission policies (user code) being asked. */
    private static final int POLICY = 1;
    /**
     * Index in a thread's marks: a key's write stripe held ({@code KeyStripes}), under which an
     * insert tells the admission policy of the insert and of lookups (user code, not marked as
     * asking a policy, as {@code recordInsert} and {@code recordAccess} are not).
     */
    private static final int STRIPE = 2;
    private static final ThreadLocal<int[]> MARKS = ThreadLocal.withInitial(() -> new int[3]);

    private static final VarHandle RUNNING;

    static {
        try {
            RUNNING = MethodHandles.lookup().findVarHandle(CallbackGuard.class, "running",
                    int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Locked callbacks of this cache running now, on any thread. */
    @SuppressWarnings("unused") // through RUNNING
    private volatile int running;

    /** Marks the calling thread as running a callback with a shard monitor of this cache held. */
    public void enterLocked() {
        MARKS.get()[LOCKED]++;
        RUNNING.getAndAdd(this, 1); // volatile: a check that follows on any thread sees it
    }

    /**
     * Ends {@link #enterLocked}; in a {@code finally}, so that a callback's exception unwinds it.
     */
    public void exitLocked() {
        RUNNING.getAndAdd(this, -1);
        MARKS.get()[LOCKED]--;
    }

    /** Marks the calling thread as asking a user's admission policy, under a monitor or not. */
    public static void enterPolicy() {
        MARKS.get()[POLICY]++;
    }

    /** Ends {@link #enterPolicy}; in a {@code finally}. */
    public static void exitPolicy() {
        MARKS.get()[POLICY]--;
    }

    /**
     * Throws if the calling thread is inside a locked callback while this cache runs one: the
     * call would re-enter a monitor it holds or wait for one in a cycle (see the class comment).
     */
    public void refuseIfLocked() {
        if (running != 0 && MARKS.get()[LOCKED] != 0) {
            throw new IllegalStateException("an EntryVisitor or Admission policy must not call"
                    + " this cache: it runs with a lock of the cache held");
        }
    }

    /**
     * Throws {@code t} as it is, checked or not: for a callback's exception that a cache caught to
     * finish its own work first (a policy or reader may throw anything, even a checked exception
     * its interface does not declare). Declared to return an exception so that callers can write
     * {@code throw rethrow(t)} and the compiler sees the path end.
     */
    public static RuntimeException rethrow(Throwable t) {
        throw CallbackGuard.<RuntimeException>sneaky(t);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T sneaky(Throwable t) throws T {
        throw (T) t;
    }

    /** Whether the calling thread runs a locked callback (of any cache) now. */
    public static boolean isInsideLocked() {
        return MARKS.get()[LOCKED] != 0;
    }

    /** Marks the calling thread as holding a key's write stripe; once the stripe is taken. */
    public static void enterStripe() {
        MARKS.get()[STRIPE]++;
    }

    /** Ends {@link #enterStripe}; in a {@code finally}, before the stripe is let go. */
    public static void exitStripe() {
        MARKS.get()[STRIPE]--;
    }

    /**
     * Whether a call that takes a key's write stripe, or waits for a load that needs one, must
     * refuse on the calling thread: it is asking an admission policy, or holds a stripe already.
     * Either way it could wait for a stripe held by a thread that waits for it (a cycle, as two
     * locks taken in opposite orders).
     */
    public static boolean mustNotTakeStripe() {
        int[] marks = MARKS.get();
        return marks[POLICY] != 0 || marks[STRIPE] != 0;
    }

    /** Throws if the calling thread is asking an admission policy: close must not run there. */
    public static void refuseIfInPolicy() {
        if (MARKS.get()[POLICY] != 0) {
            throw new IllegalStateException("an Admission policy must not close a cache: the"
                    + " cache is waiting for the policy's answer");
        }
    }
}
