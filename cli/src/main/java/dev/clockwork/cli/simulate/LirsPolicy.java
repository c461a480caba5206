package dev.clockwork.cli.simulate;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * LIRS, Low Inter-reference Recency Set (Jiang and Zhang, "LIRS: An Efficient Low Inter-reference
 * Recency Set Replacement Policy to Improve Buffer Cache Performance", SIGMETRICS 2002), in
 * entries. A block's inter-reference recency (IRR) is the number of other blocks accessed between
 * its last two accesses. Blocks with a low IRR (LIR) fill 99 % of the capacity and are never
 * evicted while LIR; the other 1 % holds resident blocks of high IRR (HIR), and only those are
 * evicted. Two LRU stacks:
 * <ul>
 *   <li>S holds the LIR blocks and every HIR block (resident or not) more recent than the least
 *       recent LIR block; pruning keeps an LIR block at S's bottom.</li>
 *   <li>Q holds the resident HIR blocks; a miss evicts Q's bottom, which stays in S, now
 *       non-resident, if it was there.</li>
 * </ul>
 * An HIR block accessed while in S (its new IRR is below the largest LIR recency) becomes LIR,
 * and S's bottom LIR block becomes a resident HIR block at Q's top; an HIR block accessed when
 * not in S stays HIR. Until the LIR share is full every block missed becomes LIR, then until the
 * cache is full HIR.
 *
 * <p>Choices: the shares follow Caffeine's simulator ({@code irr.LirsPolicy}): the LIR part is
 * {@code (int) (0.99 * capacity)}, so a capacity under 2 is refused (no room for an HIR block).
 * Non-resident HIR blocks in S are bounded at {@value #NON_RESIDENT_MULTIPLE} times the capacity,
 * Caffeine's default: past that the oldest of them leaves S and is forgotten (the paper bounds
 * nothing; without a bound S grows with every block seen between two uses of its bottom).
 * As in Caffeine's, an access repeating the one just before (the block is at S's top) leaves a
 * resident HIR block HIR: a correlated reference says nothing of its IRR, and the paper's rule
 * would promote it (on cs at 250 entries, 13.92 % with the paper's rule against 15.09 %). Sizes
 * are not supported: LIRS counts blocks, so {@code simulate} refuses it with {@code -bytes}.
 *
 * <p>Structure: S, Q and the queue of non-resident blocks (oldest evicted first, for the bound)
 * are insertion-ordered {@link LinkedHashMap}s, bottom first, over shared {@code Block}s, so
 * every step is O(1) but pruning, which is O(1) amortized.
 */
final class LirsPolicy implements SimPolicy {
    /** The LIR part of the capacity. */
    static final double LIR_SHARE = 0.99;
    /** Non-resident HIR blocks kept, as a multiple of the capacity. */
    static final int NON_RESIDENT_MULTIPLE = 2;
    /** The smallest capacity: one LIR block and one resident HIR block. */
    static final int MIN_CAPACITY = 2;

    private final int capacity;
    private final int maxLir;
    private final long maxNonResident;
    private final Map<Long, Block> blocks = new HashMap<>();
    private final LinkedHashMap<Long, Block> stack = new LinkedHashMap<>();
    private final LinkedHashMap<Long, Block> residentHir = new LinkedHashMap<>();
    private final LinkedHashMap<Long, Block> nonResident = new LinkedHashMap<>();
    private int lirCount;
    private int residentCount;

    /** @param capacity at least {@link #MIN_CAPACITY} entries */
    LirsPolicy(int capacity) {
        if (capacity < MIN_CAPACITY) {
            throw new IllegalArgumentException(refusal(capacity));
        }
        this.capacity = capacity;
        this.maxLir = (int) (capacity * LIR_SHARE);
        this.maxNonResident = (long) NON_RESIDENT_MULTIPLE * capacity;
    }

    /** Why LIRS cannot run at {@code capacity} entries, or null. */
    static String refusal(long capacity) {
        return capacity < MIN_CAPACITY ? "LIRS needs at least " + MIN_CAPACITY + " entries (one"
                + " LIR block and one resident HIR block)" : null;
    }

    @Override
    public boolean access(long key, long size) {
        Block block = blocks.get(key);
        if (block == null) {
            block = new Block(key);
            blocks.put(key, block);
            onMiss(block);
            return false;
        }
        switch (block.status) {
            case LIR -> onLirHit(block);
            case RESIDENT_HIR -> onResidentHirHit(block);
            case NON_RESIDENT_HIR -> {
                nonResident.remove(key);
                onMiss(block);
                return false;
            }
        }
        return true;
    }

    private void onLirHit(Block block) {
        boolean wasBottom = stack.firstEntry().getValue() == block;
        stack.putLast(block.key, block);
        if (wasBottom) {
            prune();
        }
    }

    private void onResidentHirHit(Block block) {
        // S's top is the block accessed last: a repeat says nothing of the block's IRR
        boolean promote = stack.containsKey(block.key) && stack.lastEntry().getValue() != block;
        stack.putLast(block.key, block);
        if (promote) {
            residentHir.remove(block.key);
            promote(block);
        } else {
            residentHir.putLast(block.key, block);
        }
    }

    /** A miss: a block never seen, or non-resident (the caller took it off that queue). */
    private void onMiss(Block block) {
        if (lirCount < maxLir) {
            block.status = Status.LIR;
            lirCount++;
            stack.putLast(block.key, block);
        } else if (residentCount < capacity) {
            block.status = Status.RESIDENT_HIR;
            stack.putLast(block.key, block);
            residentHir.putLast(block.key, block);
        } else {
            evict();
            boolean inStack = stack.containsKey(block.key);
            stack.putLast(block.key, block);
            if (inStack) {
                promote(block);
            } else {
                block.status = Status.RESIDENT_HIR;
                residentHir.putLast(block.key, block);
            }
        }
        residentCount++;
    }

    /** Makes {@code block} (at S's top, in no Q) LIR, and S's bottom LIR block resident HIR. */
    private void promote(Block block) {
        block.status = Status.LIR;
        Block bottom = stack.pollFirstEntry().getValue();
        bottom.status = Status.RESIDENT_HIR;
        residentHir.putLast(bottom.key, bottom);
        prune();
    }

    /** Evicts Q's bottom; it stays in S, non-resident, if it is there, else it is forgotten. */
    private void evict() {
        Block victim = residentHir.pollFirstEntry().getValue();
        residentCount--;
        if (stack.containsKey(victim.key)) {
            victim.status = Status.NON_RESIDENT_HIR;
            nonResident.putLast(victim.key, victim);
        } else {
            blocks.remove(victim.key);
        }
        prune();
    }

    /**
     * Removes HIR blocks from S's bottom until an LIR block is there (a non-resident one is then
     * forgotten), then forgets the oldest non-resident blocks past the bound.
     */
    private void prune() {
        while (!stack.isEmpty() && stack.firstEntry().getValue().status != Status.LIR) {
            Block bottom = stack.pollFirstEntry().getValue();
            if (bottom.status == Status.NON_RESIDENT_HIR) {
                nonResident.remove(bottom.key);
                blocks.remove(bottom.key);
            }
        }
        while (nonResident.size() > maxNonResident) {
            Block oldest = nonResident.pollFirstEntry().getValue();
            stack.remove(oldest.key);
            blocks.remove(oldest.key);
        }
    }

    /** Resident blocks (for tests). */
    int entryCount() {
        return residentCount;
    }

    /** LIR blocks (for tests). */
    int lirCount() {
        return lirCount;
    }

    /** Non-resident blocks remembered (for tests). */
    int nonResidentCount() {
        return nonResident.size();
    }

    /** Whether {@code key} is an LIR block (for tests). */
    boolean isLir(long key) {
        Block block = blocks.get(key);
        return block != null && block.status == Status.LIR;
    }

    private enum Status { LIR, RESIDENT_HIR, NON_RESIDENT_HIR }

    private static final class Block {
        final long key;
        Status status;

        Block(long key) {
            this.key = key;
        }
    }
}
