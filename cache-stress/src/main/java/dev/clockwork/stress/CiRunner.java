package dev.clockwork.stress;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;
import org.openjdk.jcstress.infra.Status;
import org.openjdk.jcstress.infra.collectors.DiskReadCollector;
import org.openjdk.jcstress.infra.collectors.InProcessCollector;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.grading.ReportUtils;

/**
 * Runs jcstress like {@code java -jar jcstress.jar}, then grades the run's result file once more
 * and prints one line per test (samples, distinct outcomes, verdict), so that a CI log shows how
 * much each race was exercised. Exits 1 if any test observed a {@code FORBIDDEN} outcome, erred
 * (exception in a test VM, pre-test check, timeout, VM crash, API mismatch) or produced no
 * samples, and also if no test ran at all; else 0.
 *
 * <p>jcstress 0.16 alone exits 1 on forbidden outcomes and test errors (its
 * {@code ExceptionReportPrinter} throws an {@code AssertionError} out of {@code main}), but exits
 * 0 when {@code -t} matches no test ("FATAL: No matching tests.") or when a test was skipped for
 * an API mismatch: a mistyped selection would pass CI silently.
 *
 * <p>Used by the {@code jcstress} profile of this module's pom (see README.md); takes exactly
 * jcstress's own options.
 */
public final class CiRunner {
    /** Lines of failure detail printed per failed test (the full reports are in results/). */
    private static final int MAX_LINES = 20;

    private CiRunner() {
    }

    public static void main(String[] args) throws Exception {
        Options opts = new Options(args);
        if (!opts.parse()) {
            System.exit(2);
        }
        JCStress jcstress = new JCStress(opts);
        if (opts.shouldList()) {
            jcstress.getTests().forEach(System.out::println);
            return;
        }
        boolean jcstressFailed = false;
        if (!opts.shouldParse()) {
            try {
                jcstress.run();
            } catch (AssertionError failures) {
                // jcstress's own verdict: "TEST FAILURES: ..." (already printed above it)
                System.out.println(failures.getMessage());
                jcstressFailed = true;
            }
        }
        int status = verdict(opts.getResultFile(), System.out);
        System.exit(jcstressFailed ? 1 : status);
    }

    /** The results in a jcstress result file, all configurations of a test merged, by name. */
    static List<TestResult> readMerged(String resultFile) throws IOException {
        InProcessCollector collector = new InProcessCollector();
        try {
            DiskReadCollector reader = new DiskReadCollector(resultFile, collector);
            try {
                reader.dump();
            } finally {
                reader.close();
            }
        } catch (ClassNotFoundException e) {
            throw new IOException(e);
        }
        List<TestResult> tests = new ArrayList<>(
                ReportUtils.mergedByName(collector.getTestResults()));
        tests.sort(Comparator.comparing(TestResult::getName));
        return tests;
    }

    /** Grades the results in {@code resultFile}; returns the exit status (0: all passed). */
    static int verdict(String resultFile, PrintStream out) {
        List<TestResult> tests;
        try {
            tests = readMerged(resultFile);
        } catch (IOException e) {
            out.println("JCSTRESS CI: FAILED, cannot read the results (" + resultFile + "): " + e);
            return 1;
        }
        int failed = 0;
        out.println();
        out.println("JCSTRESS CI SUMMARY (all configurations merged):");
        out.printf("  %-60s %12s %8s  %s%n", "test", "samples", "results", "verdict");
        for (TestResult t : tests) {
            String verdict;
            if (t.status() != Status.NORMAL) {
                verdict = "ERROR (" + t.status() + ")";
            } else if (!t.grading().isPassed) {
                verdict = "FAILED (forbidden outcome)";
            } else if (t.getTotalCount() == 0) {
                verdict = "FAILED (no samples)";
            } else {
                verdict = t.grading().hasInteresting ? "OK (interesting)" : "OK";
            }
            if (!verdict.startsWith("OK")) {
                failed++;
            }
            out.printf("  %-60s %12d %8d  %s%n", t.getName().replace("dev.clockwork.stress.", ""),
                    t.getTotalCount(), t.getStateKeys().size(), verdict);
            if (!verdict.startsWith("OK")) {
                // Merged over configurations, so the same lines repeat: print each once.
                Set<String> lines = new LinkedHashSet<>(t.grading().failureMessages);
                lines.addAll(t.getMessages());
                lines.stream().limit(MAX_LINES).forEach(line -> out.println("      " + line));
            }
        }
        if (tests.isEmpty()) {
            out.println("JCSTRESS CI: FAILED, no test ran (check -t and the VM probes above)");
            return 1;
        }
        out.println(failed == 0
                ? "JCSTRESS CI: PASSED, " + tests.size() + " tests"
                : "JCSTRESS CI: FAILED, " + failed + " of " + tests.size() + " tests");
        return failed == 0 ? 0 : 1;
    }
}
