package dev.clockwork.cli.common;

import java.io.PrintWriter;
import java.util.concurrent.ExecutionException;

/**
 * The last line of defence: a failure that no check of the flags or inputs foresaw still ends the
 * tool with one line on standard error, not a JVM stack trace.
 *
 * <ul>
 *   <li>Running out of memory ({@link OutOfMemoryError}) means the flags or inputs asked for
 *       more than the JVM has: a usage error ({@link ExitCodes#USAGE}), with the JVM's limit
 *       and how to raise it.</li>
 *   <li>Anything else is a bug ({@link ExitCodes#ERROR}). The line keeps it diagnosable: the
 *       exception, its message and the frame that threw it; with the environment variable
 *       {@value #STACK_TRACE_ENV} set to anything but empty or {@code 0}, the whole stack
 *       trace follows.</li>
 * </ul>
 */
public final class Failures {
    private Failures() {
    }

    /** Set (not empty, not {@code 0}) to print the stack trace of an unexpected failure. */
    public static final String STACK_TRACE_ENV = "CLOCKWORK_STACK_TRACE";

    private static final long MIB = 1L << 20;

    /** Whether {@value #STACK_TRACE_ENV} asks for stack traces in this process. */
    public static boolean stackTracesRequested() {
        String v = System.getenv(STACK_TRACE_ENV);
        return v != null && !v.isEmpty() && !v.equals("0");
    }

    /**
     * Prints {@code failure} for the tool {@code who} ("clockwork simulate") and returns the
     * exit code.
     *
     * @param stackTrace whether to print the stack trace after the line too
     */
    public static int report(String who, Throwable failure, PrintWriter err, boolean stackTrace) {
        Throwable cause = unwrap(failure);
        boolean outOfMemory = cause instanceof OutOfMemoryError;
        err.println(who + ": " + (outOfMemory ? outOfMemory((OutOfMemoryError) cause)
                : unexpected(cause)));
        if (stackTrace) {
            cause.printStackTrace(err);
        }
        err.flush();
        return outOfMemory ? ExitCodes.USAGE : ExitCodes.ERROR;
    }

    /** The line for running out of memory: what ran out, the heap's limit, how to raise it. */
    static String outOfMemory(OutOfMemoryError e) {
        return "out of memory (" + oneLine(String.valueOf(e.getMessage())) + "; "
                + maxHeap() + "): lower the sizes the flags ask for, or " + raiseHeap();
    }

    /** "the JVM's maximum heap is N MiB": this JVM's limit, for messages about memory. */
    public static String maxHeap() {
        return "the JVM's maximum heap is " + Runtime.getRuntime().maxMemory() / MIB + " MiB";
    }

    /** How to give the tool twice this JVM's heap, through the launcher. */
    public static String raiseHeap() {
        return "raise the heap, e.g. CLOCKWORK_JAVA_OPTS=-Xmx"
                + 2 * (Runtime.getRuntime().maxMemory() / MIB) + "m ./clockwork ...";
    }

    /** The line for a bug: the exception, its message and where it was thrown. */
    static String unexpected(Throwable t) {
        StackTraceElement[] frames = t.getStackTrace();
        String where = frames.length == 0 ? "" : " at " + frames[0];
        return "internal error: " + oneLine(t.toString()) + where + " (set " + STACK_TRACE_ENV
                + "=1 for the stack trace)";
    }

    /**
     * The failure itself, not the wrappers picocli and executors put around it (an exception
     * without a message of its own whose cause is the real one).
     */
    static Throwable unwrap(Throwable t) {
        Throwable cause = t;
        while (cause.getCause() != null && cause.getCause() != cause
                && (cause instanceof picocli.CommandLine.ExecutionException
                        || cause instanceof ExecutionException
                        || cause.getCause() instanceof OutOfMemoryError)) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** {@code text} with its line breaks turned into spaces, so that it stays one line. */
    public static String oneLine(String text) {
        return text.replaceAll("\\R+", " ").strip();
    }
}
