package dev.clockwork.offheap;

/**
 * Chain statistics of an {@link AutoHyperClockCache}, from {@link
 * AutoHyperClockCache#chainReport()}.
 *
 * @param homes homes (chain heads) in use in all tables: the tables' current length
 * @param nonEmptyHeads homes whose chain has at least one entry
 * @param entries entries found on chains
 * @param entriesAtHome entries stored in their own home slot (a lookup then touches one line)
 * @param maxChainLength longest chain seen
 * @param yieldCount times a thread had to wait for another (a chain's rewrite lock, or a split
 *     its own split depends on)
 * @param lookupRestarts times a lookup walked a chain again after noticing a concurrent change
 * @param reservedBytes address space reserved for the tables, resident or not
 */
public record ChainReport(long homes, long nonEmptyHeads, long entries, long entriesAtHome,
                          long maxChainLength, long yieldCount, long lookupRestarts,
                          long reservedBytes) {

    /**
     * Share of homes with a non-empty chain, 0..1.
     *
     * @return {@code nonEmptyHeads / homes}, or 0 when there are no homes
     */
    public double headOccupancy() {
        return homes == 0 ? 0.0 : (double) nonEmptyHeads / homes;
    }

    /**
     * Share of entries stored in their home slot, 0..1.
     *
     * @return {@code entriesAtHome / entries}, or 0 when there are no entries
     */
    public double atHomeRatio() {
        return entries == 0 ? 0.0 : (double) entriesAtHome / entries;
    }

    /**
     * One line, percentages rounded down ({@code ??%} when there is nothing to divide by), e.g.
     * {@code Head occupancy 41% (420/1024), entries at home 78% (390/500), longest chain 5,
     * yield count 3, lookup restarts 0}.
     *
     * @return the summary line
     */
    public String summary() {
        return "Head occupancy " + percent(nonEmptyHeads, homes) + " (" + nonEmptyHeads + "/"
                + homes + "), entries at home " + percent(entriesAtHome, entries) + " ("
                + entriesAtHome + "/" + entries + "), longest chain " + maxChainLength
                + ", yield count " + yieldCount + ", lookup restarts " + lookupRestarts;
    }

    private static String percent(long part, long whole) {
        return whole == 0 ? "??%" : (100 * part / whole) + "%";
    }
}
