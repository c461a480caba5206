package dev.clockwork.offheap.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.clockwork.offheap.context.CacheContext;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * One cache's value slabs for a test, opened before each test and closed after it, with the
 * check that closing returned every native byte the test's slabs took.
 */
abstract class SlabsFixture {
    /** All memory, unscoped: for reading and writing blocks the slabs handed out. */
    static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    static final long MIB = 1 << 20;

    CacheContext context;
    ValueSlabs slabs;
    /** Native bytes outstanding before the slabs were made. */
    long baseline;

    @BeforeEach
    void open() {
        baseline = NativeAllocator.outstandingBytes();
        context = new CacheContext(false, "test");
        slabs = new ValueSlabs(context.all());
    }

    @AfterEach
    void close() {
        context.closeArena();
        slabs.freeAll();
        assertEquals(baseline, NativeAllocator.outstandingBytes(), "native bytes leaked");
    }

    /** The length of the block a churning thread allocates in round {@code round}. */
    interface Lengths {
        int next(int round, SplittableRandom random);
    }

    /**
     * Runs {@code threads} threads that each allocate and free blocks at random over
     * {@code heldSlots} places for {@code rounds} rounds, tagging each block with the thread and
     * round and checking the tag before the free, so that a block handed to two owners at once
     * is caught when one finds the other's tag; each frees what it still holds at the end.
     * {@code mixFrees} alternates {@code free} and {@code freeGuarded}, else every free is
     * guarded. {@code beside}, if not null, runs over and over on another thread until they are
     * done. Throws the first failure of any of them.
     */
    void churnTagged(int threads, int rounds, int heldSlots, Lengths lengths, boolean mixFrees,
                     Runnable beside) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long tag = (long) (t + 1) << 48;
            workers.add(new Thread(() -> {
                try {
                    start.await();
                    churn(tag, rounds, heldSlots, lengths, mixFrees, failure);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        Thread besideThread = new Thread(() -> {
            while (beside != null && !done.get()) {
                beside.run();
                Thread.onSpinWait();
            }
        });
        workers.forEach(Thread::start);
        besideThread.start();
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        done.set(true);
        besideThread.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    private void churn(long tag, int rounds, int heldSlots, Lengths lengths, boolean mixFrees,
                       AtomicReference<Throwable> failure) {
        SplittableRandom random = new SplittableRandom(tag);
        long[] held = new long[heldSlots];
        int[] heldLength = new int[heldSlots];
        long[] heldTag = new long[heldSlots];
        for (int i = 0; i < rounds && failure.get() == null; i++) {
            int k = random.nextInt(heldSlots);
            if (held[k] != 0) {
                long found = RAW.get(ValueLayout.JAVA_LONG, held[k] + 8);
                if (found != heldTag[k]) {
                    throw new AssertionError("block " + held[k] + " tagged "
                            + Long.toHexString(found) + ", expected "
                            + Long.toHexString(heldTag[k]));
                }
                if (mixFrees && (i & 1) == 0) {
                    slabs.free(held[k], heldLength[k]);
                } else {
                    slabs.freeGuarded(held[k], heldLength[k]);
                }
                held[k] = 0;
            } else {
                int length = lengths.next(i, random);
                long block = slabs.allocate(length);
                heldTag[k] = tag | i;
                RAW.set(ValueLayout.JAVA_LONG, block + 8, heldTag[k]);
                held[k] = block;
                heldLength[k] = length;
            }
        }
        for (int k = 0; k < heldSlots; k++) {
            if (held[k] != 0) {
                slabs.free(held[k], heldLength[k]);
            }
        }
    }
}
