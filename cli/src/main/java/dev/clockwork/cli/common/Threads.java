package dev.clockwork.cli.common;

import java.util.concurrent.CountDownLatch;

/**
 * Waits that the commands' main threads must finish whatever interrupts them: the workers hold
 * native memory and pinned handles, so the run joins them before it reports or closes the cache.
 * An interrupt is remembered and restored on the way out.
 */
public final class Threads {
    private Threads() {
    }

    /** Joins the first {@code count} threads. */
    public static void joinAll(Thread[] threads, int count) {
        boolean interrupted = false;
        for (int i = 0; i < count; i++) {
            while (true) {
                try {
                    threads[i].join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the latch is open. */
    public static void awaitUninterruptibly(CountDownLatch latch) {
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
}
