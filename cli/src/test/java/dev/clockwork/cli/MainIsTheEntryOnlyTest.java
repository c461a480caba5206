package dev.clockwork.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cli.common.Program;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The cli's dependencies run one way: {@code Main} registers the tools, and no tool, nor anything
 * else in the cli, reaches back into {@code Main}. What a tool needs of the program (its version,
 * the class a child JVM starts) is in {@link Program}.
 */
class MainIsTheEntryOnlyTest {
    private static final Path SOURCES = Path.of("src/main/java");
    /** The name Main as code, not inside a comment or a string literal. */
    private static final Pattern MAIN = Pattern.compile("\\bMain\\b");
    private static final Pattern COMMENTS_AND_STRINGS = Pattern.compile(
            "/\\*.*?\\*/|//[^\\n]*"
                    + "|\"\"\".*?\"\"\""
                    + "|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\])'",
            Pattern.DOTALL);

    @Test
    void noSourceButMainReferencesMain() throws IOException {
        List<Path> sources;
        try (Stream<Path> files = Files.walk(SOURCES)) {
            sources = files.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertTrue(sources.size() > 50,
                "the cli's sources are read from " + SOURCES.toAbsolutePath());
        List<String> offenders = sources.stream()
                .filter(p -> !p.getFileName().toString().equals("Main.java"))
                .filter(p -> MAIN.matcher(code(p)).find())
                .map(p -> SOURCES.relativize(p).toString())
                .toList();
        assertEquals(List.of(), offenders, "sources that reference Main (import or qualified use)");
    }

    @Test
    void theForkedEntryPointIsMain() {
        assertEquals(Main.class.getName(), Program.MAIN_CLASS);
    }

    /** The file's text without comments and string literals. */
    private static String code(Path source) {
        try {
            return COMMENTS_AND_STRINGS.matcher(Files.readString(source)).replaceAll(" ");
        } catch (IOException e) {
            throw new AssertionError(source + ": " + e, e);
        }
    }
}
