package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start works as pasted: its Java block is saved as {@code QuickStart.java} and
 * its shell block run by bash as it stands, but for two paths (the launcher's, as the block runs
 * in a directory of its own, and the library's two jars, which this build may have as class
 * directories), and it prints what the README says it prints; the coordinates and jar names the
 * README gives carry this build's version.
 */
class ReadmeTest {
    private static final Path README = Path.of("..", "README.md");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);
    private static final Pattern SH_BLOCK = Pattern.compile("```sh\n(.*?)```", Pattern.DOTALL);
    private static final String JARS = "cache-core/target/cache-core-%1$s.jar:"
            + "cache-offheap/target/cache-offheap-%1$s.jar";
    private static final long RUN_SECONDS = 120;

    private static String readme() throws IOException {
        return Files.readString(README, StandardCharsets.UTF_8);
    }

    private static String quickStartSection(String readme) {
        return section(readme, "## Quick start");
    }

    @Test
    void quickStartCompilesAndRunsAsPasted(@TempDir Path dir)
            throws Exception {
        String section = quickStartSection(readme());
        Matcher block = JAVA_BLOCK.matcher(section);
        assertTrue(block.find(), "a java block in the Quick start");
        Files.writeString(dir.resolve("QuickStart.java"), block.group(1), StandardCharsets.UTF_8);
        Matcher run = SH_BLOCK.matcher(section);
        assertTrue(run.find(block.end()), "a sh block after the java block");
        String output = runScript(dir, run.group(1));
        assertEquals(List.of("the bytes of block 7:4096", "25 bytes copied"),
                output.lines().toList(), "what QuickStart printed");
        assertTrue(section.contains("It prints `the bytes of block 7:4096` and `25 bytes copied`"),
                "the README says what it prints");
    }

    /**
     * The README's block-cache example runs as the quick start does (its run command, with the
     * example's file for {@code QuickStart.java}) and prints what the README says it prints.
     */
    @Test
    void blockCacheExampleCompilesAndRunsAsPasted(@TempDir Path dir) throws Exception {
        String readme = readme();
        String section = section(readme, "## A storage engine's block cache");
        Matcher block = JAVA_BLOCK.matcher(section);
        assertTrue(block.find(), "a java block in the block-cache section");
        Files.writeString(dir.resolve("BlockCache.java"), block.group(1), StandardCharsets.UTF_8);
        Matcher run = SH_BLOCK.matcher(quickStartSection(readme));
        assertTrue(run.find(), "the quick start's run command");
        String output = runScript(dir, run.group(1).replace("QuickStart.java", "BlockCache.java"));
        assertEquals(List.of("1 disk read, 2 hits", "0 entries", "1 entry loaded"),
                output.lines().toList(), "what BlockCache printed");
        assertTrue(section.contains("It prints `1 disk read, 2 hits`, `0 entries` and"
                + " `1 entry loaded`"), "the README says what it prints");
    }

    private static String section(String readme, String heading) {
        int start = readme.indexOf(heading);
        int end = readme.indexOf("\n## ", start + 1);
        assertTrue(start >= 0 && end > start, "README has the section " + heading);
        return readme.substring(start, end);
    }

    /**
     * Runs a README run command in {@code dir}, its jar names and launcher made this build's,
     * and returns what it printed; it must finish in time and exit 0.
     */
    private static String runScript(Path dir, String command) throws Exception {
        String jars = String.format(JARS, System.getProperty("clockwork.version"));
        String launcher = Path.of("..", "clockwork").toAbsolutePath().normalize().toString();
        assertTrue(command.contains(jars) && command.contains("./clockwork "),
                "the run command names the jars and the launcher: " + command);
        String script = command.replace(jars, libraryClassPath())
                .replace("./clockwork ", launcher + " ");
        ProcessBuilder bash = new ProcessBuilder("bash", "-euo", "pipefail", "-c", script)
                .directory(dir.toFile()).redirectErrorStream(true);
        // A JDK 22+ for the launcher to find first: this test's own.
        bash.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = bash.start();
        String output = new String(process.getInputStream().readAllBytes(),
                StandardCharsets.UTF_8);
        assertTrue(process.waitFor(RUN_SECONDS, TimeUnit.SECONDS), "the example did not finish");
        assertEquals(0, process.exitValue(), output);
        return output;
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
