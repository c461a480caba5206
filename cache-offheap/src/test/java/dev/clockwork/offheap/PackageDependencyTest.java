package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Dependencies run one way: the API package ({@code dev.clockwork.offheap}) uses the internal
 * ones ({@code dev.clockwork.offheap.<anything>}), never the reverse, javadoc links included. Read
 * from the sources (the tests run in the module's directory): an internal file offends if it
 * imports a class of the API package, names one fully qualified (code or javadoc), or links one
 * by its simple name in javadoc ({@code {@link X}}, {@code @see X}) without importing an X of its
 * own. A subpackage such as {@code dev.clockwork.offheap.clock} is not the API package: a
 * reference counts only where the name after {@code dev.clockwork.offheap.} starts with a capital
 * (a class) or is {@code *} (a wildcard import of the package).
 */
class PackageDependencyTest {
    private static final Path ROOT = Path.of("src/main/java/dev/clockwork/offheap");
    /** {@code dev.clockwork.offheap.X} with X a class, or a wildcard import of the package. */
    private static final Pattern QUALIFIED =
            Pattern.compile("\\bdev\\.clockwork\\.offheap\\.([A-Z]\\w*|\\*)");
    private static final Pattern LINK =
            Pattern.compile("(?:\\{@link(?:plain)?|@see)\\s+([A-Z]\\w*)");
    private static final Pattern IMPORT =
            Pattern.compile("^import\\s+(?:static\\s+)?[\\w.]+\\.([A-Z]\\w*)(?:\\.[\\w*]+)*;");

    @Test
    void internalPackagesDoNotDependOnTheApiPackage() throws IOException {
        Set<String> apiClasses = classesOf(ROOT);
        List<String> offences = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.getParent().equals(ROOT))
                    .sorted()
                    .forEach(f -> offences.addAll(offencesIn(f, apiClasses)));
        }
        assertTrue(offences.isEmpty(), "internal files that import or name a class of the API"
                + " package:\n" + String.join("\n", offences));
    }

    /** The top-level classes of the package in {@code dir} (its own files, not subpackages'). */
    private static Set<String> classesOf(Path dir) throws IOException {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".java") && !n.equals("package-info.java"))
                    .forEach(n -> names.add(n.substring(0, n.length() - ".java".length())));
        }
        return names;
    }

    private static List<String> offencesIn(Path file, Set<String> apiClasses) {
        List<String> lines;
        Set<String> ownPackage;
        try {
            lines = Files.readAllLines(file);
            ownPackage = classesOf(file.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> imported = new TreeSet<>();
        for (String line : lines) {
            Matcher m = IMPORT.matcher(line);
            if (m.find() && !QUALIFIED.matcher(line).find()) {
                imported.add(m.group(1));
            }
        }
        List<String> offences = new ArrayList<>();
        String where = ROOT.relativize(file).toString();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher q = QUALIFIED.matcher(line);
            if (q.find()) {
                offences.add(where + ":" + (i + 1) + ": " + line.strip());
                continue;
            }
            Matcher link = LINK.matcher(line);
            while (link.find()) {
                String name = link.group(1);
                if (apiClasses.contains(name) && !ownPackage.contains(name)
                        && !imported.contains(name)) {
                    offences.add(where + ":" + (i + 1) + ": " + line.strip());
                    break;
                }
            }
        }
        return offences;
    }
}
