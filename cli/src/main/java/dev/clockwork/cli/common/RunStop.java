package dev.clockwork.cli.common;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ends a run early, with its report, on SIGTERM or SIGINT (Ctrl-C). On those signals the JVM
 * runs its shutdown hooks and then exits (status 143 or 130), whatever the other threads are
 * doing; this one's hook asks the run to stop ({@link #requested()}, which the run polls between
 * operations), then waits for the run to print the report of what it did and {@link #close},
 * so that the exit comes after the report. The wait is bounded by {@link #REPORT_WAIT_MILLIS}:
 * a run that cannot finish its report in that time is cut off, as without the hook.
 */
public final class RunStop implements AutoCloseable {
    /**
     * Longest wait for the report after a signal: enough for the workers to notice (within a
     * few thousand operations, or a 200 ms tick of the soak's monitor) and for the soak's leak
     * check to erase its keys and close the cache.
     */
    static final long REPORT_WAIT_MILLIS = 30_000;

    private final String name;
    private final PrintWriter err;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final List<Runnable> onRequest = new CopyOnWriteArrayList<>();
    private final Thread hook;
    private volatile boolean requested;

    private RunStop(String name, PrintWriter err, boolean onSignal) {
        this.name = name;
        this.err = err;
        this.hook = onSignal ? new Thread(this::stopAndWait, "clockwork-stop") : null;
        if (hook != null) {
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    /**
     * A stop that SIGTERM and SIGINT request, until {@link #close}.
     *
     * @param name the tool, for the line it prints on the signal ("clockwork bench")
     * @param err where that line goes
     */
    public static RunStop onSignal(String name, PrintWriter err) {
        return new RunStop(name, err, true);
    }

    /** A stop that only {@link #request} requests: for tests, and runs inside another. */
    public static RunStop manual() {
        return new RunStop("", null, false);
    }

    /** Whether the run should stop now and report what it did. */
    public boolean requested() {
        return requested;
    }

    /** Asks the run to stop; runs the {@link #whenRequested} actions once. */
    public void request() {
        synchronized (onRequest) {
            if (requested) {
                return;
            }
            requested = true;
        }
        onRequest.forEach(Runnable::run);
    }

    /** Runs {@code action} when a stop is requested, or now if one was. */
    public void whenRequested(Runnable action) {
        synchronized (onRequest) {
            if (!requested) {
                onRequest.add(action);
                return;
            }
        }
        action.run();
    }

    /** The run has reported: a signal from now on ends the process at once. */
    @Override
    public void close() {
        closed.countDown();
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running (a signal came): it sees the latch open and returns
            }
        }
    }

    private void stopAndWait() {
        if (closed.getCount() == 0) {
            return;
        }
        err.println(name + ": stopping early (signal); reporting what ran so far");
        err.flush();
        request();
        try {
            closed.await(REPORT_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
