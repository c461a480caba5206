package dev.clockwork.cli.workload;

/**
 * The operation mix of both commands: the share of each operation kind in percent, in
 * cache_bench's op-selection order. An operation is picked by comparing (unsigned) one random
 * uint64 with the cumulative thresholds, each percent being {@code UINT64_MAX / 100} wide; the
 * 15 values at the very top ({@code >= 100} hundredths) pick no operation, as in cache_bench.
 */
public record OpMix(long lookupInsertPercent, long insertPercent, long blindInsertPercent,
                    long lookupPercent, long erasePercent, long scanPercent) {

    /** cache_bench's five kinds, no scans. */
    public OpMix(long lookupInsertPercent, long insertPercent, long blindInsertPercent,
                 long lookupPercent, long erasePercent) {
        this(lookupInsertPercent, insertPercent, blindInsertPercent, lookupPercent, erasePercent,
                0);
    }

    /** {@code UINT64_MAX / 100}: the width of one percent in the space of a random uint64. */
    public static final long HUNDREDTH_UINT64 = Long.divideUnsigned(-1L, 100);

    /**
     * The cumulative thresholds: an op below element i (unsigned) and not below element i - 1
     * is of kind i (lookup-insert, insert, blind insert, lookup, erase, scan step).
     */
    public long[] thresholds() {
        long lookupInsert = HUNDREDTH_UINT64 * lookupInsertPercent;
        long insert = lookupInsert + HUNDREDTH_UINT64 * insertPercent;
        long blindInsert = insert + HUNDREDTH_UINT64 * blindInsertPercent;
        long lookup = blindInsert + HUNDREDTH_UINT64 * lookupPercent;
        long erase = lookup + HUNDREDTH_UINT64 * erasePercent;
        long scan = erase + HUNDREDTH_UINT64 * scanPercent;
        return new long[] {lookupInsert, insert, blindInsert, lookup, erase, scan};
    }

    /** Null when the five percentages add to 100, else a message naming each flag. */
    public String check() {
        long sum = lookupInsertPercent + insertPercent + blindInsertPercent + lookupPercent
                + erasePercent + scanPercent;
        if (sum == 100) {
            return null;
        }
        return "Percentages must add to 100: -lookup_insert_percent=" + lookupInsertPercent
                + " + -insert_percent=" + insertPercent
                + " + -blind_insert_percent=" + blindInsertPercent
                + " + -lookup_percent=" + lookupPercent
                + " + -erase_percent=" + erasePercent
                + (scanPercent != 0 ? " + -scan_percent=" + scanPercent : "") + " = " + sum;
    }
}
