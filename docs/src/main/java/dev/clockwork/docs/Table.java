package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A table of already formatted cells, printed as GitHub Markdown; numeric columns are right
 * aligned so the digits line up in the rendered docs.
 */
final class Table {

    private static final Pattern NUMERIC = Pattern.compile("-?[0-9][0-9.]*|n/a|");

    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... headers) {
        this.headers = List.of(headers);
    }

    /** Appends a row; it must have one cell per header. */
    Table row(String... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + headers);
        }
        rows.add(List.of(cells));
        return this;
    }

    String toMarkdown() {
        StringBuilder out = new StringBuilder();
        line(out, headers);
        List<String> rule = new ArrayList<>();
        for (int column = 0; column < headers.size(); column++) {
            rule.add(isNumeric(column) ? "---:" : "---");
        }
        line(out, rule);
        rows.forEach(row -> line(out, row));
        return out.toString();
    }

    private boolean isNumeric(int column) {
        return !rows.isEmpty()
                && rows.stream().allMatch(row -> NUMERIC.matcher(row.get(column)).matches());
    }

    private static void line(StringBuilder out, List<String> cells) {
        out.append('|');
        for (String cell : cells) {
            out.append(' ').append(cell.replace("|", "\\|")).append(" |");
        }
        out.append('\n');
    }
}
