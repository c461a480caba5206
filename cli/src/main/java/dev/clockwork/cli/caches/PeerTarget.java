package dev.clockwork.cli.caches;

import dev.clockwork.cache.Cache;
import dev.clockwork.cli.workload.ValueHash;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A peer that maps a key object to a {@code byte[]}, as its users write it: a lookup gets the
 * array (Caffeine's stored one, OHC's fresh copy) and the session keeps it for
 * {@link Session#hashValue}; an insert copies the block into a new array and puts it; nothing
 * pins. A subclass says how its map gets, puts and removes.
 */
abstract class PeerTarget extends BenchTarget {

    /** The value of {@code key}, or null when absent. */
    abstract byte[] get(BlockKey key);

    /** Stores {@code value} under {@code key}; false if the peer refused it. */
    abstract boolean put(BlockKey key, byte[] value);

    abstract void remove(BlockKey key);

    @Override
    public final boolean pins() {
        return false;
    }

    @Override
    public final Session session() {
        return new Session() {
            private byte[] hit; // the array the last hit returned

            @Override
            public long lookup(long k0, long k1) {
                hit = get(new BlockKey(k0, k1));
                return hit == null ? Cache.MISS : UNPINNED_HIT;
            }

            @Override
            public long hashValue(long handle) {
                return ValueHash.hash(hit);
            }

            @Override
            public long insertPinned(long k0, long k1, MemorySegment value, long charge) {
                return insert(k0, k1, value, charge) ? UNPINNED_HIT : Cache.MISS;
            }

            @Override
            public boolean insert(long k0, long k1, MemorySegment value, long charge) {
                return put(new BlockKey(k0, k1), value.toArray(ValueLayout.JAVA_BYTE));
            }

            @Override
            public void erase(long k0, long k1) {
                remove(new BlockKey(k0, k1));
            }

            @Override
            public void release(long handle) {
                throw new UnsupportedOperationException(type() + " holds no handles");
            }
        };
    }
}
