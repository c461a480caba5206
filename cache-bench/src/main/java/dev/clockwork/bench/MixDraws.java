package dev.clockwork.bench;

/**
 * A thread's cache_bench draws, made on the fly from a SplitMix64 counter (a few ns each, no
 * allocation): a key skewed like {@code cache_bench -skew=5} and a percentage that picks the op.
 * A precomputed, repeating sequence would shrink the key space and inflate hit ratios.
 */
final class MixDraws {
    /** {@code -skew=5}: a key is the minimum of 6 uniform draws, P(key < xN) = 1 - (1 - x)^6. */
    static final int SKEW_DRAWS = 6;

    private long state;

    MixDraws(long seed) {
        this.state = seed;
    }

    /** Skewed key: the minimum of {@value #SKEW_DRAWS} uniform draws from [0, maxKey). */
    long key(long maxKey) {
        long key = Long.MAX_VALUE;
        for (int d = 0; d < SKEW_DRAWS; d++) {
            key = Math.min(key, BenchRandom.below(next(), maxKey));
        }
        return key;
    }

    /** Uniform in [0, 100): picks the op. */
    int percent() {
        return (int) BenchRandom.below(next(), 100);
    }

    private long next() {
        return BenchRandom.mix(state += BenchRandom.GOLDEN);
    }
}
