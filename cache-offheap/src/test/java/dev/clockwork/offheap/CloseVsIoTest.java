package dev.clockwork.offheap;

import static dev.clockwork.offheap.CallbackKit.withinDeadline;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.admission.Admission;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code close()} against I/O on a value view: a thread writes a value's {@code ByteBuffer}
 * (through a held handle's {@code value(h)}, from inside a {@code read} reader, or from inside a
 * {@code forEachEntry} visitor) to a pipe whose other end the test drains only once close is
 * waiting. The write holds the cache's arena for as long as the pipe is full, so close must wait
 * for it: it may not return, throw or free anything while the write is in flight, and once the
 * write is done it frees every native byte. The reader of the pipe gets the whole value, never
 * freed memory. An interrupted close throws {@link IllegalStateException} with nothing freed, and
 * the next close frees everything.
 *
 * <p>Old behaviour caught: close gave up after 10,000 attempts to close the arena and threw
 * IllegalStateException while the write was still blocked, with the cache marked closed and
 * nothing freed; every later close returned at once, so all of the cache's native memory leaked.
 *
 * <p>The value (1 MiB) is larger than a pipe's buffer (64 KiB on Linux), so the write blocks until
 * the test reads; the test reads its first bytes before starting close (the write has begun) and
 * drains the rest only once the closing thread is parked waiting.
 */
class CloseVsIoTest {
    private static final int LENGTH = 1 << 20;
    private static final long CAPACITY = 8 << 20;
    private static final long DEADLINE = 60;
    private static final long KEY = 1;

    /** Where the writing thread gets its view of the value. */
    enum View { VALUE, READ, VISIT }

    @ParameterizedTest
    @CsvSource({"FIXED, VALUE", "FIXED, READ", "FIXED, VISIT", "AUTO, VALUE", "AUTO, READ",
        "AUTO, VISIT", "LRU, VALUE", "LRU, READ", "LRU, VISIT"})
    void closeWaitsForAWriteOfAValueView(CacheKind kind, View view) throws Throwable {
        withinDeadline("close vs I/O " + kind + " " + view, DEADLINE, () -> {
            long baseline = NativeMemory.outstandingBytes();
            try (Race race = new Race(kind, view)) {
                race.startClose();
                assertTrue(race.closer.isAlive(), "close returned while the write was in flight: "
                        + race.closeFailure.get());
                assertTrue(!race.writeDone.get(), "the write ended before the pipe was drained");
                race.drainAndJoin();
                assertNull(race.closeFailure.get(), "close threw");
                assertTrue(race.writeDoneWhenCloseReturned.get(),
                        "close returned before the write had ended");
            }
            assertEquals(baseline, NativeMemory.outstandingBytes(), kind + " " + view
                    + ": native bytes after close");
        });
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void anInterruptedCloseFreesNothingAndTheNextCloseFreesEverything(CacheKind kind)
            throws Throwable {
        withinDeadline("interrupted close vs I/O " + kind, DEADLINE, () -> {
            long baseline = NativeMemory.outstandingBytes();
            try (Race race = new Race(kind, View.VALUE)) {
                long held = NativeMemory.outstandingBytes();
                race.startClose();
                race.closer.interrupt();
                race.closer.join();
                Throwable failure = race.closeFailure.get();
                assertTrue(failure instanceof IllegalStateException, "interrupted close: "
                        + failure);
                assertTrue(race.closerStillInterrupted.get(), "the interrupt status is kept");
                assertEquals(held, NativeMemory.outstandingBytes(), "nothing freed");
                assertThrows(IllegalStateException.class, () -> race.cache.lookup(KEY, ~KEY),
                        "the cache is closed to every call");
                race.drainAndJoin(); // the bytes read are checked: the value was not freed
                race.cache.close(); // the next close finishes the job
            }
            assertEquals(baseline, NativeMemory.outstandingBytes(), kind
                    + ": native bytes after the second close");
        });
    }

    /**
     * A second close while the first waits for the write waits for the first: when it returns,
     * every native byte is freed. Old behaviour: the second close saw the cache marked closed
     * and returned at once, with nothing freed (and nothing ever was).
     */
    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aSecondCloseReturnsOnlyOnceTheFirstHasFreedEverything(CacheKind kind) throws Throwable {
        withinDeadline("second close vs I/O " + kind, DEADLINE, () -> {
            long baseline = NativeMemory.outstandingBytes();
            try (Race race = new Race(kind, View.VALUE)) {
                race.startClose();
                AtomicReference<Long> atReturn = new AtomicReference<>();
                Thread second = new Thread(() -> {
                    race.cache.close();
                    atReturn.set(NativeMemory.outstandingBytes());
                }, "second closer");
                second.setDaemon(true);
                second.start();
                awaitWaitingOrDone(second);
                assertNull(atReturn.get(), "the second close returned while the first waited");
                race.drainAndJoin();
                second.join();
                assertEquals(baseline, atReturn.get(), "native bytes when the second close"
                        + " returned");
            }
        });
    }

    /**
     * An LRU visitor that closes the cache while another thread's close waits for the write
     * (holding the close and needing the visited shard's lock later): its close returns at once
     * instead of waiting for a close that waits for its lock, the visit ends, and the first
     * close then frees everything. This guards the waiting second close against that lock
     * cycle. (On the old code it fails earlier: the first close gave up during the write.)
     */
    @Test
    void aCloseFromAnLruVisitorDuringAnotherCloseReturnsAtOnce() throws Throwable {
        withinDeadline("close from an LRU visitor vs I/O", DEADLINE, () -> {
            long baseline = NativeMemory.outstandingBytes();
            try (Race race = new Race(CacheKind.LRU, View.VALUE)) {
                CountDownLatch visiting = new CountDownLatch(1);
                CountDownLatch firstCloseWaits = new CountDownLatch(1);
                AtomicBoolean visitorCloseReturned = new AtomicBoolean();
                AtomicReference<Throwable> visitFailure = new AtomicReference<>();
                Thread visitor = new Thread(() -> {
                    try {
                        race.cache.forEachEntry((key0, key1, value, charge) -> {
                            visiting.countDown();
                            awaitUninterruptibly(firstCloseWaits);
                            race.cache.close();
                            visitorCloseReturned.set(true);
                        }, 1);
                    } catch (IllegalStateException closed) {
                        // the visit ends with the cache closed, as it may
                    } catch (Throwable t) {
                        visitFailure.set(t);
                    }
                }, "visitor");
                visitor.setDaemon(true);
                visitor.start();
                visiting.await(); // the visitor holds its shard's lock from here on
                race.startClose();
                firstCloseWaits.countDown();
                visitor.join();
                assertNull(visitFailure.get(), "the visit failed");
                assertTrue(visitorCloseReturned.get(), "the visitor's close did not return");
                assertTrue(race.closer.isAlive(), "the first close returned during the write");
                race.drainAndJoin();
                assertNull(race.closeFailure.get(), "the first close threw");
            }
            assertEquals(baseline, NativeMemory.outstandingBytes(), "native bytes after close");
        });
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until {@code thread} is parked or blocked (waiting for something), or has ended. */
    static void awaitWaitingOrDone(Thread thread) {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE / 2);
        while (thread.getState() != Thread.State.TIMED_WAITING
                && thread.getState() != Thread.State.WAITING
                && thread.getState() != Thread.State.BLOCKED
                && thread.getState() != Thread.State.TERMINATED) {
            if (System.nanoTime() - giveUp > 0) {
                throw new AssertionError("neither waits nor ends: " + CallbackKit.stackOf(thread));
            }
            LockSupport.parkNanos(100_000);
        }
    }

    /** One cache holding one 1 MiB value, a thread writing a view of it to a pipe, a closer. */
    private static final class Race implements AutoCloseable {
        final Cache cache;
        final Pipe pipe = Pipe.open();
        final ByteBuffer received = ByteBuffer.allocate(LENGTH);
        final AtomicBoolean writeDone = new AtomicBoolean();
        final AtomicBoolean writeDoneWhenCloseReturned = new AtomicBoolean();
        final AtomicBoolean closerStillInterrupted = new AtomicBoolean();
        final AtomicReference<Throwable> writeFailure = new AtomicReference<>();
        final AtomicReference<Throwable> closeFailure = new AtomicReference<>();
        final Thread writer;
        Thread closer;

        Race(CacheKind kind, View view) throws IOException {
            cache = MisuseKit.build(kind, CAPACITY, LENGTH, 0, Admission.ALWAYS);
            assertTrue(MisuseKit.insert(cache, KEY, 1, LENGTH));
            writer = new Thread(() -> write(view), "writer");
            writer.setDaemon(true);
            writer.start();
            // The first bytes: the write has begun, and holds the view until the pipe is drained.
            pipe.source().read(received);
        }

        /** The writing thread: a view of the value, as {@code view} says, written to the pipe. */
        private void write(View view) {
            try {
                switch (view) {
                    case VALUE -> {
                        long h = cache.lookup(KEY, ~KEY);
                        writeAll(cache.value(h));
                        cache.release(h); // the cache is closing: may throw
                    }
                    case READ -> cache.read(KEY, ~KEY, value -> {
                        writeAll(value);
                        return 0;
                    }, -1);
                    case VISIT -> cache.forEachEntry((key0, key1, value, charge) -> writeAll(value),
                            1);
                }
            } catch (IllegalStateException closing) {
                // after the write: the call around it met the closed cache, as it may
            } catch (Throwable t) {
                writeFailure.set(t);
            }
        }

        private void writeAll(MemorySegment value) {
            ByteBuffer buffer = value.asByteBuffer();
            try {
                while (buffer.hasRemaining()) {
                    pipe.sink().write(buffer);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            writeDone.set(true);
        }

        /** Starts close on its own thread and waits until it is parked waiting for the write. */
        void startClose() {
            closer = new Thread(() -> {
                try {
                    cache.close();
                } catch (Throwable t) {
                    closeFailure.set(t);
                }
                writeDoneWhenCloseReturned.set(writeDone.get());
                closerStillInterrupted.set(Thread.currentThread().isInterrupted());
            }, "closer");
            closer.setDaemon(true);
            closer.start();
            awaitWaitingOrDone(closer);
        }

        /** Reads the rest of the value from the pipe, joins both threads, checks the bytes. */
        void drainAndJoin() throws Exception {
            while (received.hasRemaining()) {
                pipe.source().read(received);
            }
            writer.join();
            closer.join();
            assertNull(writeFailure.get(), "the writing thread failed");
            long version = MisuseKit.versionOf(MemorySegment.ofBuffer(received.flip()), KEY,
                    LENGTH);
            assertEquals(1, version, "the pipe carried other bytes than the value's: "
                    + MisuseKit.describe(MemorySegment.ofBuffer(received)));
        }

        @Override
        public void close() throws IOException {
            pipe.sink().close();
            pipe.source().close();
            if (closer != null && closer.isAlive()) {
                return; // a failed test: the cache stays as it is (NativeLeakCheck reports it)
            }
            cache.close();
        }
    }
}
