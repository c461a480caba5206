package dev.clockwork.cli.common;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * Where one command shows the flags it mixes in ({@link CacheFlags}, {@link WorkloadFlags},
 * {@link OpMixFlags}), and with which default and help text where these are the command's own.
 * A mixin declares each flag once, with its name, type and checks; bench and soak list the
 * shared flags in different places of their help, bench with cache_bench's defaults and words,
 * soak with a short run's. A command applies its layout as its picocli model transformer,
 * which rebuilds each placed option with the command's order, default and description.
 *
 * <p>Invariant after {@link #applyTo}: every visible option of the command has an order, so the
 * help (with {@code sortOptions = false}) lists them in the command's order.
 */
public final class FlagLayout {
    /**
     * One flag's place: its {@code order} in the help and, when not null or empty, the
     * command's default and description in place of the mixin's.
     */
    public record Place(String flag, int order, String defaultValue, String[] description) {
    }

    private final Map<String, Place> places = new LinkedHashMap<>();

    public FlagLayout(Place... places) {
        for (Place p : places) {
            if (this.places.put(p.flag(), p) != null) {
                throw new IllegalArgumentException(p.flag() + " is placed twice");
            }
        }
    }

    /** A flag whose default and help text are the mixin's. */
    public static Place at(String flag, int order) {
        return new Place(flag, order, null, new String[0]);
    }

    /** A flag with the command's own default ({@code null}: the mixin's) and help text. */
    public static Place at(String flag, int order, String defaultValue, String description) {
        return new Place(flag, order, defaultValue, new String[] {description});
    }

    /** The help order of {@code flag} (with its dash), or {@code fallback} if it is not placed. */
    public int order(String flag, int fallback) {
        Place p = places.get(flag);
        return p == null ? fallback : p.order();
    }

    /**
     * Every flag of {@code holders} (objects with picocli {@link Option} fields, a command's
     * options and its mixins) by name, without the dash, in the help's order, with its value as
     * a string; lists joined with commas, empty when not given.
     */
    public Map<String, String> values(Object... holders) {
        record Flag(String name, int order, Object value) {
        }
        List<Flag> flags = new ArrayList<>();
        for (Object holder : holders) {
            for (Field field : holder.getClass().getDeclaredFields()) {
                Option option = field.getAnnotation(Option.class);
                if (option == null) {
                    continue;
                }
                field.setAccessible(true); // a command's own options are package-private
                try {
                    flags.add(new Flag(option.names()[0], order(option.names()[0],
                            option.order()), field.get(holder)));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        flags.sort(Comparator.comparingInt(Flag::order));
        Map<String, String> values = new LinkedHashMap<>();
        for (Flag f : flags) {
            values.put(f.name().replaceFirst("^-+", ""), f.value() == null ? ""
                    : f.value() instanceof List<?> list
                    ? String.join(",", list.stream().map(String::valueOf).toList())
                    : String.valueOf(f.value()));
        }
        return values;
    }

    /** Rebuilds each placed option of {@code spec} as placed here; returns {@code spec}. */
    public CommandSpec applyTo(CommandSpec spec) {
        for (Place p : places.values()) {
            OptionSpec mixed = spec.findOption(p.flag());
            if (mixed == null) {
                throw new IllegalStateException(spec.name() + " has no flag " + p.flag());
            }
            OptionSpec.Builder placed = mixed.toBuilder().order(p.order());
            if (p.defaultValue() != null) {
                placed.defaultValue(p.defaultValue());
            }
            if (p.description().length > 0) {
                placed.description(p.description());
            }
            spec.remove(mixed);
            spec.addOption(placed.build());
        }
        for (OptionSpec o : spec.options()) {
            if (!o.hidden() && o.order() == -1) {
                throw new IllegalStateException(spec.name() + ": " + o.longestName()
                        + " has no place in the help");
            }
        }
        return spec;
    }
}
