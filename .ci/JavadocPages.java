import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Reads javadoc jars as a user's IDE or browser shows them: every member detail on a class's page
 * (a {@code <section class="detail">}: constructor, method, field, enum constant) must carry a
 * description ({@code <div class="block">}), its own or one javadoc copied from an overridden
 * method. A member whose page shows a bare signature and "Specified by" is what javadoc writes when
 * it cannot see the sources of the method it would inherit from (cache-offheap's caches and
 * cache-core's Cache, until the javadoc build was given cache-core's sources).
 *
 * <p>Run by .ci/release-check with the JDK's source launcher:
 * {@code java .ci/JavadocPages.java a-javadoc.jar ...}; exits 1 and lists the bare members if any.
 */
public final class JavadocPages {
    private static final Pattern DETAIL = Pattern.compile(
            "<section class=\"detail\" id=\"([^\"]+)\">(.*?)</section>", Pattern.DOTALL);

    private JavadocPages() {
    }

    public static void main(String[] args) throws IOException {
        List<String> bare = new ArrayList<>();
        int details = 0;
        for (String jar : args) {
            try (ZipFile zip = new ZipFile(jar)) {
                for (ZipEntry entry : Collections.list(zip.entries())) {
                    if (!isClassPage(entry.getName())) {
                        continue;
                    }
                    String page = new String(zip.getInputStream(entry).readAllBytes(),
                            StandardCharsets.UTF_8);
                    Matcher detail = DETAIL.matcher(page);
                    while (detail.find()) {
                        details++;
                        if (!detail.group(2).contains("<div class=\"block\">")) {
                            bare.add(Path.of(jar).getFileName() + " " + entry.getName() + " "
                                    + detail.group(1));
                        }
                    }
                }
            }
        }
        if (details == 0) {
            System.err.println("JavadocPages: no member details found in " + List.of(args));
            System.exit(1);
        }
        bare.forEach(b -> System.err.println("no description: " + b));
        System.out.println("JavadocPages: " + details + " member details in " + args.length
                + " javadoc jars, " + bare.size() + " without a description");
        System.exit(bare.isEmpty() ? 0 : 1);
    }

    /** A class's page: under a package directory, not a package page nor a "Uses" page. */
    private static boolean isClassPage(String name) {
        String file = name.substring(name.lastIndexOf('/') + 1);
        return name.endsWith(".html") && name.indexOf('/') >= 0 && !name.contains("/class-use/")
                && !file.startsWith("package-") && !name.startsWith("src/")
                && !name.contains("/doc-files/") && Character.isUpperCase(file.charAt(0));
    }
}
