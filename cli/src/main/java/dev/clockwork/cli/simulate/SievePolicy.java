package dev.clockwork.cli.simulate;

import java.util.HashMap;
import java.util.Map;

/**
 * SIEVE (Zhang et al., "SIEVE is Simpler than LRU: an Efficient Turn-Key Eviction Algorithm for
 * Web Caches", NSDI 2024): one FIFO queue of entries, each with a visited bit. A hit only sets
 * the bit; a new entry goes in at the head. To evict, a hand walks from where it last stopped
 * (at first the tail, the oldest entry) towards the head, clearing visited bits, and evicts the
 * first entry whose bit is clear; it then rests on the next newer entry, and wraps to the tail
 * past the head. Unlike CLOCK, a survivor stays where it is instead of moving to the head, so new
 * entries that are never hit (one-hit wonders) are met by the hand soon after they arrive.
 *
 * <p>Structure: a hash map from key to node, and the queue as a doubly linked list through the
 * nodes ({@code newer} points towards the head). Sizes are supported as in Caffeine's simulator
 * ({@code linked.Sieve}): the hand evicts until the new entry fits; an entry larger than the
 * whole capacity is not inserted. A hit does not resize an entry (as in every policy here).
 */
final class SievePolicy implements SimPolicy {
    private final long capacity;
    private final Map<Long, Node> entries = new HashMap<>();
    /** Newest entry, or null when empty. */
    private Node head;
    /** Oldest entry, or null when empty. */
    private Node tail;
    /** Where the next eviction starts; null means the tail. */
    private Node hand;
    /** Sum of the sizes of the entries held; at most {@code capacity}. */
    private long used;

    SievePolicy(long capacity) {
        this.capacity = capacity;
    }

    @Override
    public boolean access(long key, long size) {
        Node node = entries.get(key);
        if (node != null) {
            node.visited = true;
            return true;
        }
        if (size > capacity) {
            return false;
        }
        while (used + size > capacity) {
            evict();
        }
        node = new Node(key, size);
        entries.put(key, node);
        used += size;
        node.older = head;
        if (head != null) {
            head.newer = node;
        }
        head = node;
        if (tail == null) {
            tail = node;
        }
        return false;
    }

    private void evict() {
        Node victim = hand == null ? tail : hand;
        while (victim.visited) {
            victim.visited = false;
            victim = victim.newer == null ? tail : victim.newer;
        }
        hand = victim.newer;
        unlink(victim);
        entries.remove(victim.key);
        used -= victim.size;
    }

    private void unlink(Node node) {
        if (node.newer == null) {
            head = node.older;
        } else {
            node.newer.older = node.older;
        }
        if (node.older == null) {
            tail = node.newer;
        } else {
            node.older.newer = node.newer;
        }
    }

    /** Entries held (for tests). */
    int entryCount() {
        return entries.size();
    }

    /** Sum of the sizes held (for tests). */
    long used() {
        return used;
    }

    private static final class Node {
        final long key;
        final long size;
        Node newer;
        Node older;
        boolean visited;

        Node(long key, long size) {
            this.key = key;
            this.size = size;
        }
    }
}
