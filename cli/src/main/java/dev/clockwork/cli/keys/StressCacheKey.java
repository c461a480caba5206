package dev.clockwork.cli.keys;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.common.Json;
import java.io.PrintWriter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code clockwork bench -stress_cache_key}: cache_bench's key-collision simulator run on
 * Clockwork's {@link dev.clockwork.cache.key.FileCacheKey}s, printing cache_bench's lines so that
 * one script reads both tools. Runs of {@code -sck_days_per_run} days repeat until
 * {@code -sck_min_collision} collisions are seen; the estimate of days between collisions is
 * then scaled by 2^(128 − keep_bits) / file size ("corrected") to the full key width. Runs are
 * independent, so they go on up to as many threads as there are cores (at most
 * {@code -threads}); results are taken in run order, so the lines are those a single thread
 * would print for the same seeds.
 */
public final class StressCacheKey {
    private final StressCacheKeyOptions o;
    private final long seed;
    private final int threads;
    private final double progressSeconds;
    private final PrintWriter out;
    private final PrintWriter err;
    private double multiplier;

    public StressCacheKey(StressCacheKeyOptions options, long seed, long threads,
                          double progressSeconds, PrintWriter out, PrintWriter err) {
        this.o = options;
        this.seed = seed;
        this.threads = concurrentRuns(threads);
        this.progressSeconds = progressSeconds;
        this.out = out;
        this.err = err;
    }

    /**
     * The runs at once for {@code -threads}: as many as there are cores, at most
     * {@code threads}, at least one.
     */
    public static int concurrentRuns(long threads) {
        return (int) Math.max(1, Math.min(threads, Runtime.getRuntime().availableProcessors()));
    }

    /**
     * Runs until enough collisions; returns the -json result. Only the runs in flight are held
     * (each with its table): a finished run's counts are added to the totals and the run is
     * dropped, so that however many runs it takes (small runs that never collide repeat for as
     * long as the user waits), memory stays that of {@link #threads} runs.
     */
    public ObjectNode run() throws InterruptedException {
        long start = System.nanoTime();
        printHeader();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "sck-run");
            t.setDaemon(true);
            return t;
        });
        Deque<InFlight> inFlight = new ArrayDeque<>();
        Totals totals = new Totals();
        try {
            for (int i = 0; i < threads; i++) {
                inFlight.add(submit(pool, totals.submitted++));
            }
            long nextProgress = progressDeadline();
            while (totals.collisions < o.minCollision) {
                InFlight next = inFlight.removeFirst();
                Long result = null;
                while (result == null) {
                    try {
                        result = next.future.get(200, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        if (progressSeconds > 0 && System.nanoTime() - nextProgress >= 0) {
                            printProgress(next, inFlight, totals);
                            nextProgress = progressDeadline();
                        }
                    } catch (ExecutionException e) {
                        throw new IllegalStateException("run " + (totals.done + 1) + " failed",
                                e.getCause());
                    }
                }
                totals.add(next.run);
                printRunLine(totals.done, totals.collisions);
                if (totals.collisions < o.minCollision) {
                    inFlight.add(submit(pool, totals.submitted++));
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return result(totals, (System.nanoTime() - start) / 1e9);
    }

    /** When the next progress line is due, in System.nanoTime() terms (compared by difference). */
    private long progressDeadline() {
        // saturated: an interval of years must not wrap the deadline into the past
        long interval = (long) Math.min(progressSeconds * 1e9, Long.MAX_VALUE / 2.0);
        return System.nanoTime() + interval;
    }

    /** A run and its result to come. */
    private record InFlight(KeyCollisionRun run, Future<Long> future) {
    }

    /** What the finished runs add up to; the runs themselves are not kept. */
    private static final class Totals {
        long submitted;
        long done;
        long collisions;
        long processes;
        long sessions;
        long zeros;

        void add(KeyCollisionRun run) {
            done++;
            collisions += run.collisions;
            processes += run.processCount;
            sessions += run.sessionCount;
            zeros += run.zeros;
        }
    }

    private InFlight submit(ExecutorService pool, long number) {
        // Each run's seed from the run's number: the same -seed gives the same lines.
        KeyCollisionRun run = new KeyCollisionRun(o, seed * 0x9E37_79B9_7F4A_7C15L + number + 1);
        return new InFlight(run, pool.submit(run::run));
    }

    private void printHeader() {
        double mbPerDay = (double) o.filesPerDay * o.fileSizeMb;
        out.printf("Total cache or DBs size: %sTiB  Writing %s MiB/s or %sTiB/day%n",
                CFormat.g(o.fileSizeMb / 1024.0 / 1024.0 * Math.pow(2.0, o.tableBits)),
                CFormat.g(mbPerDay / 86400.0), CFormat.g(mbPerDay / 1024.0 / 1024.0));
        long keep = Math.min(64, o.keepBits);
        multiplier = Math.pow(2.0, 128 - keep) / (o.fileSizeMb * 1024.0 * 1024.0);
        out.printf("Multiply by %s to correct for simulation losses (but still assume whole file"
                + " cached)%n", CFormat.g(multiplier));
        double withoutEjection = Math.pow(1.414214, keep) / o.filesPerDay;
        out.printf("Without ejection, expect random collision after %s days (%s corrected)%n",
                CFormat.g(withoutEjection), CFormat.g(withoutEjection * multiplier));
        double withFullTable = Math.pow(2.0, keep - o.tableBits) / o.filesPerDay;
        out.printf("With ejection and full table, expect random collision after %s days (%s"
                + " corrected)%n", CFormat.g(withFullTable), CFormat.g(withFullTable * multiplier));
        out.flush();
    }

    private void printRunLine(long runsDone, long collisions) {
        if (collisions == 0) {
            out.printf("No collisions after %d x %d days%n", runsDone, o.daysPerRun);
        } else {
            double est = 1.0 * runsDone * o.daysPerRun / collisions;
            out.printf("%d collisions after %d x %d days, est %s days between (%s corrected)%n",
                    collisions, runsDone, o.daysPerRun, CFormat.g(est),
                            CFormat.g(est * multiplier));
        }
        out.flush();
    }

    /** A line on standard error: each run in flight, its simulated days and collisions so far. */
    private void printProgress(InFlight first, Deque<InFlight> rest, Totals totals) {
        StringBuilder sb = new StringBuilder("stress_cache_key: ").append(totals.done)
                .append(" runs done, ").append(totals.collisions).append(" collisions;");
        long number = totals.done + 1;
        appendProgress(sb, number++, first.run);
        for (InFlight f : rest) {
            appendProgress(sb, number++, f.run);
        }
        err.println(sb);
        err.flush();
    }

    private void appendProgress(StringBuilder sb, long number, KeyCollisionRun r) {
        sb.append(" run ").append(number).append(": ").append(r.filesDone / o.filesPerDay)
                .append('/').append(o.daysPerRun).append(" days, ").append(r.collisions)
                .append(" coll;");
    }

    private ObjectNode result(Totals totals, double seconds) {
        ObjectNode node = Json.object();
        node.put("tool", "stress_cache_key");
        o.values().forEach((k, v) -> {
            if (v instanceof Boolean b) {
                node.put(k, b);
            } else {
                node.put(k, ((Number) v).longValue());
            }
        });
        node.put("seed", seed);
        node.put("threads", threads);
        node.put("runs", totals.done);
        node.put("collisions", totals.collisions);
        double est = totals.collisions == 0 ? Double.POSITIVE_INFINITY
                : 1.0 * totals.done * o.daysPerRun / totals.collisions;
        node.put("est_days_between", est);
        node.put("corrected_days_between", est * multiplier);
        node.put("multiplier", multiplier);
        node.put("processes", totals.processes);
        node.put("sessions", totals.sessions);
        node.put("zero_keys_skipped", totals.zeros); // cache_bench prints "Hit Zero!" for each
        Json.putRounded(node, "elapsed_seconds", seconds);
        return node;
    }
}
