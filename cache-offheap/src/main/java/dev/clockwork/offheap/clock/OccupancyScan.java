package dev.clockwork.offheap.clock;

import static dev.clockwork.offheap.clock.SlotLayout.SLOT_BYTES;

/**
 * What a scan of one table's meta words found (RocksDB's occupancy diagnostics): occupied
 * (non-empty) slots, the least and most occupied of all {@code window} consecutive slots, and the
 * longest runs of occupied and of empty slots. Windows and runs do not wrap around. Racing
 * writers make it approximate.
 */
public final class OccupancyScan {
    public long occupied;
    public long minWindowOccupied;
    public long maxWindowOccupied;
    public long maxOccupiedRun;
    public long maxEmptyRun;

    private OccupancyScan() {
    }

    /**
     * Reads every slot's meta word once (opaque) in index order.
     *
     * @param window at least 1 and at most the table's used slots
     */
    static OccupancyScan of(ClockProtocol table, int window) {
        OccupancyScan scan = new OccupancyScan();
        boolean[] recent = new boolean[window]; // the last window readings, as a ring
        long inWindow = 0;
        long minWindow = window;
        long maxWindow = 0;
        long run = 0; // > 0: occupied run length; < 0: empty run length
        long index = 0;
        long end = table.usedSlots() * SLOT_BYTES;
        for (long slot = 0; slot < end; slot += SLOT_BYTES, index++) {
            boolean occupied = !ClockMeta.isEmpty(table.getMetaOpaque(slot));
            int ring = (int) (index % window);
            if (index >= window && recent[ring]) {
                inWindow--;
            }
            recent[ring] = occupied;
            if (occupied) {
                inWindow++;
                scan.occupied++;
                run = run > 0 ? run + 1 : 1;
                scan.maxOccupiedRun = Math.max(scan.maxOccupiedRun, run);
            } else {
                run = run < 0 ? run - 1 : -1;
                scan.maxEmptyRun = Math.max(scan.maxEmptyRun, -run);
            }
            if (index + 1 >= window) {
                minWindow = Math.min(minWindow, inWindow);
                maxWindow = Math.max(maxWindow, inWindow);
            }
        }
        scan.minWindowOccupied = minWindow;
        scan.maxWindowOccupied = maxWindow;
        return scan;
    }
}
