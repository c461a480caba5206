package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The library's files stay small enough to read: at most {@value #MAX_CODE_LINES} lines of code
 * in a source file of cache-core or cache-offheap, counting neither blank lines nor comment
 * lines (a line that starts with {@code //}, {@code /*} or {@code *}). Method length (at most 60
 * lines) is checkstyle's {@code MethodLength}, in the build's style gate.
 */
class SourceSizeTest {
    static final int MAX_CODE_LINES = 350;
    private static final List<Path> ROOTS =
            List.of(Path.of("src/main/java"), Path.of("../cache-core/src/main/java"));

    @Test
    void noLibraryFileHasMoreThan350LinesOfCode() throws IOException {
        List<String> over = new ArrayList<>();
        int files = 0;
        for (Path root : ROOTS) {
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path f : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                    files++;
                    long code = codeLines(Files.readAllLines(f));
                    if (code > MAX_CODE_LINES) {
                        over.add(f + ": " + code + " lines of code");
                    }
                }
            }
        }
        assertTrue(files > 50, "found the library's sources (" + files + " files)");
        assertTrue(over.isEmpty(), "files over " + MAX_CODE_LINES + " lines of code (split them"
                + " by concept):\n" + String.join("\n", over));
    }

    static long codeLines(List<String> lines) {
        return lines.stream().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("//") && !l.startsWith("/*")
                        && !l.startsWith("*"))
                .count();
    }
}
