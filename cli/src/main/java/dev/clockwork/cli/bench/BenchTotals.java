package dev.clockwork.cli.bench;

/**
 * The workers' results summed, as the report prints them.
 *
 * @param ops the operations the workers did (fewer than asked when the run was stopped)
 * @param threadSecs the workers' run times added up
 * @param unlucky a worker's value hashes summed to exactly 1, which cache_bench reports as bad
 *     luck (the sum exists only so that the JIT cannot drop the hashing)
 */
record BenchTotals(long ops, double threadSecs, long hits, long lookups, long pinned, long refused,
                   long verifyFailures, boolean unlucky) {

    static BenchTotals of(BenchWorker[] workers, long populateVerifyFailures) {
        long ops = 0;
        double threadSecs = 0;
        long hits = 0;
        long lookups = 0;
        long pinned = 0;
        long refused = 0;
        long verifyFailures = populateVerifyFailures;
        boolean unlucky = false;
        for (BenchWorker w : workers) {
            ops += w.done;
            threadSecs += w.durationNanos * 1e-9;
            hits += w.hits;
            lookups += w.hits + w.misses;
            pinned += w.pinnedAtEnd;
            refused += w.refusedInserts;
            verifyFailures += w.verifyFailures;
            unlucky |= w.result == 1;
        }
        return new BenchTotals(ops, threadSecs, hits, lookups, pinned, refused, verifyFailures,
                unlucky);
    }
}
