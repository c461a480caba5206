package dev.clockwork.offheap;

/**
 * Slot occupancy of a {@link HyperClockCache}'s tables, from {@link HyperClockCache#tableReport()}:
 * the numbers behind RocksDB's {@code ReportProblems} line "Slot occupancy stats".
 *
 * <p>Windows and runs are computed per shard, over its slots in index order without wrapping
 * around, and then aggregated: the least of the shards' minimum windows, the greatest of their
 * maximum windows and longest runs. (RocksDB feeds all shards through one window, so its windows
 * and runs may span two shards; here they never do.)
 *
 * @param slots slots in all tables
 * @param occupied slots that were not empty (holding an entry, or being filled or freed)
 * @param window slots per window: 500, or fewer if a shard has fewer slots than that
 * @param minWindowOccupied fewest occupied slots seen in any window of {@code window} slots
 * @param maxWindowOccupied most occupied slots seen in any window of {@code window} slots
 * @param maxOccupiedRun longest run of consecutive occupied slots
 * @param maxEmptyRun longest run of consecutive empty slots
 * @param evictionEffortExceeded times an eviction gave up because of the eviction effort cap
 */
public record TableReport(long slots, long occupied, int window, long minWindowOccupied,
                          long maxWindowOccupied, long maxOccupiedRun, long maxEmptyRun,
                          long evictionEffortExceeded) {

    /** Window size used unless a shard is smaller, as in RocksDB. */
    public static final int DEFAULT_WINDOW = 500;

    /**
     * Occupied share of all slots, 0..1.
     *
     * @return {@code occupied / slots}, or 0 when there are no slots
     */
    public double occupancy() {
        return slots == 0 ? 0.0 : (double) occupied / slots;
    }

    /**
     * Occupied share of the least occupied window, 0..1.
     *
     * @return {@code minWindowOccupied / window}, or 0 when the window is empty
     */
    public double minWindowOccupancy() {
        return window == 0 ? 0.0 : (double) minWindowOccupied / window;
    }

    /**
     * Occupied share of the most occupied window, 0..1.
     *
     * @return {@code maxWindowOccupied / window}, or 0 when the window is empty
     */
    public double maxWindowOccupancy() {
        return window == 0 ? 0.0 : (double) maxWindowOccupied / window;
    }

    /**
     * The statistics in RocksDB's format, percentages rounded down, e.g.
     * {@code Overall 49% (128515/262144), Min/Max/Window = 23%/65%/500, MaxRun{Pos/Neg} = 18/27}.
     *
     * @return the summary line; a percentage of nothing (no slots, an empty window) is
     *     {@code ??%}
     */
    public String occupancySummary() {
        return "Overall " + percent(occupied, slots) + " (" + occupied + "/" + slots
                + "), Min/Max/Window = " + percent(minWindowOccupied, window) + "/"
                + percent(maxWindowOccupied, window) + "/" + window
                + ", MaxRun{Pos/Neg} = " + maxOccupiedRun + "/" + maxEmptyRun;
    }

    private static String percent(long part, long whole) {
        return whole == 0 ? "??%" : (100 * part / whole) + "%";
    }
}
