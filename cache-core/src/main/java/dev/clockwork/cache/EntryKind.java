package dev.clockwork.cache;

import dev.clockwork.cache.internal.Args;

/**
 * A kind of entry a storage engine caches (a data, index or filter block, a blob, or a kind of
 * its own), as RocksDB's {@code CacheEntryRole}: given as an insert's {@link Placement}, it tags
 * the entry, gives it the kind's priority, and makes the cache count the kind's usage and
 * entries ({@link CacheStats#kinds()}); a lookup naming the kind
 * ({@link Cache#lookup(long, long, EntryKind)}) counts its hit or miss under the kind.
 *
 * <p>A cache counts the kinds declared on its builder ({@code kinds(EntryKind...)}), at most one
 * per index; inserting or looking up a kind it was not built with is refused. An index is 1 to
 * {@value #MAX_INDEX}: it is stored in four bits of the entry's record. Two kinds are equal when
 * their name, index and priority are.
 *
 * <p>The standard kinds follow RocksDB's block-based tables: index and filter blocks are cached
 * with high priority, data blocks with low, blobs with bottom.
 */
public final class EntryKind implements Placement {
    /** The largest index a kind may have. */
    public static final int MAX_INDEX = 15;

    /**
     * Kind 0: what untagged entries (inserted with a {@link Priority}) are reported as, e.g. to
     * an {@link EntryVisitor}. Never counted per kind: its figures are the cache's totals minus
     * the declared kinds'. Inserting with it is inserting with {@link Priority#LOW}.
     */
    public static final EntryKind DEFAULT = new EntryKind("default", 0, Priority.LOW);
    /** Data blocks: {@link Priority#LOW}. */
    public static final EntryKind DATA = new EntryKind("data", 1, Priority.LOW);
    /** Index blocks: {@link Priority#HIGH}. */
    public static final EntryKind INDEX = new EntryKind("index", 2, Priority.HIGH);
    /** Filter blocks: {@link Priority#HIGH}. */
    public static final EntryKind FILTER = new EntryKind("filter", 3, Priority.HIGH);
    /** Blob values: {@link Priority#BOTTOM}. */
    public static final EntryKind BLOB = new EntryKind("blob", 4, Priority.BOTTOM);

    private final String name;
    private final int index;
    private final Priority priority;

    private EntryKind(String name, int index, Priority priority) {
        this.name = name;
        this.index = index;
        this.priority = priority;
    }

    /**
     * A kind of the engine's own.
     *
     * @param name the kind's name, as metrics tag it; not empty
     * @param index its number, 1 to {@value #MAX_INDEX}, unique among a cache's kinds
     * @param priority the priority its entries get
     * @return the kind
     * @throws IllegalArgumentException if {@code name} is empty or {@code index} out of range
     * @throws NullPointerException if {@code name} or {@code priority} is null
     */
    public static EntryKind of(String name, int index, Priority priority) {
        Args.requireNonNull("name", name);
        Args.requireNonNull("priority", priority);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name must not be empty");
        }
        Args.requireInRange("index", index, 1, MAX_INDEX);
        return new EntryKind(name, index, priority);
    }

    /**
     * The kind's name.
     *
     * @return the name given to {@link #of}, or the standard kind's ("data", "index", ...)
     */
    public String name() {
        return name;
    }

    @Override
    public int kindIndex() {
        return index;
    }

    @Override
    public Priority priority() {
        return priority;
    }

    /**
     * Two kinds are equal when they have the same name, index and priority.
     *
     * @param o any object, or null
     * @return whether {@code o} is an {@code EntryKind} with the same name, index and priority
     */
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof EntryKind k && k.index == index
                && k.priority == priority && k.name.equals(name);
    }

    /**
     * A hash of the name, index and priority, consistent with {@link #equals(Object)}.
     *
     * @return the hash code
     */
    @Override
    public int hashCode() {
        return (name.hashCode() * 31 + index) * 31 + priority.hashCode();
    }

    /**
     * The kind as {@code name(index, priority)}, e.g. {@code data(1, LOW)}.
     *
     * @return the name, index and priority
     */
    @Override
    public String toString() {
        return name + "(" + index + ", " + priority + ")";
    }
}
