package dev.clockwork.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The tool in a JVM of its own (this JVM's java and class path), for what only a process
 * shows: how it ends on a signal, and its exit status.
 */
public final class ChildRun {
    private final Process process;
    private final List<String> out = new ArrayList<>();
    private final List<String> err = new ArrayList<>();
    private final Thread outReader;
    private final Thread errReader;

    public ChildRun(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        outReader = Thread.ofPlatform().daemon().start(() -> collect(process.getInputStream(),
                out));
        errReader = Thread.ofPlatform().daemon().start(() -> collect(process.getErrorStream(),
                err));
    }

    private static void collect(InputStream in, List<String> lines) {
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            synchronized (lines) {
                lines.add("(read failed: " + e + ")");
            }
        }
    }

    /** Waits until a line of standard output ({@code stdout}) or error matches, or fails. */
    public void awaitLine(boolean stdout, Predicate<String> match) throws InterruptedException {
        List<String> lines = stdout ? out : err;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        synchronized (lines) {
            while (lines.stream().noneMatch(match)) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive()) {
                    throw new AssertionError("no such line; stdout:\n" + text(out) + "\nstderr:\n"
                            + text(err));
                }
                lines.wait(Math.max(1, Math.min(100, left / 1_000_000)));
            }
        }
    }

    /** The processes this one started, now. */
    List<ProcessHandle> children() {
        return process.descendants().toList();
    }

    /** Sends SIGTERM and waits for the exit; returns the exit status. */
    public int terminate() throws InterruptedException {
        process.toHandle().destroy(); // SIGTERM; Process.destroy would close the streams too
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("still running 90 s after SIGTERM; stdout:\n" + text(out)
                    + "\nstderr:\n" + text(err));
        }
        outReader.join();
        errReader.join();
        return process.exitValue();
    }

    String out() {
        return text(out);
    }

    String err() {
        return text(err);
    }

    private static String text(List<String> lines) {
        synchronized (lines) {
            return String.join("\n", lines) + "\n";
        }
    }
}
