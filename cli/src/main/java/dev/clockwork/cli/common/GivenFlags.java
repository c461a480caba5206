package dev.clockwork.cli.common;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Rewords a refusal around the flags the user set. A check of several flags together is
 * phrased around one of them ("-pinned_ratio=0.25 of -cache_size=... pins too many handles"),
 * which may be one the user never typed: the refusal then starts with the flags the user did set
 * ("-value_bytes=1 -threads=1: ..."), and each flag it shows at its default value says so
 * ("(default)").
 */
public final class GivenFlags {
    /** A flag in a message, with the value it shows if any: "-cache_size=1024", "-skew". */
    private static final Pattern FLAG =
            Pattern.compile("(?<![\\w-])-([a-z][a-z0-9_]*)(=[^\\s,;:()]+)?");

    private final CommandSpec spec;
    private final ParseResult parsed;

    public GivenFlags(CommandSpec spec, ParseResult parsed) {
        this.spec = spec;
        this.parsed = parsed;
    }

    /**
     * The refusal {@code problem} with defaults marked and, when its first flag is not one the
     * user set, led by those it names that the user did set.
     */
    public String blame(String problem) {
        Matcher m = FLAG.matcher(problem);
        StringBuilder marked = new StringBuilder();
        OptionSpec first = null;
        Set<OptionSpec> given = new LinkedHashSet<>();
        while (m.find()) {
            OptionSpec o = spec.findOption("-" + m.group(1));
            if (o == null) {
                continue;
            }
            first = first == null ? o : first;
            String mark = "";
            if (parsed.hasMatchedOption(o)) {
                given.add(o);
            } else if (m.group(2) != null && isDefault(o, m.group(2).substring(1))) {
                mark = " (default)";
            }
            m.appendReplacement(marked, Matcher.quoteReplacement(m.group() + mark));
        }
        m.appendTail(marked);
        if (given.isEmpty() || given.contains(first)) {
            return marked.toString();
        }
        List<String> lead = new ArrayList<>();
        given.forEach(o -> lead.add(as(o)));
        return String.join(" ", lead) + ": " + marked;
    }

    /**
     * Whether a flag the user did not set shows its value: its default. (A message may show
     * other values of it too, as advice: "pass -populate_cache=false".)
     */
    private static boolean isDefault(OptionSpec o, String shown) {
        return shown.equals(String.valueOf((Object) o.getValue()));
    }

    /** The flag as the user typed it, with its (last) value: "-value_bytes=1". */
    private String as(OptionSpec o) {
        List<String> values = parsed.matchedOption(o.names()[0]).originalStringValues();
        String name = o.names()[0];
        return values.isEmpty() ? name : name + "=" + values.get(values.size() - 1);
    }
}
