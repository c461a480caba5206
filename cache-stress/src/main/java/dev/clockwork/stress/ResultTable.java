package dev.clockwork.stress;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.infra.Status;
import org.openjdk.jcstress.infra.collectors.TestResult;
import org.openjdk.jcstress.infra.grading.GradingResult;

/**
 * Prints a jcstress result file as a Markdown table for {@code docs/}: per test (all
 * configurations merged), every outcome that was observed with its samples and grade, and the
 * test's verdict. Forbidden outcomes that were not observed are summed up per test as "none".
 *
 * <pre>
 * java -cp cache-stress/target/jcstress.jar dev.clockwork.stress.ResultTable \
 *     jcstress-results-*.bin.gz
 * </pre>
 */
public final class ResultTable {
    private ResultTable() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ResultTable <jcstress-results-*.bin.gz>");
            System.exit(2);
        }
        List<TestResult> tests = CiRunner.readMerged(args[0]);
        System.out.println("| Test | Outcome | Samples | Grade |");
        System.out.println("|---|---|---:|---|");
        long total = 0;
        int passed = 0;
        for (TestResult t : tests) {
            String name = t.getName().replace("dev.clockwork.stress.", "");
            var grading = t.grading();
            boolean first = true;
            for (Map.Entry<String, GradingResult> e : grading.gradingResults.entrySet()) {
                GradingResult g = e.getValue();
                if (g.count == 0) {
                    continue;
                }
                System.out.printf("| %s | `%s` | %,d | %s |%n", first ? "**" + name + "**" : "",
                        e.getKey(), g.count, grade(g.expect));
                first = false;
            }
            boolean ok = t.status() == Status.NORMAL && grading.isPassed && t.getTotalCount() > 0;
            System.out.printf("| %s | forbidden outcomes | %s | %s |%n",
                    first ? "**" + name + "**" : "", ok ? "none" : "**SEE LOG**",
                    ok ? "passed" : "**FAILED**");
            total += t.getTotalCount();
            passed += ok ? 1 : 0;
        }
        System.out.printf("%n%d of %d tests passed, %,d samples in all.%n", passed, tests.size(),
                total);
    }

    private static String grade(Expect expect) {
        return switch (expect) {
            case ACCEPTABLE -> "acceptable";
            case ACCEPTABLE_INTERESTING -> "interesting";
            case FORBIDDEN -> "**forbidden**";
            default -> expect.name().toLowerCase();
        };
    }
}
