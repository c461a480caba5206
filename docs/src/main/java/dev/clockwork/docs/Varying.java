package dev.clockwork.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Which keys of a set of string maps (JMH params, bench flags) take more than one value: those are
 * what tells runs apart, so they go into the labels; the constant ones would only add noise.
 */
final class Varying {

    private Varying() {
    }

    /** The keys, sorted, whose value (absent counts as a value) differs between the maps. */
    static List<String> keys(List<Map<String, String>> maps) {
        TreeSet<String> all = new TreeSet<>();
        maps.forEach(m -> all.addAll(m.keySet()));
        List<String> varying = new ArrayList<>();
        for (String key : all) {
            String first = maps.get(0).get(key);
            if (maps.stream().anyMatch(m -> !Objects.equals(first, m.get(key)))) {
                varying.add(key);
            }
        }
        return varying;
    }

    /** {@code base} followed by {@code key=value} for each of {@code keys} the map holds. */
    static String label(String base, Map<String, String> values, List<String> keys) {
        StringBuilder out = new StringBuilder(base);
        for (String key : keys) {
            String value = values.get(key);
            if (value != null) {
                out.append(' ').append(key).append('=').append(value);
            }
        }
        return out.toString();
    }
}
