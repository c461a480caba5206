package dev.clockwork.cli.caches;

import dev.clockwork.cli.CacheFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code -cache_type}s of {@code clockwork bench}: Clockwork's (built by
 * {@link CacheFactory}) and the peers a storage engine would use instead, and what a JVM of
 * each needs when {@code -compare} starts one.
 *
 * <h2>The heap rule of {@code -compare}</h2>
 * Each type runs in a JVM sized as its user would size it for the capacity:
 * <ul>
 *   <li>off-heap types (Clockwork's, OHC's): {@code -Xmx}{@value #OFF_HEAP_HEAP_MIB}m, whatever
 *     the capacity: the heap holds only the workload's own state;</li>
 *   <li>Caffeine, which holds every block on the heap: {@code -Xms} = {@code -Xmx} = twice the
 *     capacity, at least 1 GiB. Live data at half the heap is the usual advice for G1 (its
 *     marking starts at 45 % occupancy by default) and leaves ZGC room to collect
 *     concurrently; a server pins its heap ({@code -Xms = -Xmx}).</li>
 * </ul>
 * A {@code -compare} entry may name a collector after a colon, {@code caffeine:zgc}; without
 * one the JVM's default (G1) runs. The parent's own heap and collector options are not passed on.
 */
public final class Targets {
    private Targets() {
    }

    /** Caffeine holding {@code byte[]} values ({@link CaffeineTarget}). */
    public static final String CAFFEINE = "caffeine";
    /** OHC's default (linked) implementation ({@link OhcTarget}). */
    public static final String OHC_LINKED = "ohc_linked";
    /** OHC's chunked implementation ({@link OhcTarget}). */
    public static final String OHC_CHUNKED = "ohc_chunked";
    /** The peers, in the order the help lists them. */
    public static final List<String> PEERS = List.of(CAFFEINE, OHC_LINKED, OHC_CHUNKED);

    /** The heap of an off-heap type's JVM under {@code -compare}. */
    public static final int OFF_HEAP_HEAP_MIB = 512;
    /** The collectors a {@code -compare} entry may name. */
    public static final List<String> COLLECTORS = List.of("g1", "zgc", "parallel");

    /**
     * What OHC needs of a JVM started with {@code -cp} (the launcher's {@code java -jar} gets
     * the export from the jar's manifest): its chunked implementation frees buffers through
     * {@code sun.nio.ch.DirectBuffer}, and both use {@code sun.misc.Unsafe}'s memory access,
     * which JDK 23 and later warn about unless allowed.
     */
    static final List<String> OHC_JVM_OPTIONS = Runtime.version().feature() >= 23
            ? List.of("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--sun-misc-unsafe-memory-access=allow")
            : List.of("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED");

    /** Whether {@code type} is a peer rather than a Clockwork cache. */
    public static boolean isPeer(String type) {
        return PEERS.contains(type);
    }

    /** Whether {@code type} keeps its values on the Java heap. */
    public static boolean onHeap(String type) {
        return type.equals(CAFFEINE);
    }

    /** Whether {@code type} can change its capacity ({@code -vary_capacity_ratio}). */
    public static boolean canSetCapacity(String type) {
        return !type.equals(OHC_CHUNKED); // OHC's chunked implementation refuses
    }

    /** Null if {@code type} can be built, else a one-line reason it cannot. */
    public static String checkType(String type) {
        if (isPeer(type)) {
            return null;
        }
        String problem = CacheFactory.checkType(type);
        return problem == null || !problem.startsWith("unknown") ? problem
                : problem.replaceFirst("\\)$", ", " + String.join(", ", PEERS) + ")");
    }

    /**
     * Builds the target for {@code s}: a Clockwork cache through {@link CacheFactory}, or a peer
     * of {@code s.capacity()} bytes (the peers take no other setting).
     *
     * @throws IllegalArgumentException if the type cannot be built
     */
    public static BenchTarget create(CacheFactory.Settings s) {
        return switch (s.cacheType()) {
            case CAFFEINE -> new CaffeineTarget(CAFFEINE, s.capacity());
            case OHC_LINKED -> new OhcTarget(OHC_LINKED, s.capacity(), false);
            case OHC_CHUNKED -> new OhcTarget(OHC_CHUNKED, s.capacity(), true);
            default -> new ClockworkTarget(s.cacheType(), CacheFactory.create(s));
        };
    }

    /**
     * One {@code -compare} entry: a type, and the collector to run it on ({@code null}: the
     * JVM's default).
     */
    public record CompareEntry(String type, String collector) {
        /** Parses {@code type} or {@code type:collector}. */
        public static CompareEntry parse(String entry) {
            int colon = entry.indexOf(':');
            return colon < 0 ? new CompareEntry(entry, null)
                    : new CompareEntry(entry.substring(0, colon),
                            entry.substring(colon + 1).toLowerCase(Locale.ROOT));
        }

        /** Null if the entry can run, else why not. */
        public String check() {
            String problem = checkType(type);
            if (problem != null) {
                return problem;
            }
            if (collector != null && !COLLECTORS.contains(collector)) {
                return "unknown collector '" + collector + "' in " + this + " (known: "
                        + String.join(", ", COLLECTORS) + ")";
            }
            return null;
        }

        /**
         * The JVM options of this entry's run for a cache of {@code capacity} bytes: the heap
         * rule (class comment), then the collector.
         */
        public List<String> jvmOptions(long capacity) {
            List<String> options = new ArrayList<>();
            if (onHeap(type)) {
                long heapMib = Math.max(1024, 2 * Math.ceilDiv(capacity, 1L << 20));
                options.add("-Xms" + heapMib + "m");
                options.add("-Xmx" + heapMib + "m");
            } else {
                options.add("-Xmx" + OFF_HEAP_HEAP_MIB + "m");
            }
            if (type.startsWith("ohc_")) {
                options.addAll(OHC_JVM_OPTIONS);
            }
            if (collector != null) {
                options.add(switch (collector) {
                    case "zgc" -> "-XX:+UseZGC";
                    case "parallel" -> "-XX:+UseParallelGC";
                    default -> "-XX:+UseG1GC";
                });
            }
            return options;
        }

        /**
         * Whether a JVM option of the parent is replaced by {@link #jvmOptions}: heap sizes and
         * collector choices.
         */
        public static boolean replaced(String jvmOption) {
            return jvmOption.startsWith("-Xmx") || jvmOption.startsWith("-Xms")
                    || jvmOption.matches("-XX:[+-]Use\\w+GC")
                    || jvmOption.matches("-XX:\\w*RAMPercentage=.*")
                    || jvmOption.startsWith("-XX:MaxHeapSize")
                    || jvmOption.startsWith("-XX:InitialHeapSize");
        }

        @Override
        public String toString() {
            return collector == null ? type : type + ":" + collector;
        }
    }
}
