package dev.clockwork.cli.bench;

import dev.clockwork.cli.caches.Targets;
import dev.clockwork.cli.common.Program;
import dev.clockwork.cli.common.RunStop;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code bench} run in a JVM of its own, for {@code -compare}: the same java, JVM options
 * and class path as this one, but for the heap and collector options, which are the entry's
 * ({@link Targets.CompareEntry#jvmOptions}). The child prints its human report and then its one
 * JSON line on
 * its standard output ({@code -json -report_on_stdout}): the report is copied to {@code report}
 * as it comes, the JSON line parsed into the result; its standard error (progress lines,
 * warnings) is copied to {@code progress}.
 *
 * <p>Why a fork: in one JVM the second type's run would find the shared call sites (the
 * {@code Cache} interface calls of the workload) already compiled for the first type, then
 * deoptimized and recompiled for two, so the order of the types would decide part of the
 * ratios, as it would in a JMH benchmark without forks.
 */
final class ForkedRun {
    private ForkedRun() {
    }

    /**
     * Runs the child to its end. A stop ({@code stop}) is passed on to the child as SIGTERM,
     * on which it reports what it did, with its JSON line, and exits with 143.
     */
    static BenchResult run(List<String> jvmOptions, List<String> args, RunStop stop,
                           PrintWriter report, PrintWriter progress)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!Targets.CompareEntry.replaced(option)) {
                command.add(option);
            }
        }
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Program.MAIN_CLASS);
        command.addAll(args);
        Process child = new ProcessBuilder(command).start();
        child.getOutputStream().close();
        // SIGTERM through the handle: Process.destroy would also close the streams we read
        stop.whenRequested(() -> child.toHandle().destroy());
        Thread copier = Thread.ofPlatform().daemon().start(() -> copy(child, progress));
        String json = null;
        try (BufferedReader stdout = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = stdout.readLine(); line != null; line = stdout.readLine()) {
                if (line.startsWith("{")) {
                    json = line;
                } else {
                    report.println(line);
                }
            }
        }
        report.flush();
        int rc = child.waitFor();
        copier.join();
        if (json == null || rc != 0 && !stop.requested()) {
            throw new IllegalStateException("exit code " + rc
                    + (json == null ? ", no JSON result" : ""));
        }
        return BenchResult.fromJson(json);
    }

    /** Copies the child's standard error to {@code progress}, line by line. */
    private static void copy(Process child, PrintWriter progress) {
        try (BufferedReader stderr = new BufferedReader(
                new InputStreamReader(child.getErrorStream(), StandardCharsets.UTF_8))) {
            for (String line = stderr.readLine(); line != null; line = stderr.readLine()) {
                progress.println(line);
            }
            progress.flush();
        } catch (IOException e) {
            progress.println("(standard error of the child run cut short: " + e + ")");
        }
    }
}
