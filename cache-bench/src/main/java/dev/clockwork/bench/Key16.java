package dev.clockwork.bench;

import java.nio.ByteBuffer;
import org.caffinitas.ohc.CacheSerializer;

/**
 * A 16-byte key for the peers, which need a key object: the counterpart of Clockwork's two-long
 * keys (and of cache_bench's 16-byte keys). On the heap it is a 32-byte object; OHC stores its 16
 * bytes. {@code hashCode} mixes both halves so that keys differing in either spread.
 */
final class Key16 {
    final long hi;
    final long lo;

    Key16(long hi, long lo) {
        this.hi = hi;
        this.lo = lo;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Key16 k && k.hi == hi && k.lo == lo;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(hi * 0x9E37_79B9_7F4A_7C15L + lo);
    }

    /** Keys {@code (0, i)} for {@code i} in {@code [from, to)}, created once at setup. */
    static Key16[] range(long from, long to) {
        Key16[] keys = new Key16[Math.toIntExact(to - from)];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new Key16(0, from + i);
        }
        return keys;
    }

    /** OHC's key serializer: the two longs, 16 bytes. */
    static final CacheSerializer<Key16> SERIALIZER = new CacheSerializer<>() {
        @Override
        public void serialize(Key16 key, ByteBuffer buf) {
            buf.putLong(key.hi).putLong(key.lo);
        }

        @Override
        public Key16 deserialize(ByteBuffer buf) {
            return new Key16(buf.getLong(), buf.getLong());
        }

        @Override
        public int serializedSize(Key16 key) {
            return 16;
        }
    };
}
