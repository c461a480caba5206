package dev.clockwork.cli.soak;

import static dev.clockwork.cli.soak.SoakCounters.ARRAY_INSERT;
import static dev.clockwork.cli.soak.SoakCounters.CHECKS;
import static dev.clockwork.cli.soak.SoakCounters.ERASE;
import static dev.clockwork.cli.soak.SoakCounters.ERASE_FOUND;
import static dev.clockwork.cli.soak.SoakCounters.FAILURES;
import static dev.clockwork.cli.soak.SoakCounters.FREED;
import static dev.clockwork.cli.soak.SoakCounters.HITS;
import static dev.clockwork.cli.soak.SoakCounters.INSERT;
import static dev.clockwork.cli.soak.SoakCounters.INSERT_PINNED;
import static dev.clockwork.cli.soak.SoakCounters.LOOKUPS;
import static dev.clockwork.cli.soak.SoakCounters.OPS;
import static dev.clockwork.cli.soak.SoakCounters.READ_COPY;
import static dev.clockwork.cli.soak.SoakCounters.REF;
import static dev.clockwork.cli.soak.SoakCounters.REFUSED;
import static dev.clockwork.cli.soak.SoakCounters.RELEASE;
import static dev.clockwork.cli.soak.SoakCounters.RELEASE_ERASE;
import static dev.clockwork.cli.soak.SoakMemory.mib;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.clockwork.cache.Cache;
import dev.clockwork.cli.CacheFactory;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.common.Json;
import dev.clockwork.cli.common.Program;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * What {@code clockwork soak} prints: the header, a line per report interval and the summary, as
 * text, or with {@code -json} as JSON Lines (no header; one object per interval and one summary).
 */
final class SoakReport {
    private static final String COLUMNS = String.format(Locale.ROOT,
            "%9s %10s %13s %9s %8s %9s %10s %9s %9s %9s %9s",
            "elapsed_s", "ops/s", "total_ops", "hit_ratio", "failures", "rss_MiB", "native_MiB",
            "heap_MiB", "usage_MiB", "cap_MiB", "entries");

    private final SoakOptions o;
    private final PrintWriter out;

    SoakReport(SoakOptions options, PrintWriter out) {
        this.o = options;
        this.out = out;
    }

    /** The settings of the run, as text only. */
    void header(Cache cache, long seed, SoakValues.Sizes sizes, long maxKey) {
        if (o.json) {
            return;
        }
        out.println("----------------------------");
        out.printf("Clockwork version   : %s%n", Program.version());
        out.printf("Cache type          : %s (%s)%n", o.cache.cacheType,
                CacheFactory.implName(cache));
        out.printf("Java runtime        : %s, max heap %s MiB%n", Runtime.version(),
                mib(Runtime.getRuntime().maxMemory()));
        out.printf("Threads             : %d%n", o.workload.threads);
        out.printf("Duration            : %s (warm-up %s), report every %s%n",
                SoakOptions.formatDuration(o.durationNanos),
                SoakOptions.formatDuration(o.effectiveWarmupNanos()),
                SoakOptions.formatDuration(o.reportIntervalNanos));
        cacheSizeLine();
        out.printf(Locale.ROOT, "Value bytes         : %d..%d (%d sizes, log-uniform by key),"
                        + " mean %.1f%n", sizes.min, sizes.max, sizes.sizes.length, sizes.mean);
        if (o.valueSizeSweepNanos > 0) {
            out.printf("Size sweep          : a window of %d sizes, smallest to largest and back"
                    + " every %s%n", sizes.windowWidth(),
                    SoakOptions.formatDuration(o.valueSizeSweepNanos));
        }
        out.printf("Max key             : %d (resident ratio %s, skew %d)%n", maxKey,
                CFormat.g(o.workload.residentRatio), o.workload.skew);
        out.printf("Pinned handles      : %d (pinned ratio %s)%n", o.totalPinCount(),
                CFormat.g(o.workload.pinnedRatio));
        out.printf("Op mix              : lookup+insert %d%%, insert %d%%, blind insert %d%%,"
                        + " lookup %d%%, erase %d%%; ref %d%% of hits, eraseIfLastRef %d%% of"
                        + " releases, byte[] API %d%%%n", o.mix.lookupInsertPercent,
                o.mix.insertPercent, o.mix.blindInsertPercent, o.mix.lookupPercent,
                        o.mix.erasePercent, o.refPercent,
                o.releaseErasePercent, o.byteArrayPercent);
        out.printf("Seed                : %d%n", seed);
        out.printf("RSS rule            : max RSS after warm-up <= RSS at warm-up end + max(%s%%,"
                + " %d MiB)%n", CFormat.g(o.rssTolerancePct), o.rssToleranceMib);
        out.println("----------------------------");
        out.flush();
    }

    private void cacheSizeLine() {
        if (o.cache.varyCapacityRatio > 0) {
            out.printf(Locale.ROOT, "Cache size          : %d (%s MiB); starts at %d, then set to a"
                            + " random size in [%s, %s] x cache_size every %s%n", o.cache.cacheSize,
                    mib(o.cache.cacheSize), o.initialCapacity(),
                    CFormat.g(1 - o.cache.varyCapacityRatio),
                    CFormat.g(1 + o.cache.varyCapacityRatio),
                    SoakOptions.formatDuration(o.varyCapacityIntervalNanos));
        } else {
            out.printf("Cache size          : %d (%s MiB), fixed%n", o.cache.cacheSize,
                    mib(o.cache.cacheSize));
        }
    }

    /** What the workers' population did, as text only. */
    void population(long inserted, Cache cache, long nanos) {
        if (o.json) {
            return;
        }
        out.printf(Locale.ROOT, "Population complete: %d inserts, %d entries, usage %s of"
                + " capacity %s MiB, %.1f s%n", inserted, cache.entryCount(),
                mib(cache.usage()), mib(cache.capacity()), nanos / 1e9);
        out.flush();
    }

    /** The heading of the interval lines, as text only. */
    void columns() {
        if (!o.json) {
            out.println(COLUMNS);
            out.flush();
        }
    }

    /** One interval line: {@code s} against the previous line's sample. */
    void line(SoakSample s, SoakSample prev) {
        double dt = (s.nanos - prev.nanos) / 1e9;
        double opsPerSec = dt > 0 ? (s.ops - prev.ops) / dt : 0;
        long lookups = s.lookups - prev.lookups;
        double hitRatio = lookups > 0 ? (double) (s.hits - prev.hits) / lookups : 0;
        if (o.json) {
            ObjectNode line = Json.object().put("type", "interval");
            Json.putRounded(line, "elapsed_s", s.nanos / 1e9)
                    .put("ops_per_s", Math.round(opsPerSec))
                    .put("total_ops", s.ops);
            Json.putRounded(line, "hit_ratio", hitRatio)
                    .put("failures", s.failures)
                    .put("rss_bytes", s.rss)
                    .put("native_bytes", s.nativeBytes)
                    .put("heap_used_bytes", s.heapUsed)
                    .put("usage_bytes", s.usage)
                    .put("capacity_bytes", s.capacity)
                    .put("entries", s.entries);
            out.println(Json.line(line));
        } else {
            out.printf(Locale.ROOT, "%9.1f %10d %13d %9.4f %8d %9s %10s %9s %9s %9s %9d%n",
                    s.nanos / 1e9, Math.round(opsPerSec), s.ops, hitRatio, s.failures,
                    s.rss < 0 ? "n/a" : mib(s.rss), mib(s.nativeBytes), mib(s.heapUsed),
                    mib(s.usage), mib(s.capacity), s.entries);
        }
        out.flush();
    }

    /** The summary, as text or one JSON line. */
    void summary(SoakOutcome r) {
        if (o.json) {
            out.println(Json.line(summaryJson(r)));
        } else {
            summaryCounts(r);
            summaryMemory(r);
            summaryLeaks(r.leaks());
            out.printf("Result: %s%n", r.result());
        }
        out.flush();
    }

    private ObjectNode summaryJson(SoakOutcome r) {
        long[] t = r.counts();
        SoakMonitor m = r.monitor();
        ObjectNode j = Json.object().put("type", "summary").put("cache_type", o.cache.cacheType)
                .put("partial", r.partial());
        Json.putRounded(j, "elapsed_s", r.seconds())
                .put("total_ops", t[OPS])
                .put("ops_per_s", Math.round(t[OPS] / r.seconds()))
                .put("lookups", t[LOOKUPS])
                .put("hits", t[HITS])
                .put("insert_pinned", t[INSERT_PINNED])
                .put("insert", t[INSERT])
                .put("refused_inserts", t[REFUSED])
                .put("erase", t[ERASE])
                .put("ref", t[REF])
                .put("release", t[RELEASE])
                .put("release_erase_if_last_ref", t[RELEASE_ERASE])
                .put("capacity_changes", m.capacityChanges)
                .put("gc_requests", m.gcRequests)
                .put("checks", t[CHECKS])
                .put("checksum_failures", r.checkFailures())
                .put("worker_error", r.failure() == null ? null : r.failure().toString());
        Json.putRounded(j, "warmup_s", m.warmupNanos / 1e9);
        RssCheck rss = r.rss();
        LeakCheck leaks = r.leaks();
        return j.put("rss_max_bytes", Math.max(m.maxRssDuringWarmup, rss.maxAfterWarmup()))
                .put("rss_before_cache_bytes", o.rssBeforeCache)
                .put("rss_growth_bound_bytes", rssBound())
                .put("rss_at_warmup_end_bytes", rss.atWarmupEnd())
                .put("rss_max_after_warmup_bytes", rss.maxAfterWarmup())
                .put("rss_allowance_bytes", rss.allowance())
                .put("rss_flat", rss.known() ? rss.flat() : null)
                .put("native_at_warmup_end_bytes",
                        m.atWarmupEnd == null ? -1 : m.atWarmupEnd.nativeBytes)
                .put("native_max_after_warmup_bytes", m.maxNativeAfterWarmup)
                .put("pinned_usage_after_release_bytes", leaks.pinnedUsage())
                .put("entries_after_drain", leaks.entriesAfterDrain())
                .put("usage_after_drain_bytes", leaks.usageAfterDrain())
                .put("expected_usage_after_drain_bytes", leaks.expectedUsage())
                .put("native_after_close_bytes", leaks.nativeAfterClose())
                .put("native_before_cache_bytes", leaks.nativeBaseline())
                .put("reserved_after_close_bytes", leaks.reservedAfterClose())
                .put("leak_free", leaks.leakFree())
                .put("result", r.result())
                .put("exit_code", r.exitCode());
    }

    private void summaryCounts(SoakOutcome r) {
        long[] t = r.counts();
        SoakMonitor m = r.monitor();
        out.println();
        out.println(r.partial() ? String.format(Locale.ROOT, "Summary (partial: stopped early"
                + " after %.1f s of %s)", r.seconds(), SoakOptions.formatDuration(o.durationNanos))
                : "Summary");
        out.printf(Locale.ROOT, "  Total ops             : %d in %.1f s (%d ops/s)%n", t[OPS],
                r.seconds(), Math.round(t[OPS] / r.seconds()));
        out.printf("  Lookups               : %d, hit ratio %s%n", t[LOOKUPS],
                CFormat.g(t[LOOKUPS] == 0 ? 0 : (double) t[HITS] / t[LOOKUPS]));
        out.printf("  Inserts               : insertPinned %d, insert %d (byte[] %d), refused %d%n",
                t[INSERT_PINNED], t[INSERT], t[ARRAY_INSERT], t[REFUSED]);
        out.printf("  Erases                : %d (found %d)%n", t[ERASE], t[ERASE_FOUND]);
        out.printf("  Releases              : %d (eraseIfLastRef %d, freed %d), extra refs %d%n",
                t[RELEASE], t[RELEASE_ERASE], t[FREED], t[REF]);
        out.printf("  Capacity changes      : %d%s%n", m.capacityChanges, m.capacityChanges == 0
                ? "" : " (" + mib(m.minCapacitySet) + " to " + mib(m.maxCapacitySet) + " MiB)");
        out.printf("  Value checks          : %d (copyValue(MemorySegment) %d, value() %d,"
                + " copyValue(byte[]) %d)%n", t[CHECKS], t[READ_COPY], t[READ_COPY + 1],
                t[READ_COPY + 2]);
        long failures = r.checkFailures();
        out.printf("  Checksum failures     : %d (wrong size %d, wrong charge %d, wrong key stamp "
                + "or"
                        + " checksum %d)  %s%n", failures, t[FAILURES], t[FAILURES + 1],
                t[FAILURES + 2], failures == 0 ? "PASS" : "FAIL");
        out.printf("  Worker errors         : %s  %s%n",
                r.failure() == null ? "none" : r.failure(), r.failure() == null ? "PASS" : "FAIL");
        out.printf("  Warm-up               : %s; GCs requested %d (-heap_gc_mib=%d)%n",
                SoakOptions.formatDuration(m.warmupNanos), m.gcRequests, o.heapGcMib);
    }

    /**
     * What the RSS should grow by at most over its value before the cache was made: the cache's
     * largest capacity + 10 % + 64 MiB (tables, slack, the JVM's own growth).
     */
    private long rssBound() {
        return o.initialCapacity() + o.initialCapacity() / 10 + 64 * SoakMemory.MIB;
    }

    private void summaryMemory(SoakOutcome r) {
        SoakMonitor m = r.monitor();
        RssCheck rss = r.rss();
        if (rss.known()) {
            long warm = rss.atWarmupEnd();
            long growth = rss.maxAfterWarmup() - warm;
            out.printf("  RSS at warm-up end    : %s MiB (max during warm-up %s MiB)%n",
                    mib(warm), mib(m.maxRssDuringWarmup));
            out.printf(Locale.ROOT, "  RSS max after warm-up : %s MiB (%s%s MiB, %+.1f%%); at the"
                            + " end %s MiB%n", mib(rss.maxAfterWarmup()), growth >= 0 ? "+" : "",
                    mib(growth), 100.0 * growth / warm, mib(r.last().rss));
            out.printf("  RSS flat              : %s (max after warm-up %s <= %s + max(%s%%, %d"
                            + " MiB) = %s MiB)%n", rss.flat() ? "PASS" : "FAIL",
                    mib(rss.maxAfterWarmup()), mib(warm), CFormat.g(o.rssTolerancePct),
                    o.rssToleranceMib, mib(warm + rss.allowance()));
        } else if (m.atWarmupEnd == null) {
            out.println("  RSS flat              : not judged (the run ended before the warm-up"
                    + " did)");
        } else {
            out.println("  RSS flat              : not judged (no VmRSS in /proc/self/status)");
        }
        long maxRss = Math.max(m.maxRssDuringWarmup, rss.maxAfterWarmup());
        if (maxRss >= 0 && o.rssBeforeCache >= 0) {
            long growth = maxRss - o.rssBeforeCache;
            out.printf(Locale.ROOT, "  RSS max (whole run)   : %s MiB, %s MiB over the %s MiB"
                    + " before the cache (%.1fx its largest capacity); bound capacity + 10%% + 64"
                    + " MiB = %s MiB: %s%n", mib(maxRss), mib(growth), mib(o.rssBeforeCache),
                    (double) growth / o.initialCapacity(), mib(rssBound()),
                    growth <= rssBound() ? "within" : "over");
        }
        if (m.atWarmupEnd != null) {
            out.printf("  Native at warm-up end : %s MiB; max after warm-up %s MiB%n",
                    mib(m.atWarmupEnd.nativeBytes), mib(m.maxNativeAfterWarmup));
        }
    }

    private void summaryLeaks(LeakCheck l) {
        out.printf("  Pinned after release  : %d bytes  %s%n", l.pinnedUsage(),
                l.pinnedOk() ? "PASS" : "FAIL");
        if (l.drained()) {
            long expected = l.expectedUsage();
            out.printf("  After erasing %d keys: %d entries, usage %d bytes (expected %s), native"
                            + " %s MiB  %s%n", l.keys(), l.entriesAfterDrain(), l.usageAfterDrain(),
                    expected < 0 ? "n/a" : expected + (expected == 0 ? "" : " = table metadata"),
                    mib(l.nativeAfterDrain()), l.drainOk() ? "PASS" : "FAIL");
        } else {
            out.printf("  After erasing all keys: skipped (%d keys, more than %d)%n",
                    l.keys(), LeakCheck.MAX_DRAIN_KEYS);
        }
        out.printf("  Native after close    : %d bytes (before the cache: %d), reserved %d bytes"
                        + " (before: %d)  %s%n", l.nativeAfterClose(), l.nativeBaseline(),
                l.reservedAfterClose(), l.reservedBaseline(), l.nativeOk() ? "PASS" : "FAIL");
    }
}
