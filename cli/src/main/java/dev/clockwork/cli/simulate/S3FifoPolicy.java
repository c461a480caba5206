package dev.clockwork.cli.simulate;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * S3-FIFO (Yang et al., "FIFO queues are all you need for cache eviction", SOSP 2023): three FIFO
 * queues. A new key enters the small queue S (10 % of the capacity), unless the ghost queue G
 * remembers it, in which case it enters the main queue M (the other 90 %). A hit only raises the
 * entry's frequency, a 2-bit counter (at most 3). When the cache is full, S is evicted from if it
 * holds at least its share (or M is empty), else M:
 * <ul>
 *   <li>S's oldest entry moves to M if it was hit more than once while in S (frequency above 1),
 *       with its frequency reset (as in Caffeine's simulator); otherwise it leaves the cache and
 *       its key goes to G;</li>
 *   <li>M's oldest entry, while its frequency is above 0, goes back to M's head with the
 *       frequency lowered by one; the first with frequency 0 leaves the cache (not to G).</li>
 * </ul>
 * G is a FIFO of keys only, holding at most as many units as M's share (90 % of the capacity):
 * the paper gives G as many keys as M holds, and Caffeine's simulator bounds it so.
 *
 * <p>This follows Caffeine's simulator ({@code two_queue.S3FifoPolicy}, its defaults: S 10 %,
 * G 90 %, move to M above frequency 1, at most frequency 3), including its treatment of sizes:
 * shares are in the capacity's unit, eviction repeats until the new entry fits, an entry larger
 * than the capacity is not inserted, and a key larger than G is not remembered. One difference:
 * a hit does not resize an entry here (as in every policy of this simulator).
 *
 * <p>Structure: each queue is an insertion-ordered {@link LinkedHashMap} (oldest first), so a
 * key's queue is found by lookup and every queue operation is O(1).
 */
final class S3FifoPolicy implements SimPolicy {
    /** S's share of the capacity. */
    static final double SMALL_SHARE = 0.10;
    /** G's bound, as a share of the capacity (M's share). */
    static final double GHOST_SHARE = 0.90;
    /** An entry leaves S for M when its frequency is above this. */
    static final int MOVE_TO_MAIN_ABOVE = 1;
    /** 2-bit frequency counters. */
    static final int MAX_FREQUENCY = 3;

    private final long capacity;
    private final long maxSmall;
    private final long maxMain;
    private final long maxGhost;
    private final LinkedHashMap<Long, Entry> small = new LinkedHashMap<>();
    private final LinkedHashMap<Long, Entry> main = new LinkedHashMap<>();
    /** Keys evicted from S, to their sizes. */
    private final LinkedHashMap<Long, Long> ghost = new LinkedHashMap<>();
    private long usedSmall;
    private long usedMain;
    private long usedGhost;

    S3FifoPolicy(long capacity) {
        this.capacity = capacity;
        this.maxSmall = Math.max(1, (long) (capacity * SMALL_SHARE));
        this.maxMain = capacity - maxSmall;
        this.maxGhost = (long) (capacity * GHOST_SHARE);
    }

    @Override
    public boolean access(long key, long size) {
        Entry entry = small.get(key);
        if (entry == null) {
            entry = main.get(key);
        }
        if (entry != null) {
            entry.frequency = Math.min(entry.frequency + 1, MAX_FREQUENCY);
            return true;
        }
        if (size > capacity) {
            return false;
        }
        while (usedSmall + usedMain + size > capacity) {
            evict();
        }
        Long remembered = ghost.remove(key);
        if (remembered != null) {
            usedGhost -= remembered;
            insertMain(key, size);
        } else {
            small.put(key, new Entry(size));
            usedSmall += size;
        }
        return false;
    }

    private void insertMain(long key, long size) {
        main.put(key, new Entry(size));
        usedMain += size;
    }

    private void evict() {
        if (usedSmall >= maxSmall || main.isEmpty()) {
            evictFromSmall();
        } else {
            evictFromMain();
        }
    }

    /** Moves S's oldest entries to M until one leaves the cache (or S is empty). */
    private void evictFromSmall() {
        while (!small.isEmpty()) {
            Map.Entry<Long, Entry> victim = small.pollFirstEntry();
            long size = victim.getValue().size;
            usedSmall -= size;
            if (victim.getValue().frequency > MOVE_TO_MAIN_ABOVE) {
                insertMain(victim.getKey(), size);
                if (usedMain > maxMain) {
                    evictFromMain();
                }
            } else {
                remember(victim.getKey(), size);
                return;
            }
        }
    }

    /** Reinserts M's oldest entries at its head, each one lower, until one leaves the cache. */
    private void evictFromMain() {
        while (!main.isEmpty()) {
            Map.Entry<Long, Entry> victim = main.pollFirstEntry();
            Entry entry = victim.getValue();
            if (entry.frequency > 0) {
                entry.frequency--;
                main.put(victim.getKey(), entry);
            } else {
                usedMain -= entry.size;
                return;
            }
        }
    }

    private void remember(long key, long size) {
        if (size > maxGhost) {
            return;
        }
        while (usedGhost + size > maxGhost) {
            usedGhost -= ghost.pollFirstEntry().getValue();
        }
        ghost.put(key, size);
        usedGhost += size;
    }

    /** Units held in S and M (for tests). */
    long used() {
        return usedSmall + usedMain;
    }

    /** Units of keys remembered in G (for tests). */
    long ghostUsed() {
        return usedGhost;
    }

    /** Whether {@code key} is in M (for tests). */
    boolean inMain(long key) {
        return main.containsKey(key);
    }

    private static final class Entry {
        final long size;
        int frequency;

        Entry(long size) {
            this.size = size;
        }
    }
}
