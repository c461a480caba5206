package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.source.doctree.DocCommentTree;
import com.sun.source.util.DocTrees;
import java.io.File;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.ModuleElement;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import javax.tools.DocumentationTool;
import javax.tools.ToolProvider;
import jdk.javadoc.doclet.Doclet;
import jdk.javadoc.doclet.DocletEnvironment;
import jdk.javadoc.doclet.Reporter;
import org.junit.jupiter.api.Test;

/**
 * Every public or protected type, constructor, method, field and enum constant of the library's
 * exported packages has javadoc: its own, or for a method, the comment of a method it overrides
 * whose source javadoc sees (what the javadoc pages show as "Description copied from").
 *
 * <p>The javadoc build's doclint ({@code -Xdoclint:all}, in the parent pom) already fails on a
 * member without a comment, except on a method that overrides another: doclint takes such a
 * method as documented by inheritance even when nothing can be inherited, which is the case when
 * the overridden method is the JDK's ({@code Object.toString}, {@code AutoCloseable.close}) or
 * a library's without sources (Micrometer's): its page then shows a bare signature. This test
 * closes that gap. It runs the JDK's javadoc tool in this JVM with {@link Coverage} as the
 * doclet, on the three library modules' sources ({@code src/main/java} of cache-core,
 * cache-offheap and cache-metrics, the modules their {@code module-info.java} declares, the
 * exported packages those say: a qualified export, {@code exports ... to}, is not API).
 */
class ApiJavadocTest {

    /** The library modules: directory and Java module name. */
    private static final List<String[]> MODULES = List.of(
            new String[] {"cache-core", "dev.clockwork.cache"},
            new String[] {"cache-offheap", "dev.clockwork.offheap"},
            new String[] {"cache-metrics", "dev.clockwork.metrics"});

    @Test
    void everyApiMemberHasOwnOrInheritedJavadoc() {
        List<String> options = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (String[] module : MODULES) {
            Path sources = Path.of("..", module[0], "src", "main", "java");
            assertTrue(Files.isRegularFile(sources.resolve("module-info.java")),
                    "module-info.java in " + sources);
            options.add("--module-source-path");
            options.add(module[1] + "=" + sources);
            names.add(module[1]);
        }
        options.addAll(List.of("--module-path", dependencyModulePath(),
                "--module", String.join(",", names)));
        StringWriter log = new StringWriter();
        DocumentationTool tool = ToolProvider.getSystemDocumentationTool();
        Coverage.GAPS.clear();
        Coverage.CHECKED.clear();
        boolean ran = tool.getTask(log, null, null, Coverage.class, options, null).call();
        assertTrue(ran, "javadoc over the library's sources:\n" + log);
        assertTrue(Coverage.CHECKED.containsAll(Set.of("dev.clockwork.cache",
                        "dev.clockwork.offheap", "dev.clockwork.metrics")),
                "the exported packages checked: " + Coverage.CHECKED);
        assertEquals("", String.join("\n", Coverage.GAPS),
                "public or protected API without its own or an inherited javadoc comment");
    }

    /**
     * The test class path less the library's own jars or class directories (their sources are
     * read instead): Micrometer and what it needs, for cache-metrics.
     */
    private static String dependencyModulePath() {
        return String.join(File.pathSeparator, Arrays.stream(
                        System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> MODULES.stream().noneMatch(m -> e.contains(m[0])))
                .filter(e -> e.contains("micrometer") || e.contains("HdrHistogram")
                        || e.contains("LatencyUtils"))
                .toList());
    }

    /**
     * The doclet: walks the exported packages of the modules given and records each public or
     * protected element without a comment of its own or an inherited one, as
     * {@code Type.member}.
     */
    public static final class Coverage implements Doclet {
        static final Set<String> GAPS = new TreeSet<>();
        static final Set<String> CHECKED = new TreeSet<>();

        private DocTrees trees;
        private Elements elements;
        private Types types;

        @Override
        public void init(Locale locale, Reporter reporter) {
        }

        @Override
        public String getName() {
            return "ApiJavadocCoverage";
        }

        @Override
        public Set<? extends Option> getSupportedOptions() {
            return Set.of();
        }

        @Override
        public SourceVersion getSupportedSourceVersion() {
            return SourceVersion.latest();
        }

        @Override
        public boolean run(DocletEnvironment env) {
            trees = env.getDocTrees();
            elements = env.getElementUtils();
            types = env.getTypeUtils();
            for (ModuleElement module : ElementFilter.modulesIn(env.getIncludedElements())) {
                for (ModuleElement.ExportsDirective export
                        : ElementFilter.exportsIn(module.getDirectives())) {
                    if (export.getTargetModules() == null) {
                        PackageElement pkg = export.getPackage();
                        CHECKED.add(pkg.getQualifiedName().toString());
                        ElementFilter.typesIn(pkg.getEnclosedElements()).forEach(this::checkType);
                    }
                }
            }
            return true;
        }

        private void checkType(TypeElement type) {
            if (!isApi(type)) {
                return;
            }
            require(type, type.getQualifiedName().toString());
            for (Element member : type.getEnclosedElements()) {
                if (member instanceof TypeElement nested) {
                    checkType(nested);
                } else if (isApi(member) && isDeclared(member)) {
                    require(member, type.getQualifiedName() + "." + member);
                }
            }
        }

        /** Public, or protected in a class that can be extended: what the pages document. */
        private static boolean isApi(Element e) {
            Set<Modifier> modifiers = e.getModifiers();
            boolean inInterface = e.getEnclosingElement().getKind().isInterface();
            return modifiers.contains(Modifier.PUBLIC)
                    || modifiers.contains(Modifier.PROTECTED)
                    || (inInterface && !modifiers.contains(Modifier.PRIVATE)
                    && e.getKind() != ElementKind.STATIC_INIT);
        }

        /**
         * Written in the source: not a default constructor, an enum's {@code values} and
         * {@code valueOf} or a record's implicit members, which javadoc documents itself.
         */
        private boolean isDeclared(Element e) {
            return elements.getOrigin(e) == Elements.Origin.EXPLICIT
                    && trees.getPath(e) != null;
        }

        private void require(Element e, String name) {
            if (!hasComment(e) && !(e instanceof ExecutableElement method
                    && inheritsComment(method, (TypeElement) method.getEnclosingElement()))) {
                GAPS.add(name);
            }
        }

        private boolean hasComment(Element e) {
            DocCommentTree comment = trees.getDocCommentTree(e);
            return comment != null
                    && !(comment.getFullBody().isEmpty() && comment.getBlockTags().isEmpty());
        }

        /** A method this one overrides, in any supertype of type, has a comment javadoc sees. */
        private boolean inheritsComment(ExecutableElement method, TypeElement type) {
            for (TypeMirror supertype : types.directSupertypes(type.asType())) {
                TypeElement parent = (TypeElement) ((DeclaredType) supertype).asElement();
                for (ExecutableElement candidate
                        : ElementFilter.methodsIn(parent.getEnclosedElements())) {
                    if (elements.overrides(method, candidate, (TypeElement)
                            method.getEnclosingElement()) && hasComment(candidate)) {
                        return true;
                    }
                }
                if (inheritsComment(method, parent)) {
                    return true;
                }
            }
            return false;
        }
    }
}
