package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every place the docs give the library's version gives this build's ({@code project.version},
 * passed by surefire), and a release is in the changelog.
 *
 * <p>Places: the library's jar names ({@code cache-offheap-0.1.0.jar}), Maven coordinates (an
 * {@code <artifactId>} of a library module followed by its {@code <version>}) and Gradle ones
 * ({@code dev.clockwork:cache-offheap:0.1.0}), in {@code README.md} and {@code docs/*.md} (not
 * {@code docs/results/}, which keeps the output of past runs as it was). For a release (a version
 * that is not a {@code -SNAPSHOT}): {@code CHANGELOG.md}'s first version section is this version's,
 * dated the day of {@code project.build.outputTimestamp}, the time stamp its jars carry.
 */
class VersionTest {
    private static final Path ROOT = Path.of("..");
    private static final String MODULE = "cache-(?:core|offheap|metrics)";
    private static final Pattern JAR = Pattern.compile(
            "\\b" + MODULE + "-(\\d[\\w.-]*?)(?:-sources|-javadoc)?\\.jar\\b");
    private static final Pattern MAVEN = Pattern.compile(
            "<artifactId>" + MODULE + "</artifactId>\\s*<version>([^<]*)</version>");
    private static final Pattern GRADLE = Pattern.compile(
            "dev\\.clockwork:" + MODULE + ":([^\"'\\s)]+)");
    private static final Pattern RELEASE = Pattern.compile(
            "^## \\[(\\d[^]]*)] - (\\d{4}-\\d{2}-\\d{2})$", Pattern.MULTILINE);

    private static String property(String name) {
        String value = System.getProperty(name);
        assertTrue(value != null && !value.isBlank(), "surefire passes " + name);
        return value;
    }

    @Test
    void docsGiveThisBuildsVersion() throws IOException {
        String version = property("clockwork.version");
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> wrong = new ArrayList<>();
        int found = 0;
        for (Path page : pages) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            for (Pattern place : List.of(JAR, MAVEN, GRADLE)) {
                Matcher m = place.matcher(text);
                while (m.find()) {
                    found++;
                    if (!m.group(1).equals(version)) {
                        wrong.add(page.getFileName() + ": " + m.group());
                    }
                }
            }
        }
        assertTrue(found >= 4, "README's jar names and coordinates found: " + found);
        assertEquals(List.of(), wrong, "versions other than " + version);
    }

    @Test
    void aReleaseIsTheChangelogsLatest() throws IOException {
        String version = property("clockwork.version");
        String timestamp = property("clockwork.outputTimestamp");
        String changelog = Files.readString(ROOT.resolve("CHANGELOG.md"), StandardCharsets.UTF_8);
        assertTrue(changelog.contains("\n## [Unreleased]\n"), "an Unreleased section");
        Matcher latest = RELEASE.matcher(changelog);
        assertTrue(latest.find(), "a released version in CHANGELOG.md");
        if (!version.endsWith("-SNAPSHOT")) {
            assertEquals(version, latest.group(1), "CHANGELOG.md's latest release");
            assertEquals(timestamp.substring(0, 10), latest.group(2),
                    "its date, against project.build.outputTimestamp " + timestamp);
        }
    }
}
