package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The docs name only what exists: every class and {@code Class.member} a page names in backticks
 * is in the sources, and every relative link points at a file of the checkout.
 *
 * <p>Pages: {@code README.md}, {@code CHANGELOG.md} and {@code docs/*.md} (not
 * {@code docs/results/} nor {@code docs/charts/}, which hold raw and generated output). Fenced
 * code blocks are skipped (shell commands, Java to paste); only inline code spans ({@code `...`})
 * are read.
 *
 * <p>The rule for a code span: it is checked when its whole text is a name, {@code Name},
 * {@code Name.member} or {@code Name.Nested.member}, optionally followed by an argument list
 * ({@code Cache.get(key0, key1)}), where {@code Name} starts with an upper-case letter and holds a
 * lower-case one (so {@code MAX_USAGE}, jcstress outcomes such as {@code K1_V0} and flags are not
 * names), nor are file names ({@code QuickStart.java}). {@code Name} must be a type (top-level
 * or nested) declared in some module's {@code src/main} or {@code src/test}, or a JDK type; each
 * {@code .member} must be a method, field, enum constant, record component or nested type declared
 * in the type before it or in one of its project supertypes (for JDK types: public, by reflection),
 * or a JFR event's name ({@code @Name}). Not checked: a span right after the name of another
 * project ({@link #FOREIGN}: {@code RocksDB's `LRUHandle`}) and the few {@link #OUTSIDE} words.
 */
class DesignMapTest {
    private static final Path ROOT = Path.of("..");

    /**
     * Other projects' types the pages name without their owner right before them (see
     * {@link #FOREIGN}), and words that merely look like class names.
     */
    private static final Set<String> OUTSIDE = Set.of(
            "LRUHandle", "OffsetableCacheKey", // RocksDB
            "CaffeineCacheMetrics", "MeterFilter", // Micrometer
            "NaN");

    /**
     * A code span right after one of these (on its line or at the end of the line before) names
     * another project's code ({@code RocksDB's `LRUHandle`}, {@code a Micrometer
     * `CacheMeterBinder`}) and is not checked.
     */
    private static final Pattern FOREIGN = Pattern.compile(
            "\\b(RocksDB|Caffeine|OHC|Micrometer|JMH|jcstress|Agrona|JCTools)('s)?\\s+$");

    private static final List<String> JDK_PACKAGES = List.of("java.lang", "java.util",
            "java.util.concurrent", "java.util.concurrent.atomic", "java.util.concurrent.locks",
            "java.util.function", "java.lang.foreign", "java.lang.invoke", "java.lang.ref",
            "java.nio", "java.io", "java.math", "java.security", "java.time", "jdk.jfr",
            "jdk.jfr.consumer");

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`\n]+)`");
    private static final Pattern NAME = Pattern.compile(
            "([A-Z][A-Za-z0-9_]*)((?:\\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\\(.*\\))?");
    private static final Pattern FILE_NAME = Pattern.compile(
            ".*\\.(java|md|json|jsonl|log|txt|csv|png|sh|xml|jar|gz|xz|properties)");
    private static final Pattern LINK = Pattern.compile(
            "!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)|^\\[[^\\]]+\\]:\\s*(\\S+)");

    private static SourceIndex sources;

    @BeforeAll
    static void indexSources() {
        sources = SourceIndex.of(ROOT);
        assertTrue(sources.hasType("DesignMapTest"), "the index finds this test's own class");
    }

    @Test
    void everyNamedClassAndMemberExists() throws IOException {
        List<String> stale = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = outsideFences(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher span = CODE_SPAN.matcher(lines.get(i));
                while (span.find()) {
                    String token = span.group(1).trim();
                    String before = (i > 0 ? lines.get(i - 1) + " " : "")
                            + lines.get(i).substring(0, span.start());
                    if (!FOREIGN.matcher(before).find() && !resolves(token)) {
                        stale.add(ROOT.relativize(page) + ":" + (i + 1) + ": `" + token + "`");
                    }
                }
            }
        }
        assertTrue(stale.isEmpty(), "names in the docs that the sources do not declare:\n"
                + String.join("\n", stale));
    }

    @Test
    void theRuleChecksNamesAndMembersAndLeavesOtherSpansAlone() {
        assertTrue(resolves("ClockProtocol.tryReference"), "a method");
        assertTrue(resolves("AutoHccGrowVsLookup.Moved"), "a nested class");
        assertTrue(resolves("Cache.get(key0, key1, dst, offset)"), "a call");
        assertTrue(resolves("Long.MAX_VALUE") && resolves("VarHandle"), "the JDK's");
        assertTrue(resolves("MAX_USAGE") && resolves("K1_V0") && resolves("QuickStart.java")
                && resolves("-Xmx<size>"), "not names");
        assertFalse(resolves("ClockShard.lookupToKeep"), "a member no longer declared");
        assertFalse(resolves("NoSuchClass"), "a class no module declares");
        assertFalse(resolves("Long.NO_SUCH_FIELD"), "a JDK type's missing member");
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            List<String> lines = outsideFences(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher link = LINK.matcher(lines.get(i));
                while (link.find()) {
                    String target = link.group(1) != null ? link.group(1) : link.group(2);
                    String path = target.replaceAll("[#?].*", "");
                    if (target.matches("^[a-z][a-z0-9+.-]*:.*") || path.isEmpty()) {
                        continue; // a URL, a mail address or an anchor in the same page
                    }
                    checked++;
                    if (!Files.exists(page.getParent().resolve(path))) {
                        broken.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + target);
                    }
                }
            }
        }
        assertTrue(checked > 20, "relative links found: " + checked);
        assertTrue(broken.isEmpty(), "relative links to no file:\n" + String.join("\n", broken));
    }

    /** A code span resolves when it is not a name (see the class comment) or names what exists. */
    static boolean resolves(String token) {
        Matcher m = NAME.matcher(token);
        if (!m.matches() || !m.group(1).matches(".*[a-z].*")
                || FILE_NAME.matcher(token).matches()) {
            return true;
        }
        String type = m.group(1);
        String[] members = m.group(2).isEmpty() ? new String[0] : m.group(2).substring(1).split(
                "\\.");
        if (sources.hasType(type)) {
            for (String member : members) {
                if (!sources.hasMember(type, member)) {
                    return false;
                }
                type = member;
                if (!sources.hasType(type)) {
                    return true; // a method or field: what follows it is not checked
                }
            }
            return true;
        }
        if (OUTSIDE.contains(type)) {
            return true;
        }
        Class<?> jdk = jdkClass(type);
        return jdk != null && (members.length == 0 || jdkHasMember(jdk, members[0]));
    }

    private static Class<?> jdkClass(String simpleName) {
        for (String pkg : JDK_PACKAGES) {
            try {
                return Class.forName(pkg + "." + simpleName, false,
                        DesignMapTest.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                // not in this package
            }
        }
        return null;
    }

    private static boolean jdkHasMember(Class<?> type, String member) {
        for (Method method : type.getMethods()) {
            if (method.getName().equals(member)) {
                return true;
            }
        }
        for (Field field : type.getFields()) {
            if (field.getName().equals(member)) {
                return true;
            }
        }
        for (Class<?> nested : type.getClasses()) {
            if (nested.getSimpleName().equals(member)) {
                return true;
            }
        }
        return false;
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        pages.add(ROOT.resolve("CHANGELOG.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The page's lines, those inside fenced code blocks replaced by empty ones. */
    private static List<String> outsideFences(Path page) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            boolean fence = FENCE.matcher(line).find();
            lines.add(fenced || fence ? "" : line);
            fenced ^= fence;
        }
        return lines;
    }
}
