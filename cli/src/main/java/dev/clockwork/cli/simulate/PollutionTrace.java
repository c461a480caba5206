package dev.clockwork.cli.simulate;

import dev.clockwork.cli.workload.Random64;
import java.util.BitSet;
import java.util.Locale;

/**
 * The built-in pollution scenario: a "good" stream over a key space of a few times the capacity
 * (uniform, or Zipf with exponent {@value #ZIPF_EXPONENT}) strictly alternating with keys that
 * are never repeated (one-hit wonders), so half of all accesses pollute. Only good accesses after
 * the first {@value #WARMUP_PERCENT}% of the stream are measured (the cold start is left out).
 *
 * <p>Good keys are the ranks {@code 0 .. goodKeys-1} (rank 0 the most frequent under Zipf);
 * polluting keys are {@code goodKeys, goodKeys + 1, ...}, so the two never meet. The same
 * arguments give the same trace: one {@link Random64} seeded with {@code seed} draws the good
 * stream.
 */
public final class PollutionTrace {
    private PollutionTrace() {
    }

    public static final double ZIPF_EXPONENT = 0.9;
    /** Default good key space, in multiples of the capacity. */
    public static final long DEFAULT_KEYS_PER_ENTRY = 4;
    static final int WARMUP_PERCENT = 10;

    /** The good stream's distribution, by the name {@code -pollution} takes. */
    public enum Distribution {
        UNIFORM,
        ZIPF;

        public String flagName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The distribution named {@code name}, or null. */
        public static Distribution byName(String name) {
            for (Distribution d : values()) {
                if (d.flagName().equals(name)) {
                    return d;
                }
            }
            return null;
        }
    }

    /** The trace's name: {@code pollution-uniform} or {@code pollution-zipf}. */
    public static String name(Distribution d) {
        return "pollution-" + d.flagName();
    }

    /**
     * @param accesses all accesses, good and polluting, at most {@link Trace.Builder#MAX_LENGTH}
     * @param goodKeys the good stream's key space, 1 to {@link Integer#MAX_VALUE}
     */
    public static Trace generate(Distribution d, int accesses, int goodKeys, long seed) {
        Random64 random = new Random64(seed);
        ZipfSampler zipf = d == Distribution.ZIPF ? new ZipfSampler(goodKeys, ZIPF_EXPONENT) : null;
        long[] keys = new long[accesses];
        BitSet measured = new BitSet(accesses);
        int warmup = (int) ((long) accesses * WARMUP_PERCENT / 100);
        long nextPolluter = goodKeys;
        for (int i = 0; i < accesses; i++) {
            if ((i & 1) == 0) {
                keys[i] = zipf != null ? zipf.next(random) : random.uniform(goodKeys);
                if (i >= warmup) {
                    measured.set(i);
                }
            } else {
                keys[i] = nextPolluter++;
            }
        }
        return new Trace(name(d), keys, null, measured);
    }
}
