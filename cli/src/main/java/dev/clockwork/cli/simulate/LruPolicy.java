package dev.clockwork.cli.simulate;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The reference LRU: a {@link LinkedHashMap} in access order. On a miss the key is inserted as
 * most recent, then the least recent entries are evicted until the sizes fit the capacity; the
 * new entry is never among them (an entry larger than the capacity is not inserted).
 */
final class LruPolicy implements SimPolicy {
    private final long capacity;
    /** key to size, least recently used first. Invariant: the sizes sum to {@code used}. */
    private final LinkedHashMap<Long, Long> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long used;

    LruPolicy(long capacity) {
        this.capacity = capacity;
    }

    @Override
    public boolean access(long key, long size) {
        if (entries.get(key) != null) { // get moves it to the most recent end
            return true;
        }
        if (size > capacity) {
            return false;
        }
        entries.put(key, size);
        used += size;
        Iterator<Map.Entry<Long, Long>> eldest = entries.entrySet().iterator();
        while (used > capacity) {
            used -= eldest.next().getValue();
            eldest.remove();
        }
        return false;
    }

    /** Entries held (for tests). */
    int entryCount() {
        return entries.size();
    }
}
