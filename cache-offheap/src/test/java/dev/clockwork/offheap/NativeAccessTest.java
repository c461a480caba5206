package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.clockwork.offheap.memory.NativeAccess;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A JVM that refuses native access ({@code --illegal-native-access=deny}, JDK 24 and later)
 * gets one clear exception when a cache is built, naming the flag to add, for every cache type;
 * run in a child JVM on the class path, as a user's application would be.
 */
class NativeAccessTest {
    private static final long CHILD_SECONDS = 60;

    @Test
    void buildingACacheWithoutNativeAccessSaysWhichFlagToAdd() throws Exception {
        assumeTrue(Runtime.version().feature() >= 24, "--illegal-native-access is JDK 24+");
        Process child = new ProcessBuilder(List.of(ChildJvm.java(),
                "--illegal-native-access=deny", "-Xmx64m", "-cp", ChildJvm.classPath(),
                Child.class.getName()))
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(CHILD_SECONDS, TimeUnit.SECONDS), "child did not finish");
        assertEquals(0, child.exitValue(), output);
        for (String type : List.of("fixed", "auto", "lru")) {
            assertTrue(output.contains(type
                    + ": IllegalStateException: Clockwork needs native access"
                    + " (its caches keep their memory off heap through FFM): add"
                    + " --enable-native-access=ALL-UNNAMED to the java command (the library is on"
                    + " the class path)"), output);
        }
        assertFalse(output.contains("ExceptionInInitializerError"), output);
    }

    /** Builds each cache type and prints what building it threw. */
    public static final class Child {
        private Child() {
        }

        public static void main(String[] args) {
            List<Runnable> builds = List.of(
                    () -> HyperClockCache.builder().capacity(1 << 20)
                            .estimatedEntryCharge(1024).build().close(),
                    () -> HyperClockCache.builder().capacity(1 << 20).build().close(),
                    () -> LruCache.builder().capacity(1 << 20).build().close());
            List<String> names = List.of("fixed", "auto", "lru");
            for (int i = 0; i < builds.size(); i++) {
                try {
                    builds.get(i).run();
                    System.out.println(names.get(i) + ": built");
                } catch (RuntimeException | Error e) {
                    System.out.println(names.get(i) + ": " + e.getClass().getSimpleName() + ": "
                            + e.getMessage());
                }
            }
        }
    }

    @Test
    void onTheModulePathTheMessageNamesTheModule() {
        Module module = NativeAccess.class.getModule();
        assumeTrue(module.isNamed(), "tests run on the module path");
        assertTrue(NativeAccess.message(module).contains(
                "add --enable-native-access=dev.clockwork.offheap to the java command (the library"
                        + " is on the module path)"), NativeAccess.message(module));
    }
}
