package dev.clockwork.cli.keys;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.clockwork.cli.common.CFormat;
import dev.clockwork.cli.common.Json;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
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

    public StressCacheKey(StressCacheKeyOptions options, long seed, int threads,
                          double progressSeconds, PrintWriter out, PrintWriter err) {
        this.o = options;
        this.seed = seed;
        this.threads = Math.max(1, Math.min(threads, Runtime.getRuntime().availableProcessors()));
        this.progressSeconds = progressSeconds;
        this.out = out;
        this.err = err;
    }

    /** Runs until enough collisions; returns the -json result. */
    public ObjectNode run() throws InterruptedException {
        long start = System.nanoTime();
        printHeader();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "sck-run");
            t.setDaemon(true);
            return t;
        });
        List<KeyCollisionRun> runs = new ArrayList<>();
        List<Future<Long>> futures = new ArrayList<>();
        long collisions = 0;
        int done = 0;
        try {
            for (int i = 0; i < threads; i++) {
                submit(pool, runs, futures);
            }
            long nextProgress = System.nanoTime() + (long) (progressSeconds * 1e9);
            while (collisions < o.minCollision) {
                Future<Long> next = futures.get(done);
                Long result = null;
                while (result == null) {
                    try {
                        result = next.get(200, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        if (progressSeconds > 0 && System.nanoTime() >= nextProgress) {
                            printProgress(runs, done, collisions);
                            nextProgress = System.nanoTime() + (long) (progressSeconds * 1e9);
                        }
                    } catch (ExecutionException e) {
                        throw new IllegalStateException("run " + (done + 1) + " failed", e.getCause());
                    }
                }
                done++;
                collisions += result;
                printRunLine(done, collisions);
                if (collisions < o.minCollision) {
                    submit(pool, runs, futures);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return result(done, collisions, runs, (System.nanoTime() - start) / 1e9);
    }

    private void submit(ExecutorService pool, List<KeyCollisionRun> runs, List<Future<Long>> futures) {
        // Each run's seed from the run's number: the same -seed gives the same lines.
        KeyCollisionRun run = new KeyCollisionRun(o, seed * 0x9E37_79B9_7F4A_7C15L + runs.size() + 1);
        runs.add(run);
        futures.add(pool.submit(run::run));
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

    private void printRunLine(int runsDone, long collisions) {
        if (collisions == 0) {
            out.printf("No collisions after %d x %d days%n", runsDone, o.daysPerRun);
        } else {
            double est = 1.0 * runsDone * o.daysPerRun / collisions;
            out.printf("%d collisions after %d x %d days, est %s days between (%s corrected)%n",
                    collisions, runsDone, o.daysPerRun, CFormat.g(est), CFormat.g(est * multiplier));
        }
        out.flush();
    }

    /** A line on standard error: each run in flight, its simulated days and collisions so far. */
    private void printProgress(List<KeyCollisionRun> runs, int done, long collisions) {
        StringBuilder sb = new StringBuilder("stress_cache_key: ").append(done)
                .append(" runs done, ").append(collisions).append(" collisions;");
        for (int i = done; i < runs.size(); i++) {
            KeyCollisionRun r = runs.get(i);
            sb.append(" run ").append(i + 1).append(": ")
                    .append(r.filesDone / o.filesPerDay).append('/').append(o.daysPerRun)
                    .append(" days, ").append(r.collisions).append(" coll;");
        }
        err.println(sb);
        err.flush();
    }

    private ObjectNode result(int runsDone, long collisions, List<KeyCollisionRun> runs,
                              double seconds) {
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
        node.put("runs", runsDone);
        node.put("collisions", collisions);
        double est = collisions == 0 ? Double.POSITIVE_INFINITY
                : 1.0 * runsDone * o.daysPerRun / collisions;
        node.put("est_days_between", est);
        node.put("corrected_days_between", est * multiplier);
        node.put("multiplier", multiplier);
        long processes = 0;
        long sessions = 0;
        long zeros = 0;
        for (int i = 0; i < runsDone; i++) {
            processes += runs.get(i).processCount;
            sessions += runs.get(i).sessionCount;
            zeros += runs.get(i).zeros;
        }
        node.put("processes", processes);
        node.put("sessions", sessions);
        node.put("zero_keys_skipped", zeros); // cache_bench prints "Hit Zero!" for each
        Json.putRounded(node, "elapsed_seconds", seconds);
        return node;
    }
}
