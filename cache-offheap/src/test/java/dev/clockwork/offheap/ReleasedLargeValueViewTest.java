package dev.clockwork.offheap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.clockwork.cache.Cache;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A value view ({@link Cache#value}) read after its handle was released and the entry freed (a
 * caller's bug) does not crash the JVM. The value is 1 MiB: above glibc's mmap threshold
 * (128 KiB), where malloc would map it apart and free would unmap it, so that reading the view
 * would touch unmapped memory (SIGSEGV). Value memory stays mapped until the cache closes, so the
 * view reads stale bytes or zeros (the freed block's pages were returned to the kernel), and a
 * read after close throws {@link IllegalStateException}.
 *
 * <p>The reading runs in a forked child JVM ({@link Child}), so that a crash, if it came back,
 * would kill the child only; the child writes its hs_err file into a temporary directory
 * ({@code -XX:ErrorFile}) and dumps no core ({@code -XX:-CreateCoredumpOnCrash}), and the
 * directory is deleted afterwards. The child's environment fixes glibc's mmap threshold, as a
 * malloc'd value would be mapped apart.
 */
class ReleasedLargeValueViewTest {
    static final int LARGE = 1 << 20;
    private static final long CAPACITY = 8L << 20;
    private static final long A = 2;
    private static final long VERSION = 11;
    private static final long CHILD_SECONDS = 60;
    /** What the child prints once the entry is freed, right before it reads the view. */
    static final String RELEASED = "RELEASED";

    /** What the child's read of the view did. */
    enum Outcome {
        /** The child died (a signal: hs_err written) after the release. */
        CRASHED,
        /** The view read other bytes than the value's. */
        GARBAGE,
        /** The view read the value's bytes. */
        BYTES,
        /** Reading the view threw IllegalStateException. */
        REFUSED,
        /** Anything else: the child failed before the read, or printed nothing expected. */
        OTHER
    }

    @ParameterizedTest
    @EnumSource(CacheKind.class)
    void aViewOfAFreedLargeValueNeverCrashesTheJvm(CacheKind kind) throws Exception {
        Path dir = Files.createTempDirectory("clockwork-view-");
        try {
            List<String> command = new ArrayList<>(List.of(
                    ChildJvm.java(),
                    "-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"),
                    "-XX:-CreateCoredumpOnCrash",
                    "--enable-native-access=ALL-UNNAMED",
                    "-Xmx64m",
                    "-cp", ChildJvm.classPath(),
                    Child.class.getName(), kind.name()));
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectErrorStream(true);
            // A fixed threshold turns off glibc's dynamic one, which rises when the JVM frees a
            // large block of its own and would then serve the value from the heap, not a mapping.
            builder.environment().put("MALLOC_MMAP_THRESHOLD_", "131072");
            Process child = builder.start();
            String output = new String(child.getInputStream().readAllBytes(),
                    StandardCharsets.UTF_8);
            assertTrue(child.waitFor(CHILD_SECONDS, TimeUnit.SECONDS), "child did not finish");
            boolean hsErr = hasHsErr(dir);
            Outcome outcome = outcomeOf(child.exitValue(), hsErr, output);
            assertTrue(outcome == Outcome.GARBAGE || outcome == Outcome.BYTES
                            || outcome == Outcome.REFUSED,
                    kind + ": a freed large value's view must read bytes or fail cleanly; got "
                            + outcome + " (exit " + child.exitValue() + ", hs_err " + hsErr
                            + "). Child output:\n" + output);
        } finally {
            deleteRecursively(dir);
        }
    }

    private static Outcome outcomeOf(int exit, boolean hsErr, String output) {
        if (exit != 0) {
            return hsErr && output.contains(RELEASED) ? Outcome.CRASHED : Outcome.OTHER;
        }
        for (Outcome o : List.of(Outcome.GARBAGE, Outcome.BYTES, Outcome.REFUSED)) {
            if (output.contains("READ " + o.name())) {
                return o;
            }
        }
        return Outcome.OTHER;
    }

    private static boolean hasHsErr(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(p -> p.getFileName().toString().startsWith("hs_err"));
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /**
     * The child: inserts a 1 MiB value, looks it up, takes its view, releases with erase (which
     * frees it), prints {@link #RELEASED}, reads the whole view and prints what it read.
     */
    public static final class Child {
        private Child() {
        }

        public static void main(String[] args) {
            CacheKind kind = CacheKind.valueOf(args[0]);
            Cache cache = MisuseKit.build(kind, CAPACITY, LARGE, 0);
            if (!MisuseKit.insert(cache, A, VERSION, LARGE)) {
                throw new IllegalStateException("insert refused");
            }
            long h = cache.lookup(A, ~A);
            MemorySegment view = cache.value(h);
            if (!cache.release(h, true)) {
                throw new IllegalStateException("the erasing release did not free the entry");
            }
            System.out.println(RELEASED);
            System.out.flush();
            String read;
            try {
                read = MisuseKit.versionOf(view, A, LARGE) == VERSION ? "BYTES" : "GARBAGE";
            } catch (IllegalStateException e) {
                read = "REFUSED";
            }
            System.out.println("READ " + read);
            cache.close();
        }
    }
}
