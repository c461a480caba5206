package dev.clockwork.docs;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Finds and reads the result files under a directory: {@code *.json} files that are JMH result
 * arrays and {@code *.jsonl} files with {@code clockwork bench} or {@code clockwork memory} lines.
 * Bench lines in a file named like a {@link ScaleFile} ({@code scale.jsonl},
 * {@code scale-sizes.jsonl}) are read as scale runs, not as a plain bench file.
 *
 * <p>Files are visited in the order of their relative paths, so the output does not depend on
 * the file system; when two files hold the same measurement, the one with the later path wins
 * (reruns are stored under later names). Anything else is skipped with a one-line note.
 */
final class ResultFiles {

    private final Path root;
    private final Consumer<String> note;
    private final Map<String, JmhResult> jmh = new LinkedHashMap<>();
    private final Map<String, MemoryRow> memory = new LinkedHashMap<>();
    private final List<BenchFile> bench = new ArrayList<>();
    private final List<ScaleFile> scale = new ArrayList<>();
    private final Map<String, Integer> replaced = new TreeMap<>();

    private ResultFiles(Path root, Consumer<String> note) {
        this.root = root;
        this.note = note;
    }

    /** Reads every result file under {@code root}; {@code note} receives one line per skip. */
    static Inputs scan(Path root, Consumer<String> note) {
        ResultFiles files = new ResultFiles(root, note);
        for (String relative : files.candidates()) {
            files.read(relative);
        }
        return new Inputs(List.copyOf(files.jmh.values()), List.copyOf(files.bench),
                List.copyOf(files.memory.values()), List.copyOf(files.scale));
    }

    private List<String> candidates() {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile)
                    .map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .filter(name -> name.endsWith(".json") || name.endsWith(".jsonl"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void read(String relative) {
        String text;
        try {
            text = Files.readString(root.resolve(relative), StandardCharsets.UTF_8);
        } catch (IOException e) {
            note.accept("skipped " + relative + ": " + e.getMessage());
            return;
        }
        if (relative.endsWith(".jsonl")) {
            readLines(relative, text);
        } else {
            readJmh(relative, text);
        }
        noteReplaced(relative);
    }

    private void readJmh(String relative, String text) {
        JsonNode parsed;
        try {
            parsed = Json.parse(text);
        } catch (JsonException e) {
            note.accept("skipped " + relative + ": not valid JSON (" + e.getMessage() + ")");
            return;
        }
        if (!parsed.isArray() || parsed.isEmpty()) {
            note.accept("skipped " + relative + ": not a JMH result array");
            return;
        }
        for (JsonNode element : parsed) {
            if (!JmhResult.looksLikeOne(element)) {
                note.accept("skipped " + relative + ": not a JMH result array");
                return;
            }
        }
        for (JsonNode element : parsed) {
            keepLast(jmh, JmhResult.from(Obj.of(element), relative), JmhResult::identity,
                    JmhResult::source);
        }
    }

    private void readLines(String relative, String text) {
        List<BenchRun> runs = new ArrayList<>();
        List<ScaleRun> scaleRuns = new ArrayList<>();
        boolean isScale = ScaleFile.isScale(stem(relative));
        int used = 0;
        int skipped = 0;
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            Obj obj = parseLine(line);
            String tool = obj == null ? null : obj.string("tool");
            if (BenchRun.TOOL.equals(tool) && isScale) {
                scaleRuns.add(ScaleRun.from(obj));
            } else if (BenchRun.TOOL.equals(tool)) {
                runs.add(BenchRun.from(obj));
            } else if (MemoryRow.TOOL.equals(tool)) {
                MemoryRow row = MemoryRow.from(obj, relative);
                keepLast(memory, row, r -> r.valueBytes() + " " + r.cache(), MemoryRow::source);
            } else {
                skipped++;
                continue;
            }
            used++;
        }
        if (!runs.isEmpty()) {
            bench.add(new BenchFile(relative, stem(relative), List.copyOf(runs)));
        }
        if (!scaleRuns.isEmpty()) {
            scale.add(new ScaleFile(relative, stem(relative), List.copyOf(scaleRuns)));
        }
        noteLines(relative, used, skipped);
    }

    private void noteLines(String relative, int used, int skipped) {
        if (used == 0) {
            note.accept("skipped " + relative + ": no clockwork bench or memory lines");
        } else if (skipped > 0) {
            note.accept(relative + ": skipped " + skipped
                    + " line(s) that are not clockwork bench or memory JSON");
        }
    }

    private static Obj parseLine(String line) {
        try {
            return Obj.of(Json.parse(line));
        } catch (JsonException e) {
            return null;
        }
    }

    private <T> void keepLast(Map<String, T> kept, T value, Function<T, String> identity,
            Function<T, String> source) {
        T previous = kept.put(identity.apply(value), value);
        if (previous != null) {
            replaced.merge(source.apply(previous), 1, Integer::sum);
        }
    }

    /** One note per older file whose results the file just read replaced. */
    private void noteReplaced(String relative) {
        replaced.forEach((older, count) -> note.accept(relative + " replaces " + count
                + " result(s) from " + older + " (same measurement: last path wins)"));
        replaced.clear();
    }

    private static String stem(String relative) {
        String name = relative.substring(relative.lastIndexOf('/') + 1);
        return name.substring(0, name.length() - ".jsonl".length());
    }
}
