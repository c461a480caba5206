package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.admission.Admission;
import dev.clockwork.cache.hash.KeyHash;
import dev.clockwork.offheap.clock.SlotLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.function.LongConsumer;

/**
 * Shared pieces of the tests of untrusted callbacks ({@link CallbackContractTest},
 * {@link CallbackFuzzTest}, {@link CloseVsIoTest}): exceptions that only a test's callback
 * throws, so that whatever reaches a caller can be told apart from the cache's own; an admission
 * policy whose every method is a settable hook; the hashed keys a policy is handed, mapped back
 * to the keys the test inserted; and the exact accounting of an empty cache.
 *
 * <p>Keys are {@code (key, ~key)} and values {@link MisuseKit}'s, as in the misuse tests; caches
 * are built by {@link MisuseKit#build}, whose hash seed is known here.
 */
final class CallbackKit {
    private CallbackKit() {
    }

    /** A callback's own unchecked exception. No stack trace: thrown often, and never looked at. */
    static final class CallbackException extends RuntimeException {
        CallbackException(String where) {
            super(where, null, false, false);
        }
    }

    /** A callback's own error. */
    static final class CallbackError extends Error {
        CallbackError(String where) {
            super(where, null, false, false);
        }
    }

    /** A callback's own checked exception, thrown where no checked exception is declared. */
    static final class CallbackChecked extends Exception {
        CallbackChecked(String where) {
            super(where, null, false, false);
        }
    }

    /** Whether {@code t} is one of the three a test's callback throws. */
    static boolean isCallbacksOwn(Throwable t) {
        return t instanceof CallbackException || t instanceof CallbackError
                || t instanceof CallbackChecked;
    }

    /** One of the three by {@code n} (0, 1, 2 modulo 3), for the caller to {@code throw}. */
    static Throwable ownFailure(long n, String where) {
        return switch ((int) Math.floorMod(n, 3L)) {
            case 0 -> new CallbackException(where);
            case 1 -> new CallbackError(where);
            default -> new CallbackChecked(where);
        };
    }

    /** Throws {@code t}, checked or not, from a method that declares nothing. */
    static RuntimeException sneaky(Throwable t) {
        throw CallbackKit.<RuntimeException>sneaky0(t);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T sneaky0(Throwable t) throws T {
        throw (T) t;
    }

    /** The hashed key a policy is handed for the test key {@code key} (stored as (key, ~key)). */
    static long hashOf(long key) {
        return KeyHash.hash0(key, ~key, MisuseKit.HASH_SEED);
    }

    /** The test key whose hashed key is {@code h0}, among {@code 1..keys}; 0 if none. */
    static long keyOf(long h0, long[] hashes) {
        for (int i = 1; i < hashes.length; i++) {
            if (hashes[i] == h0) {
                return i;
            }
        }
        return 0;
    }

    /** {@link #hashOf} of keys {@code 1..keys}, indexed by key. */
    static long[] hashes(int keys) {
        long[] h = new long[keys + 1];
        for (int k = 1; k <= keys; k++) {
            h[k] = hashOf(k);
        }
        return h;
    }

    /**
     * What an empty cache of this type is charged: a HyperClock table's slots (all of a fixed
     * table's, an Auto table's up to its grow frontier; metadata is charged by default), and
     * nothing for an LRU cache, which charges each entry's record with the entry.
     */
    static long emptyUsage(Cache cache) {
        return cache instanceof HyperClockCache hcc ? hcc.tableSlots() * SlotLayout.SLOT_BYTES : 0;
    }

    /**
     * Bytes of value blocks handed out and not freed; walks the free lists (a quiet cache only).
     */
    static long liveValueBytes(Cache cache) {
        return ModelAccess.valueChunkBytes(cache) - ModelAccess.idleValueBytes(cache);
    }

    /**
     * Erases keys {@code 1..keys} and checks that the cache is empty and exact: no entry, usage
     * exactly {@link #emptyUsage}, nothing pinned or standalone, no value block left out. For a
     * quiet cache (no other thread calling).
     */
    static void eraseAllAndCheckEmpty(Cache cache, int keys, String where) {
        for (long key = 1; key <= keys; key++) {
            cache.erase(key, ~key);
        }
        assertEquals(0, cache.pinnedUsage(), where + ": pinned usage");
        if (cache instanceof HyperClockCache hcc) {
            assertEquals(0, hcc.standaloneUsage(), where + ": standalone usage");
        }
        assertEquals(0, cache.entryCount(), where + ": entries left after erasing every key"
                + " (an erased entry nobody can find, still counted: a phantom)");
        assertEquals(emptyUsage(cache), cache.usage(), where + ": usage of the empty cache");
        assertEquals(0, liveValueBytes(cache), where + ": value blocks still out");
    }

    /** Whether a key is in the cache with bytes of its own; throws if they are another key's. */
    static boolean holdsOwnBytes(Cache cache, long key, int length) {
        long h = cache.lookup(key, ~key);
        if (h == Cache.MISS) {
            return false;
        }
        try {
            long version = MisuseKit.versionOf(cache.value(h), key, length);
            if (version == MisuseKit.NOT_THIS_KEY) {
                throw new AssertionError("key " + key + " reads "
                        + MisuseKit.describe(cache.value(h)));
            }
            return true;
        } finally {
            cache.release(h);
        }
    }

    /** {@code admit(candidate, victim)} as a settable hook. */
    @FunctionalInterface
    interface AdmitHook {
        boolean admit(long candidateHash, long victimHash);
    }

    /**
     * An admission policy made of hooks, each settable at any time (volatile), and call counts.
     * By default it admits everything, like {@link Admission#ALWAYS}, but it is a user's policy:
     * the caches ask it as untrusted code.
     */
    static final class ScriptedPolicy implements Admission {
        volatile AdmitHook admit = (candidate, victim) -> true;
        volatile LongConsumer onAccess = hash -> { };
        volatile LongConsumer onInsert = charge -> { };
        volatile DoubleSupplier windowShare = () -> 0;
        final AtomicLong admitCalls =
                new AtomicLong();

        @Override
        public void recordAccess(long keyHash, boolean hit) {
            onAccess.accept(keyHash);
        }

        @Override
        public boolean admit(long candidateHash, long victimHash) {
            admitCalls.incrementAndGet();
            return admit.admit(candidateHash, victimHash);
        }

        @Override
        public void recordInsert(long charge) {
            onInsert.accept(charge);
        }

        @Override
        public double windowShare() {
            return windowShare.getAsDouble();
        }
    }

    /** A test body that may throw anything. */
    @FunctionalInterface
    interface Body {
        void run() throws Throwable;
    }

    /**
     * Runs {@code body} on a daemon thread and waits at most {@code seconds} for it: a body that
     * hangs (a lock cycle, a close waiting for itself) fails the test with the stuck thread's
     * stack instead of hanging the build; what the body throws is rethrown.
     */
    static void withinDeadline(String what, long seconds, Body body) throws Throwable {
        Throwable[] failure = new Throwable[1];
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, what);
        thread.setDaemon(true);
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(seconds));
        if (thread.isAlive()) {
            throw new AssertionError("HANG: " + what + " still runs after " + seconds + " s: "
                    + stackOf(thread));
        }
        if (failure[0] != null) {
            throw failure[0];
        }
    }

    /** A thread's stack, one frame a line, for failure messages. */
    static String stackOf(Thread thread) {
        StringBuilder sb = new StringBuilder(thread.getName()).append(" (")
                .append(thread.getState()).append(")");
        for (StackTraceElement frame : thread.getStackTrace()) {
            sb.append("\n    at ").append(frame);
        }
        return sb.toString();
    }
}
