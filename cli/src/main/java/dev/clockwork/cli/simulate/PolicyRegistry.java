package dev.clockwork.cli.simulate;

import dev.clockwork.offheap.AdmissionPolicy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The policies {@code simulate} knows, by the name reports print, in the order they are run and
 * printed. To add a variant (say a cache built with an admission filter), {@link #register} a
 * factory under a new name in {@link #standard()}; {@code -policies} then accepts it.
 */
public final class PolicyRegistry {
    private final Map<String, PolicyFactory> factories = new LinkedHashMap<>();

    /**
     * The reference policies, Caffeine, the published policies it is compared with (S3-FIFO,
     * SIEVE, ARC, LIRS, CLOCK-Pro), and each Clockwork cache type in its default setup
     * (TinyLFU admission), then each with admission off.
     */
    public static PolicyRegistry standard() {
        PolicyRegistry r = new PolicyRegistry();
        r.register("lru", (trace, capacity, bytes) -> new LruPolicy(capacity));
        r.register("opt", (trace, capacity, bytes) -> new OptPolicy(trace, capacity));
        r.register("caffeine", CaffeinePolicy.FACTORY);
        r.register("s3fifo", (trace, capacity, bytes) -> new S3FifoPolicy(capacity));
        r.register("sieve", (trace, capacity, bytes) -> new SievePolicy(capacity));
        r.register("arc", new EntriesOnlyFactory(ArcPolicy::new, capacity -> null));
        r.register("lirs", new EntriesOnlyFactory(LirsPolicy::new, LirsPolicy::refusal));
        r.register("clockpro",
                new EntriesOnlyFactory(ClockProPolicy::new, ClockProPolicy::refusal));
        for (AdmissionPolicy admission : new AdmissionPolicy[] {AdmissionPolicy.TINY_LFU,
            AdmissionPolicy.NONE}) {
            r.register(name(ClockworkPolicy.LRU_CACHE, admission),
                    ClockworkPolicy.lruCache(admission));
            r.register(name(ClockworkPolicy.FIXED_HYPER_CLOCK, admission),
                    ClockworkPolicy.fixedHyperClock(admission));
            r.register(name(ClockworkPolicy.AUTO_HYPER_CLOCK, admission),
                    ClockworkPolicy.autoHyperClock(admission));
        }
        return r;
    }

    /**
     * A Clockwork type's name in reports: the type for its default (TinyLFU admission), with a
     * suffix for admission off.
     */
    private static String name(String type, AdmissionPolicy admission) {
        return admission == AdmissionPolicy.NONE ? ClockworkPolicy.withoutAdmission(type) : type;
    }

    /**
     * Adds a policy under {@code name} (letters, digits, {@code _ + - .}; no comma, since
     * {@code -policies} is comma-separated).
     *
     * @throws IllegalArgumentException if the name is malformed or taken
     */
    public PolicyRegistry register(String name, PolicyFactory factory) {
        if (!name.matches("[A-Za-z0-9_+.\\-]+")) {
            throw new IllegalArgumentException("policy name '" + name + "' must be letters,"
                    + " digits, _ + - .");
        }
        if (factories.putIfAbsent(name, factory) != null) {
            throw new IllegalArgumentException("policy " + name + " is already registered");
        }
        return this;
    }

    /** Every name, in registration order. */
    public List<String> names() {
        return List.copyOf(factories.keySet());
    }

    /** The names of the policies that take byte capacities, in registration order. */
    public List<String> namesTakingBytes() {
        return factories.entrySet().stream().filter(e -> e.getValue().takesBytes())
                .map(Map.Entry::getKey).toList();
    }

    /** The factory registered under {@code name}. */
    public PolicyFactory factory(String name) {
        PolicyFactory f = factories.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown policy '" + name + "'");
        }
        return f;
    }

    /**
     * Null if {@code selection} names registered policies, each once, each taking bytes if
     * {@code bytes}; else what is wrong, for {@code -policies}.
     */
    public String check(List<String> selection, boolean bytes) {
        if (selection.isEmpty()) {
            return "-policies names no policy (known: " + String.join(",", names()) + ")";
        }
        Set<String> seen = new HashSet<>();
        List<String> unknown = new ArrayList<>();
        for (String name : selection) {
            if (!factories.containsKey(name)) {
                unknown.add("'" + name + "'");
            } else if (!seen.add(name)) {
                return "-policies names " + name + " twice";
            } else if (bytes && !factories.get(name).takesBytes()) {
                return "-policies: " + name + " counts entries only and cannot run with -bytes"
                        + " (leave it out of -policies)";
            }
        }
        if (!unknown.isEmpty()) {
            return "-policies: unknown policy " + String.join(", ", unknown) + " (known: "
                    + String.join(",", names()) + ")";
        }
        return null;
    }
}
