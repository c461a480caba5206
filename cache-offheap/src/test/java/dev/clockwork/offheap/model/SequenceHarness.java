package dev.clockwork.offheap.model;

import dev.clockwork.offheap.NativeMemory;
import dev.clockwork.offheap.model.SequenceConfig.CacheType;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Runs many seeded sequences of one cache type against its reference model, and on a failure
 * shrinks the sequence and reports it so that it replays exactly.
 *
 * <p>System properties (pass them to Maven with {@code -D}; surefire hands them to the tests):
 * <ul>
 *   <li>{@code clockwork.model.sequences} (default {@value #DEFAULT_SEQUENCES}): sequences per
 *       cache type;</li>
 *   <li>{@code clockwork.model.ops} (default {@value #DEFAULT_OPS}): operations per sequence
 *       (before the finale that releases, audits and erases everything);</li>
 *   <li>{@code clockwork.model.seed}: the base seed (decimal or 0x-hex), or {@code random} for a
 *       new one each run (printed); default a fixed seed per type, so CI runs the same sequences
 *       every time;</li>
 *   <li>{@code clockwork.model.replay}: run only the sequence with this seed (as printed in a
 *       failure report), with the same {@code clockwork.model.ops}.</li>
 *   <li>{@code clockwork.model.timeoutSeconds} (default {@value #DEFAULT_TIMEOUT_SECONDS}): a
 *       sequence still running after this long is reported as a hang, with its seed and where
 *       it is stuck (sequences run on a worker thread for this; a sequence takes
 * milliseconds).</li>
 * </ul>
 */
final class SequenceHarness {
    static final int DEFAULT_SEQUENCES = 1000;
    static final int DEFAULT_OPS = 200;
    static final int DEFAULT_TIMEOUT_SECONDS = 60;
    private static final int SHRINK_RUNS = 5000;

    private SequenceHarness() {
    }

    /** A generated sequence: its seed, the cache configuration and the operations. */
    record Sequence(long seed, SequenceConfig config, List<Op> ops) {
        static Sequence of(CacheType type, long seed, int opCount) {
            SplittableRandom r = new SplittableRandom(seed);
            SequenceConfig config = SequenceConfig.draw(type, r);
            return new Sequence(seed, config, config.drawOps(r, opCount));
        }
    }

    /** Runs one sequence's ops (any sub-list of them) on a fresh cache; the failure or null. */
    static Throwable run(SequenceConfig config, List<Op> ops) {
        ReferenceModel model = config.type() == CacheType.LRU
                ? new LruReference(config, ops) : new HyperClockReference(config, ops);
        return model.run();
    }

    /** A sequence that did not finish in time; the worker thread is left behind, stuck. */
    static final class Hang extends AssertionError {
        Hang(String message) {
            super(message);
        }
    }

    /** Runs sequences on a worker thread, so that one that hangs is reported, not waited for. */
    private static final class Worker implements AutoCloseable {
        private final long timeoutSeconds =
                Integer.getInteger("clockwork.model.timeoutSeconds", DEFAULT_TIMEOUT_SECONDS);
        private Thread thread;
        private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            thread = new Thread(r, "model-sequence");
            thread.setDaemon(true);
            return thread;
        });

        Throwable run(SequenceConfig config, List<Op> ops) {
            Future<Throwable> result = executor.submit(() -> SequenceHarness.run(config, ops));
            try {
                return result.get(timeoutSeconds, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                String stack = Arrays.stream(thread.getStackTrace()).map(f -> "    at " + f)
                        .collect(Collectors.joining("\n"));
                throw new Hang("did not finish in " + timeoutSeconds + " s; stuck at\n" + stack);
            } catch (ExecutionException e) {
                return e.getCause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }

    /** What a run of many sequences did. */
    record Summary(int sequences, long ops, long millis) {
    }

    static Summary runAll(CacheType type, String testClass, long defaultSeed) {
        int opCount = Integer.getInteger("clockwork.model.ops", DEFAULT_OPS);
        String replay = System.getProperty("clockwork.model.replay");
        long start = System.nanoTime();
        if (replay != null && !replay.isBlank()) {
            try (Worker worker = new Worker()) {
                runChecked(worker, type, testClass, parse(replay), opCount);
            }
            return new Summary(1, opCount, (System.nanoTime() - start) / 1_000_000);
        }
        int sequences = Integer.getInteger("clockwork.model.sequences", DEFAULT_SEQUENCES);
        String seedProperty = System.getProperty("clockwork.model.seed", "");
        long base = seedProperty.isBlank() ? defaultSeed
                : seedProperty.equals("random") ? System.nanoTime() : parse(seedProperty);
        if (seedProperty.equals("random")) {
            System.out.printf("%s: base seed 0x%x%n", testClass, base);
        }
        SplittableRandom seeds = new SplittableRandom(base);
        try (Worker worker = new Worker()) {
            for (int i = 0; i < sequences; i++) {
                runChecked(worker, type, testClass, seeds.nextLong(), opCount);
            }
        }
        return new Summary(sequences, (long) sequences * opCount,
                (System.nanoTime() - start) / 1_000_000);
    }

    private static void runChecked(Worker worker, CacheType type, String testClass, long seed,
                                   int opCount) {
        Sequence sequence = Sequence.of(type, seed, opCount);
        Throwable failure;
        try {
            failure = worker.run(sequence.config(), sequence.ops());
        } catch (Hang hang) {
            throw new AssertionError(String.format("model-based test: sequence seed 0x%x, %s, %d"
                    + " ops %s%nreplay: ./mvnw -q -o test -pl cache-offheap -Dtest=%s"
                    + " -Dclockwork.model.replay=0x%x -Dclockwork.model.ops=%d", seed,
                    sequence.config(), opCount, hang.getMessage(), testClass, seed, opCount));
        }
        if (failure != null) {
            throw report(worker, testClass, sequence, failure);
        }
    }

    private static AssertionError report(Worker worker, String testClass, Sequence sequence,
                                         Throwable failure) {
        String signature = signature(failure);
        Shrinker shrinker = new Shrinker(ops -> {
            Throwable t = worker.run(sequence.config(), ops);
            return t != null && signature(t).equals(signature);
        }, SHRINK_RUNS);
        List<Op> minimal;
        try {
            minimal = shrinker.shrink(sequence.ops());
        } catch (Hang hang) {
            minimal = sequence.ops(); // a shorter sequence hung: report the original
        }
        Throwable minimalFailure = run(sequence.config(), minimal);
        if (minimalFailure == null) {
            // Not reproducible (should not happen: everything here is deterministic).
            minimal = sequence.ops();
            minimalFailure = failure;
        }
        StringBuilder b = new StringBuilder();
        b.append(String.format("model-based test failed: sequence seed 0x%x, %s, %d ops%n",
                sequence.seed(), sequence.config(), sequence.ops().size()));
        b.append("original failure: ").append(failure).append('\n');
        b.append(String.format("minimal failing sequence: %d ops (from %d, %d shrinking runs)%n",
                minimal.size(), sequence.ops().size(), shrinker.runs()));
        for (int i = 0; i < minimal.size(); i++) {
            b.append(String.format("  %3d: %s%n", i, minimal.get(i)));
        }
        b.append("  (then the finale: release every held handle, audit, erase every key)\n");
        b.append("its failure: ").append(minimalFailure).append('\n');
        b.append(String.format("replay: ./mvnw -q -o test -pl cache-offheap -Dtest=%s"
                + " -Dclockwork.model.replay=0x%x -Dclockwork.model.ops=%d%n", testClass,
                sequence.seed(), sequence.ops().size()));
        b.append("native bytes outstanding now: ").append(NativeMemory.outstandingBytes());
        return new AssertionError(b.toString(), minimalFailure);
    }

    /** The kind of a failure, stable across shrinking: class and message without step or digits. */
    static String signature(Throwable t) {
        String m = String.valueOf(t.getMessage());
        int colon = m.indexOf(": ");
        if (m.startsWith("step ") || m.startsWith("finale")) {
            m = colon >= 0 ? m.substring(colon + 2) : m;
        }
        m = m.replaceAll("[0-9]", "");
        return t.getClass().getName() + ":" + m.substring(0, Math.min(m.length(), 40));
    }

    static long parse(String s) {
        s = s.trim();
        return s.startsWith("0x") || s.startsWith("0X") ? Long.parseUnsignedLong(s.substring(2), 16)
                : Long.parseLong(s);
    }
}
