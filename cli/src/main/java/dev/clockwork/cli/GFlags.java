package dev.clockwork.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.TypeConversionException;

/**
 * gflags-compatible command lines on top of picocli, so that a RocksDB {@code cache_bench} command
 * line can be pasted unchanged.
 *
 * <p>gflags rules mirrored here:
 * <ul>
 *   <li>{@code -flag} and {@code --flag} are the same flag;</li>
 *   <li>non-boolean flags take {@code -flag=value} or {@code -flag value};</li>
 *   <li>boolean flags take a bare {@code -flag} (true), {@code -noflag} (false), or an attached
 *       value {@code -flag=V} where V is one of true/false, 1/0, t/f, yes/no, y/n (any case); a
 *       boolean never consumes the next argument;</li>
 *   <li>unsigned flags reject a leading '-', and numbers may be decimal or {@code 0x} hex;</li>
 *   <li>{@code --} ends flag parsing.</li>
 * </ul>
 * {@link #normalize} rewrites the arguments so that picocli always sees booleans as
 * {@code -flag=true|false}; the converters below parse values the way gflags does.
 */
public final class GFlags {
    private GFlags() {
    }

    /** How a cache_bench flag that Clockwork does not implement is treated when it appears. */
    private enum Ignored {
        /** A boolean; accepted (and ignored) only when false. */
        BOOL_FALSE,
        /** A boolean accepted with any value and ignored (it never takes the next argument). */
        BOOL_ANY,
        /** Accepted with any value and ignored (it has no effect given the accepted defaults). */
        ANY_VALUE,
        /** Accepted only with the value 0. */
        ZERO,
        /** Accepted only with an empty value. */
        EMPTY
    }

    /**
     * cache_bench flags without a counterpart in a command, and when they may still be passed.
     * A command that has an option of the same name (bench: the gather_stats flags and
     * early_exit) takes it as its own; the others ignore it when neutral.
     */
    private static final Map<String, Ignored> IGNORED_CACHE_BENCH_FLAGS = Map.ofEntries(
            Map.entry("gather_stats", Ignored.BOOL_FALSE),
            Map.entry("gather_stats_sleep_ms", Ignored.ANY_VALUE),
            Map.entry("gather_stats_entries_per_lock", Ignored.ANY_VALUE),
            Map.entry("early_exit", Ignored.BOOL_FALSE),
            Map.entry("secondary_cache_uri", Ignored.EMPTY),
            Map.entry("use_jemalloc_no_dump_allocator", Ignored.BOOL_FALSE),
            Map.entry("jemalloc_no_dump_allocator_num_arenas", Ignored.ANY_VALUE),
            Map.entry("jemalloc_no_dump_allocator_limit_tcache_size", Ignored.BOOL_ANY),
            Map.entry("stress_cache_key", Ignored.BOOL_FALSE),
            Map.entry("stress_cache_instances", Ignored.ZERO));

    /**
     * Rewrites gflags-style arguments for {@code spec} into the form its picocli options accept.
     * Arguments that are not flags of {@code spec} are passed through for picocli to report.
     *
     * @param warn receives one line per cache_bench flag that is accepted but ignored
     * @throws IllegalArgumentException with a message naming the flag, for a malformed boolean
     *     value or an unsupported cache_bench flag
     */
    public static List<String> normalize(CommandSpec spec, List<String> args, PrintWriter warn) {
        Map<String, OptionSpec> byName = new HashMap<>();
        for (OptionSpec o : spec.options()) {
            for (String n : o.names()) {
                byName.put(n, o);
            }
        }
        List<String> out = new ArrayList<>(args.size());
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--")) {
                out.addAll(args.subList(i, args.size()));
                break;
            }
            if (!arg.startsWith("-") || arg.equals("-")) {
                out.add(arg); // a value of the previous flag, or a stray argument
                continue;
            }
            OptionSpec exact = byName.get(nameOf(arg));
            if (exact != null && !isGflagsBoolean(exact)) {
                out.add(arg); // picocli knows this spelling (e.g. --help)
                continue;
            }
            i = normalizeFlag(byName, args, i, out, warn);
        }
        return out;
    }

    /**
     * Rewrites the gflags-style flag at {@code args[i]} for picocli into {@code out}, or skips an
     * ignored cache_bench flag; returns the index of the last argument it used.
     */
    private static int normalizeFlag(Map<String, OptionSpec> byName, List<String> args, int i,
                                     List<String> out, PrintWriter warn) {
        String arg = args.get(i);
        String body = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
        int eq = body.indexOf('=');
        String name = eq < 0 ? body : body.substring(0, eq);
        String value = eq < 0 ? null : body.substring(eq + 1);
        OptionSpec opt = byName.get("-" + name);
        OptionSpec negated = name.startsWith("no") ? byName.get("-" + name.substring(2)) : null;
        if (opt != null && isGflagsBoolean(opt)) {
            boolean v = value == null || parseBool("-" + name, value);
            out.add("-" + name + "=" + v);
        } else if (opt != null) {
            out.add("-" + body);
        } else if (negated != null && isGflagsBoolean(negated)) {
            if (value != null) {
                throw new IllegalArgumentException("flag -" + name
                        + " takes no value (it means -" + name.substring(2) + "=false)");
            }
            out.add("-" + name.substring(2) + "=false");
        } else if (isIgnoredCacheBenchFlag(name)) {
            return skipIgnored(arg, name, value, args, i, warn);
        } else {
            out.add(arg); // unknown: picocli names it in its error
        }
        return i;
    }

    /** A cache_bench flag clockwork does not implement, or {@code -no} and an ignored boolean. */
    private static boolean isIgnoredCacheBenchFlag(String name) {
        return IGNORED_CACHE_BENCH_FLAGS.containsKey(name)
                || name.startsWith("no")
                && isBool(IGNORED_CACHE_BENCH_FLAGS.get(name.substring(2)));
    }

    /**
     * Skips an ignored cache_bench flag with a note if its value asks for nothing clockwork would
     * do differently; refuses it otherwise. Returns the index of the last argument it used.
     */
    private static int skipIgnored(String arg, String name, String value, List<String> args,
                                   int i, PrintWriter warn) {
        Ignored kind = IGNORED_CACHE_BENCH_FLAGS.get(name);
        if (kind == null) { // -noflag of an ignored boolean: false, which is fine
            warn.println("note: ignoring cache_bench flag " + arg);
            return i;
        }
        if (value == null && !isBool(kind) && i + 1 < args.size()) {
            value = args.get(++i); // "-flag value" form
        }
        boolean neutral = switch (kind) {
            case BOOL_FALSE -> value != null && !parseBool("-" + name, value);
            case ANY_VALUE, BOOL_ANY -> true;
            case ZERO -> value != null && value.strip().equals("0");
            case EMPTY -> value == null || value.isEmpty();
        };
        String shown = "-" + name + (value == null ? "" : "=" + value);
        if (!neutral) {
            throw new IllegalArgumentException("flag " + shown
                    + " is a cache_bench feature that clockwork bench does not implement");
        }
        warn.println("note: ignoring cache_bench flag " + shown);
        return i;
    }

    private static boolean isBool(Ignored kind) {
        return kind == Ignored.BOOL_FALSE || kind == Ignored.BOOL_ANY;
    }

    private static String nameOf(String arg) {
        int eq = arg.indexOf('=');
        return eq < 0 ? arg : arg.substring(0, eq);
    }

    /** A boolean flag in the gflags sense (not picocli's own --help / --version switches). */
    private static boolean isGflagsBoolean(OptionSpec opt) {
        Class<?> t = opt.type();
        return (t == boolean.class || t == Boolean.class) && !opt.usageHelp() && !opt.versionHelp();
    }

    /** gflags' boolean spellings. */
    public static boolean parseBool(String flag, String value) {
        switch (value.toLowerCase(Locale.ROOT)) {
            case "true", "t", "1", "yes", "y":
                return true;
            case "false", "f", "0", "no", "n":
                return false;
            default:
                throw new IllegalArgumentException("invalid value '" + value + "' for boolean flag "
                        + flag + " (use " + flag + ", " + flag + "=true|false or " + flag
                        + "=1|0)");
        }
    }

    /** Parses an integer the way gflags does: decimal, or hex with a 0x prefix. */
    static long parseInteger(String value, boolean unsigned, long min, long max, String typeName) {
        String s = value.strip();
        if (s.isEmpty()) {
            throw new TypeConversionException("empty value, expected " + typeName);
        }
        if (unsigned && s.startsWith("-")) {
            throw new TypeConversionException("'" + value + "' is negative, expected " + typeName);
        }
        boolean negative = s.startsWith("-");
        String digits = negative || s.startsWith("+") ? s.substring(1) : s;
        int radix = 10;
        if (digits.startsWith("0x") || digits.startsWith("0X")) {
            radix = 16;
            digits = digits.substring(2);
        }
        try {
            long v = Long.parseLong((negative ? "-" : "") + digits, radix);
            if (v < min || v > max) {
                throw new TypeConversionException("'" + value + "' is out of range for " + typeName
                        + " [" + min + ", " + max + "]");
            }
            return v;
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not a valid " + typeName);
        }
    }

    /** gflags uint32 (held in a long). */
    public static final class UInt32 implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return parseInteger(value, true, 0, 0xFFFF_FFFFL, "uint32");
        }
    }

    /**
     * gflags uint64, limited to {@link Long#MAX_VALUE} (more than any cache size or op count this
     * tool can use).
     */
    public static final class UInt64 implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return parseInteger(value, true, 0, Long.MAX_VALUE, "uint64");
        }
    }

    /** gflags int32. */
    public static final class Int32 implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) parseInteger(value, false, Integer.MIN_VALUE, Integer.MAX_VALUE, "int32");
        }
    }

    // CHECKSTYLE.OFF: InlineQualifiedName (a name clash: this class is named Double)
    /** gflags double. */
    public static final class Double implements ITypeConverter<java.lang.Double> {
        @Override
        public java.lang.Double convert(String value) {
            try {
                return java.lang.Double.parseDouble(value.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a valid double");
            }
        }
    }
    // CHECKSTYLE.ON: InlineQualifiedName

    /** gflags bool (used when picocli sees a value, normally after {@link #normalize}). */
    public static final class Bool implements ITypeConverter<Boolean> {
        @Override
        public Boolean convert(String value) {
            try {
                return parseBool("flag", value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value
                        + "' is not a boolean (true/false, 1/0, yes/no, t/f, y/n)");
            }
        }
    }
}
