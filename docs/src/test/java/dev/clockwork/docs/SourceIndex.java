package dev.clockwork.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The types declared in every module's {@code src/main/java} and {@code src/test/java}, by simple
 * name, each with the names of the members it declares directly: methods, fields, enum constants,
 * record components and nested types; and the names of JFR events ({@code @Name}), as types.
 * Read with regular expressions over the source with comments and literals blanked out (offsets
 * kept), not with a compiler: a member is a name at the type's own brace depth that follows a type
 * (a method or field declaration) or starts an enum constant.
 */
final class SourceIndex {

    private static final Pattern TYPE = Pattern.compile(
            "(?<![.\\w])(class|interface|enum|record)\\s+([A-Z]\\w*)");
    private static final Pattern MEMBER = Pattern.compile(
            "(?<=[\\w>\\]]\\s{1,40})([A-Za-z_$][\\w$]*)\\s*(?=[(=;,])");
    private static final Pattern ENUM_CONSTANT = Pattern.compile(
            "(?:^|[{,])\\s*(?:@\\w+\\s*)*([A-Z][A-Z0-9_]*)\\s*(?=[(,;{}]|$)");
    private static final Pattern EVENT_NAME = Pattern.compile(
            "@Name\\(\"dev\\.clockwork\\.([A-Z]\\w*)\"\\)");
    private static final Pattern SUPER = Pattern.compile("\\b(?:extends|implements)\\s+([^{]*)");

    /** One declared type: its members and the simple names of its supertypes. */
    record Type(String name, Set<String> members, List<String> supertypes) {
    }

    private final Map<String, List<Type>> types = new HashMap<>();

    /** Indexes every {@code .java} file under {@code <module>/src/{main,test}/java} of root. */
    static SourceIndex of(Path root) {
        SourceIndex index = new SourceIndex();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(Files::isDirectory).sorted().toList()) {
                for (String set : List.of("main", "test")) {
                    index.addTree(module.resolve("src").resolve(set).resolve("java"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return index;
    }

    boolean hasType(String simpleName) {
        return types.containsKey(simpleName);
    }

    /** Whether any type named {@code simpleName}, or a project supertype of it, has the member. */
    boolean hasMember(String simpleName, String member) {
        return hasMember(simpleName, member, new HashSet<>());
    }

    private boolean hasMember(String simpleName, String member, Set<String> seen) {
        if (!seen.add(simpleName)) {
            return false;
        }
        for (Type type : types.getOrDefault(simpleName, List.of())) {
            if (type.members().contains(member)) {
                return true;
            }
            for (String supertype : type.supertypes()) {
                if (hasMember(supertype, member, seen)) {
                    return true;
                }
            }
        }
        return false;
    }

    private void addTree(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                String source = Files.readString(file, StandardCharsets.UTF_8);
                addEventNames(source);
                addFile(blankCommentsAndLiterals(source));
            }
        }
    }

    private void addFile(String code) {
        Matcher m = TYPE.matcher(code);
        while (m.find()) {
            int open = code.indexOf('{', m.end());
            if (open < 0) {
                continue;
            }
            int close = matchingBrace(code, open);
            String header = code.substring(m.end(), open);
            Set<String> members = new HashSet<>();
            String ownLevel = ownLevel(code, open, close);
            Matcher member = MEMBER.matcher(ownLevel);
            while (member.find()) {
                members.add(member.group(1));
            }
            if (m.group(1).equals("enum")) {
                int end = ownLevel.indexOf(';');
                Matcher constant = ENUM_CONSTANT.matcher(
                        end < 0 ? ownLevel : ownLevel.substring(0, end + 1));
                while (constant.find()) {
                    members.add(constant.group(1));
                }
            }
            if (m.group(1).equals("record")) {
                addRecordComponents(header, members);
            }
            Matcher nested = TYPE.matcher(ownLevel);
            while (nested.find()) {
                members.add(nested.group(2));
            }
            types.computeIfAbsent(m.group(2), k -> new ArrayList<>())
                    .add(new Type(m.group(2), members, supertypes(header)));
        }
    }

    /** A JFR event's name ({@code @Name("dev.clockwork.AdmissionReject")}) counts as a type. */
    private void addEventNames(String source) {
        Matcher m = EVENT_NAME.matcher(source);
        while (m.find()) {
            types.computeIfAbsent(m.group(1), k -> new ArrayList<>())
                    .add(new Type(m.group(1), Set.of(), List.of()));
        }
    }

    private static void addRecordComponents(String header, Set<String> members) {
        int open = header.indexOf('(');
        int close = header.lastIndexOf(')');
        if (open < 0 || close < open) {
            return;
        }
        String components = header.substring(open + 1, close).replaceAll("<[^<>]*>", "");
        for (String component : components.split(",")) {
            String[] words = component.trim().split("\\s+");
            members.add(words[words.length - 1]);
        }
    }

    private static List<String> supertypes(String header) {
        List<String> names = new ArrayList<>();
        Matcher m = SUPER.matcher(header.replaceAll("<[^<>]*>", "").replaceAll("<[^<>]*>", ""));
        while (m.find()) {
            for (String part : m.group(1).split("[,\\s]+")) {
                String name = part.substring(part.lastIndexOf('.') + 1);
                if (!name.isEmpty() && Character.isUpperCase(name.charAt(0))) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /** The body between the braces with every nested brace block blanked. */
    private static String ownLevel(String code, int open, int close) {
        StringBuilder own = new StringBuilder(close - open);
        int depth = 0;
        for (int i = open + 1; i < close; i++) {
            char c = code.charAt(i);
            if (c == '{') {
                depth++;
            }
            own.append(depth == 0 || c == '\n' ? c : ' ');
            if (c == '}') {
                depth--;
            }
        }
        return own.toString();
    }

    private static int matchingBrace(String code, int open) {
        int depth = 0;
        for (int i = open; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        return code.length();
    }

    /** Comments, string, text-block and char literals replaced by spaces (newlines kept). */
    static String blankCommentsAndLiterals(String source) {
        StringBuilder out = new StringBuilder(source);
        int i = 0;
        int n = source.length();
        while (i < n) {
            int end;
            if (source.startsWith("//", i)) {
                end = source.indexOf('\n', i);
                end = end < 0 ? n : end;
            } else if (source.startsWith("/*", i)) {
                end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end + 3;
            } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
                end = endOfLiteral(source, i);
            } else {
                i++;
                continue;
            }
            for (int j = i; j < end; j++) {
                if (out.charAt(j) != '\n') {
                    out.setCharAt(j, ' ');
                }
            }
            i = end;
        }
        return out.toString();
    }

    private static int endOfLiteral(String source, int start) {
        char quote = source.charAt(start);
        for (int i = start + 1; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == quote || c == '\n') {
                return i + 1;
            }
        }
        return source.length();
    }
}
