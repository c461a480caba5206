package dev.clockwork.offheap;

import java.io.File;
import java.nio.file.Path;

/** What a test needs to start a child JVM on this one's JDK and classes. */
final class ChildJvm {
    private ChildJvm() {
    }

    /** The {@code java} launcher of the JDK running the tests. */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * A class path for the child: this JVM's module path (the library and its tests, when they run
     * as a module) and class path together, so the child runs them on the class path, as a user's
     * application would.
     */
    static String classPath() {
        String modules = System.getProperty("jdk.module.path", "");
        String classes = System.getProperty("java.class.path", "");
        return modules.isEmpty() ? classes : modules + File.pathSeparator + classes;
    }
}
