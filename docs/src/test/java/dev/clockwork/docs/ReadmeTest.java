package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start works as pasted: its Java block is saved as {@code QuickStart.java} and
 * run with the README's own command (the JDK's source launcher, on the library's two jars or class
 * directories), and prints what the README says it prints; the coordinates and jar names the
 * README gives carry this build's version.
 */
class ReadmeTest {
    private static final Path README = Path.of("..", "README.md");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);
    private static final long RUN_SECONDS = 120;

    private static String readme() throws IOException {
        return Files.readString(README, StandardCharsets.UTF_8);
    }

    private static String quickStartSection(String readme) {
        int start = readme.indexOf("## Quick start");
        int end = readme.indexOf("\n## ", start + 1);
        assertTrue(start >= 0 && end > start, "README has a Quick start section");
        return readme.substring(start, end);
    }

    @Test
    void quickStartCompilesAndRunsAsPasted(@TempDir Path dir)
            throws Exception {
        String section = quickStartSection(readme());
        Matcher block = JAVA_BLOCK.matcher(section);
        assertTrue(block.find(), "a java block in the Quick start");
        Path source = dir.resolve("QuickStart.java");
        Files.writeString(source, block.group(1), StandardCharsets.UTF_8);

        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", libraryClassPath(),
                source.toString()));
        Process run = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(RUN_SECONDS, TimeUnit.SECONDS), "QuickStart did not finish");
        assertEquals(0, run.exitValue(), output);
        assertEquals(List.of("the bytes of block 7:4096", "25 bytes copied"),
                output.lines().toList(), "what QuickStart printed");
        assertTrue(section.contains("It prints `the bytes of block 7:4096` and `25 bytes copied`"),
                "the README says what it prints");
    }

    /** cache-core and cache-offheap as this build made them: jars or class directories. */
    private static String libraryClassPath() {
        List<String> library = Arrays.stream(
                        System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.contains("cache-core") || e.contains("cache-offheap"))
                .toList();
        assertEquals(2, library.size(), "cache-core and cache-offheap on the test class path: "
                + library);
        return String.join(File.pathSeparator, library);
    }

    @Test
    void coordinatesAndJarNamesCarryThisVersion() throws IOException {
        String version = System.getProperty("clockwork.version");
        assertTrue(version != null && !version.isBlank(), "surefire passes clockwork.version");
        String readme = readme();
        assertTrue(readme.contains("<artifactId>cache-offheap</artifactId>\n  <version>" + version
                + "</version>"), "Maven snippet with version " + version);
        assertTrue(readme.contains("implementation(\"dev.clockwork:cache-offheap:" + version
                + "\")"), "Gradle snippet with version " + version);
        assertTrue(readme.contains("cache-core/target/cache-core-" + version + ".jar:"
                + "cache-offheap/target/cache-offheap-" + version + ".jar"),
                "the run command's jar names");
    }
}
