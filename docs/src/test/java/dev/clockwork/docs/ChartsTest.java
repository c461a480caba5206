package dev.clockwork.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsTest {

    @TempDir
    Path tmp;

    @Test
    void sameInputsGiveByteIdenticalTables() throws Exception {
        Path all = copyFixtures("jmh", "bench", "memory");
        Rendered first = Rendered.render(all, tmp.resolve("out1"));
        Rendered second = Rendered.render(all, tmp.resolve("out2"));

        assertEquals(first.tables(), second.tables());
        assertEquals(first.pngs(), second.pngs());
        assertEquals(10, first.pngs().size());
        assertTrue(first.tables().startsWith("# Result tables\n"), first.tables());
    }

    @Test
    void skipsUnrelatedFilesWithOneNoteEach() throws Exception {
        Rendered r = Rendered.render(Rendered.fixture("other"), tmp.resolve("out"));

        assertEquals(List.of(
                "skipped broken.json: not valid JSON (Unexpected end-of-input within/between"
                        + " Object entries at line 2, column 1 (offset 26))",
                "nested/half.jsonl: skipped 1 line(s) that are not clockwork bench or memory JSON",
                "skipped nested/unrelated.jsonl: no clockwork bench or memory lines",
                "skipped numbers.json: not a JMH result array",
                "skipped object.json: not a JMH result array"), r.notes());
        // half.jsonl's one bench line (no latency) still gives a throughput chart.
        assertEquals(List.of("bench-half-throughput.png"), r.pngs());
        r.assertImages();
    }

    @Test
    void anEmptyDirectoryGivesJustThePreamble() throws Exception {
        Rendered r = Rendered.render(Files.createDirectory(tmp.resolve("empty")), tmp.resolve("o"));

        assertEquals(List.of(), r.pngs());
        assertEquals(Report.markdown(List.of()), r.tables());
    }

    @Test
    void mainChecksItsArguments() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8);

        assertEquals(2, Charts.run(new String[] {"only-one"}, out, errStream));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("usage: Charts"));
        assertEquals(2, Charts.run(new String[] {tmp.resolve("missing").toString(), "x"}, out,
                errStream));
        assertEquals(0, Charts.run(new String[] {Rendered.fixture("memory").toString(),
                tmp.resolve("cli").toString()}, out, errStream));
        assertTrue(Files.exists(tmp.resolve("cli/memory-per-entry-64B.png")));
    }

    /** Copies fixture directories side by side under one results directory. */
    private Path copyFixtures(String... names) throws IOException {
        Path root = tmp.resolve("results");
        for (String name : names) {
            Path from = Rendered.fixture(name);
            try (Stream<Path> files = Files.walk(from)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    Path to = root.resolve(name).resolve(from.relativize(file).toString());
                    Files.createDirectories(to.getParent());
                    Files.copy(file, to);
                }
            }
        }
        return root;
    }
}
