package dev.clockwork.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.clockwork.offheap.NativeMemory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Memory per entry: fills each cache (and each peer) to capacity with small values and reports
 * native + heap bytes per resident entry beyond the key and value bytes.
 *
 * <pre>
 * java -cp cache-bench/target/benchmarks.jar dev.clockwork.bench.MemoryPerEntry \
 *     [-caches=clockwork-fixed,...] [-value_bytes=64] [-capacity_mib=256] [-out=file.jsonl]
 * </pre>
 *
 * <p>Each cache is measured in a JVM of its own (same java and class path) with a fixed,
 * pre-touched heap, so that growth of the resident set is native memory and growth of the heap
 * after a full GC is on-heap memory. A child takes both baselines before building the cache,
 * inserts distinct 16-byte keys with {@code value_bytes} values until the cache first evicts,
 * inserts 10% more, then measures again. {@code chm} never evicts: it gets
 * {@code capacity / (16 + value_bytes)} entries. The all-in figure is (heap growth + RSS
 * growth) / resident entries, so it includes allocator headers, table slack and a few MiB of JIT
 * code and metaspace growth during the fill (about 1-3 B/entry at these counts). For Clockwork
 * the exact native bytes it asked for are reported too ({@code native_bytes}: malloc'd bytes,
 * before the allocator's own headers, plus the Auto table's slots in its mapped reservation).
 *
 * <p>Prints one JSON line per cache ({@code "tool":"clockwork memory"}) on standard output and
 * appends them to {@code -out} if given, then a table on standard error.
 */
public final class MemoryPerEntry {
    static final int KEY_BYTES = 16;
    private static final String CHILD = "-child=";
    private static final ObjectMapper JSON = new ObjectMapper();

    private MemoryPerEntry() {
    }

    public static void main(String[] args) throws Exception {
        String caches = String.join(",", BenchPeer.NAMES);
        int valueBytes = 64;
        long capacityMiB = 256;
        String out = null;
        String child = null;
        for (String a : args) {
            if (a.startsWith(CHILD)) {
                child = a.substring(CHILD.length());
            } else if (a.startsWith("-caches=")) {
                caches = a.substring("-caches=".length());
            } else if (a.startsWith("-value_bytes=")) {
                valueBytes = Integer.parseInt(a.substring("-value_bytes=".length()));
            } else if (a.startsWith("-capacity_mib=")) {
                capacityMiB = Long.parseLong(a.substring("-capacity_mib=".length()));
            } else if (a.startsWith("-out=")) {
                out = a.substring("-out=".length());
            } else {
                throw new IllegalArgumentException("unknown argument: " + a
                        + " (flags: -caches=, -value_bytes=, -capacity_mib=, -out=)");
            }
        }
        if (valueBytes < 2) {
            throw new IllegalArgumentException("-value_bytes must be at least 2: " + valueBytes);
        }
        if (child != null) {
            System.out.println(measure(child, valueBytes, capacityMiB << 20));
            return;
        }
        List<String> lines = new ArrayList<>();
        for (String cache : caches.split(",")) {
            lines.add(fork(cache.trim(), valueBytes, capacityMiB));
        }
        if (out != null) {
            Files.write(Path.of(out), lines, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        System.err.println();
        System.err.println("| cache | resident | heap B/entry | RSS B/entry | all-in B/entry"
                + " | overhead B/entry |");
        System.err.println("|---|---:|---:|---:|---:|---:|");
        for (String line : lines) {
            System.out.println(line);
            System.err.println(row(line));
        }
    }

    /** Runs one cache in a child JVM and returns its JSON line. */
    private static String fork(String cache, int valueBytes, long capacityMiB)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = List.of(java, "-Xms3g", "-Xmx3g", "-XX:+AlwaysPreTouch",
                "-XX:+UseG1GC", "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), MemoryPerEntry.class.getName(),
                CHILD + cache, "-value_bytes=" + valueBytes, "-capacity_mib=" + capacityMiB);
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String last = null;
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                last = line;
            }
        }
        int exit = p.waitFor();
        if (exit != 0 || last == null || !last.startsWith("{")) {
            throw new IllegalStateException(cache + ": child exited " + exit + ", output " + last);
        }
        return last;
    }

    /** In the child: baseline, fill, measure; the JSON line. */
    static String measure(String cache, int valueBytes, long capacity) {
        long heap0 = heapAfterGc();
        long rss0 = rss();
        long malloc0 = NativeMemory.outstandingBytes();
        BenchPeer peer = BenchPeer.open(cache, capacity, valueBytes, null);
        byte[] value = new byte[valueBytes];
        long inserted = 0;
        long stopAt = peer.unbounded() ? capacity / (KEY_BYTES + valueBytes) : Long.MAX_VALUE;
        while (inserted < stopAt) {
            value[0] = (byte) inserted;
            peer.insert(inserted, value);
            inserted++;
            if (stopAt == Long.MAX_VALUE && (inserted & 1023) == 0) {
                peer.settle();
                if (peer.entryCount() < inserted) {
                    stopAt = inserted + inserted / 10; // first eviction seen: 10% more
                }
            }
        }
        peer.settle();
        long resident = peer.entryCount();
        long heap = heapAfterGc() - heap0;
        long rssGrowth = rss() - rss0;
        long nativeBytes = peer instanceof BenchPeer.Clockwork c
                ? NativeMemory.outstandingBytes() - malloc0 + c.mappedTableBytes() : -1;
        double perEntry = (double) (heap + rssGrowth) / resident;
        ObjectNode line = JSON.createObjectNode()
                .put("tool", "clockwork memory")
                .put("cache", cache)
                .put("value_bytes", valueBytes)
                .put("key_bytes", KEY_BYTES)
                .put("capacity_bytes", capacity)
                .put("inserted", inserted)
                .put("resident", resident)
                .put("heap_bytes", heap)
                .put("rss_bytes", rssGrowth)
                .put("native_bytes", nativeBytes)
                .put("bytes_per_entry", tenths(perEntry))
                .put("overhead_per_entry", tenths(perEntry - KEY_BYTES - valueBytes));
        peer.close();
        return line.toString();
    }

    /** Rounded to one decimal: the figures are approximate to well within a byte. */
    private static double tenths(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** This process's resident set (Linux {@code /proc/self/status} VmRSS), in bytes. */
    private static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/status", e);
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    /** A Markdown row from a JSON line that {@link #measure} wrote. */
    static String row(String json) throws JsonProcessingException {
        JsonNode m = JSON.readTree(json);
        long resident = m.get("resident").asLong();
        return String.format(Locale.ROOT, "| %s | %,d | %.1f | %.1f | %.1f | %.1f |",
                m.get("cache").asText(), resident,
                m.get("heap_bytes").asDouble() / resident, m.get("rss_bytes").asDouble() / resident,
                m.get("bytes_per_entry").asDouble(), m.get("overhead_per_entry").asDouble());
    }
}
