package dev.clockwork.docs;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Command line entry: {@code Charts <resultsDir> <outDir>} reads every JMH, clockwork bench,
 * scale and clockwork memory result file under {@code resultsDir} and writes PNG charts plus
 * {@code tables.md} (the same numbers as Markdown tables) into {@code outDir}.
 *
 * <p>Runs headless, so it works on build machines without a display.
 */
public final class Charts {

    private Charts() {
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the tool; returns the exit status (0 ok, 2 bad usage, 1 failure). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length != 2) {
            err.println("usage: Charts <resultsDir> <outDir>");
            return 2;
        }
        Path results = Path.of(args[0]);
        if (!Files.isDirectory(results)) {
            err.println("not a directory: " + results);
            return 2;
        }
        try {
            List<String> written = render(results, Path.of(args[1]), err::println);
            out.println("wrote " + written.size() + " charts and " + Report.TABLES + " to "
                    + args[1]);
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("failed: " + e);
            return 1;
        }
    }

    /** Scans, builds and writes; returns the PNG file names written, in table order. */
    static List<String> render(Path results, Path outDir,
            Consumer<String> note) throws IOException {
        Inputs inputs = ResultFiles.scan(results, note);
        List<Figure> figures = new ArrayList<>();
        figures.addAll(JmhFigures.build(inputs.jmh()));
        figures.addAll(BenchFigures.build(inputs.bench()));
        figures.addAll(MemoryFigures.build(inputs.memory()));
        figures.addAll(ScaleFigures.build(inputs.scale()));
        return Report.write(figures, outDir, note);
    }
}
